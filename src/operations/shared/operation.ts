import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import type { operations } from '../../../generated/openapi.js';
import type { User } from '../../auth/capabilities.js';
import type { Config } from '../../core/config.js';
import type { Moving } from '../../db/versioned-cache.js';
import type { Repositories } from '../../repositories/registry.js';
import type { Urls } from '../../core/urls.js';
import type { SerializedReply } from './reply-body.js';

/** Every operationId of the OpenAPI document. */
export type OperationId = keyof operations;

type ParametersOf<Op extends OperationId> = operations[Op]['parameters'];

/** The validated (coerced, defaulted) query of an operation, typed from the document. */
export type QueryOf<Op extends OperationId> = ParametersOf<Op> extends { query?: infer Q } ? NonNullable<Q> : never;
/** The validated path parameters of an operation. */
export type PathOf<Op extends OperationId> = ParametersOf<Op> extends { path: infer P } ? NonNullable<P> : never;
/** The validated request body of an operation (JSON and form bodies share one schema). */
export type BodyOf<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

type ResponsesOf<Op extends OperationId> = operations[Op]['responses'];
/** A response's body: its JSON (also JSON-LD), or the text of a `text/calendar` answer. */
type ContentBody<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'application/ld+json': infer L } }
    ? L
    : R extends { content: { 'text/calendar': infer T } }
      ? T
      : never;
/** Every body the document allows an operation to answer with. */
export type ResponseBodyOf<Op extends OperationId> = Op extends OperationId
  ? { [Status in keyof ResponsesOf<Op>]: ContentBody<ResponsesOf<Op>[Status]> }[keyof ResponsesOf<Op>]
  : never;

/** What every stage of an operation gets: the caller, the validated input, and the services it may use. */
export interface OperationContext<Op extends OperationId = OperationId> {
  operationId: Op;
  req: Request;
  res: Response;
  user: User | undefined;
  urls: Urls;
  config: Config;
  db: Knex;
  /** The repositories of this request, created once (writes get their own, in a transaction). */
  repositories: Repositories;
  /** The clock, injectable in tests (date windows, publication dates). */
  now: () => Date;
  query: QueryOf<Op>;
  path: PathOf<Op>;
  body: BodyOf<Op>;
  /** A create's claimed `Idempotency-Key` (operations/shared/idempotency.ts): the create stores its answer with it, in its own transaction. */
  idempotency?: IdempotencyClaim;
}

/** Which stored version of which record a reply shows (its strong `ETag`: operations/shared/conditional.ts). */
export interface RecordVersion {
  kind: 'event' | 'venue' | 'organizer' | 'category' | 'tag';
  id: number;
  version: number;
}

/** A key the current create holds (operations/shared/idempotency.ts): it stores the create's answer, in the create's transaction. */
export interface IdempotencyClaim {
  complete(repositories: Repositories, reply: Reply): Promise<void>;
}

/** An operation's answer: status, a body its responses document, extra headers. */
export interface Reply<Op extends OperationId = OperationId> {
  status: number;
  body: ResponseBodyOf<Op>;
  headers?: Record<string, string>;
  /**
   * The media type of a body that is not plain JSON: a string body is sent as it is (e.g.
   * `text/calendar; charset=utf-8`); any other body is sent as JSON under this type
   * (`application/ld+json; charset=utf-8`).
   */
  contentType?: string;
  /** The body as JSON, once sent (a remembered reply is sent many times; see operations/shared/reply-body.ts). */
  serialized?: SerializedReply;
  /**
   * A text body's UTF-8 bytes once the reply is remembered (operations/shared/replies.ts): sent instead of the
   * body, which is then decoded from them only when asked for.
   */
  textBytes?: Buffer;
  /** The stored version of the record the body shows: the reply gets a strong `ETag` (operations/shared/conditional.ts). */
  version?: RecordVersion;
  /** That `ETag`, once computed. */
  etag?: string;
}

/** What a remembered read depends on besides the operation, the caller's read rights and the URL base. */
export interface RememberedBy {
  parts: unknown;
  /** For replies that also depend on the clock (operations/shared/replies.ts). */
  moving?: Moving;
}

/**
 * One operation, as the stages every request runs in this order (docs/contract.md §4):
 *
 * 1. `parse`: the input, checked against everything that does not depend on the record (400);
 * 2. `load`: the record the path names (404, or 400 for an id of another type);
 * 3. `authorize`: the policy action that decides whether this caller may do this to that record
 *    with that input (policies/; 401/403, or 400 where the plugin answers so; asynchronous only where
 *    it must ask the database, a record password's shared guess count);
 * 4. `execute`: checks that depend on the record (400), the work, the answer.
 *
 * Reads that name `remember` are answered from the remembered replies while the data they depend on
 * does not change (the key is computed after `parse`; stages 2-4 run only on a miss).
 */
export interface Operation<Op extends OperationId, Input = unknown, Target = unknown> {
  parse(ctx: OperationContext<Op>): Input | Promise<Input>;
  remember?(ctx: OperationContext<Op>, input: Input): RememberedBy;
  load(ctx: OperationContext<Op>, input: Input): Target | Promise<Target>;
  authorize(user: User | undefined, target: Target, input: Input): void | Promise<void>;
  execute(ctx: OperationContext<Op>, input: Input, target: Target): Promise<Reply<Op>>;
}

/**
 * The stages as `operation` reads them: the operation is inferred from `parse`, the input from what
 * `parse` returns and the target from what `load` returns, so that a policy action written for any
 * post (`postPolicy.read`) or a helper written for any operation (`byRequest`) fits every stage.
 */
interface Stages<Op extends OperationId, Input, Target> {
  parse(ctx: OperationContext<Op>): Input | Promise<Input>;
  remember?(ctx: OperationContext<NoInfer<Op>>, input: NoInfer<Input>): RememberedBy;
  load(ctx: OperationContext<NoInfer<Op>>, input: NoInfer<Input>): Target | Promise<Target>;
  authorize(user: User | undefined, target: NoInfer<Target>, input: NoInfer<Input>): void | Promise<void>;
  execute(ctx: OperationContext<NoInfer<Op>>, input: NoInfer<Input>, target: NoInfer<Target>): Promise<Reply<NoInfer<Op>>>;
}

/** The table of every operation. A missing or unknown operationId does not compile. */
export type OperationTable = { [Op in OperationId]: Operation<Op> };

/** Types an operation's stages from its parts, so each stage sees what the previous one returned. */
export function operation<Op extends OperationId, Input, Target>(stages: Stages<Op, Input, Target>): Operation<Op, Input, Target> {
  return stages;
}

/** `parse` of operations whose input is just their validated query (reads, deletes). */
export function queryInput<Op extends OperationId>(ctx: OperationContext<Op>): QueryOf<Op> {
  return ctx.query;
}

/** `load` of operations that act on no stored record (lists, creates). */
export function noTarget(): undefined {
  return undefined;
}

/** `authorize` of operations anybody may call (the namespace index, the document). */
export function anyone(): void {}
