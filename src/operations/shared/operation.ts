import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import type { SubscriptionRuns } from '../../importing/scheduler.js';
import type { operations } from '../../../generated/openapi.js';
import type { User } from '../../auth/capabilities.js';
import { invalidParams, type ParamProblem, type RestError } from '../../core/errors.js';
import type { Config } from '../../core/config.js';
import type { Moving } from '../../db/versioned-cache.js';
import type { Repositories } from '../../repositories/registry.js';
import type { Urls } from '../../core/urls.js';
import type { SerializedReply } from './reply-body.js';
import type { WriteContext } from '../../domain/posts/writes.js';
import { HtmlElementBudget } from '../../text/html-structure.js';

/** Every operationId of the OpenAPI document. */
export type OperationId = keyof operations;

type ParametersOf<Op extends OperationId> = operations[Op]['parameters'];

/** The validated (coerced, defaulted) query of an operation, typed from the document. */
export type QueryOf<Op extends OperationId> = ParametersOf<Op> extends { query?: infer Q } ? NonNullable<Q> : never;
/** The validated path parameters of an operation. */
type PathOf<Op extends OperationId> = ParametersOf<Op> extends { path: infer P } ? NonNullable<P> : never;
/** The validated request body of an operation (JSON and form bodies share one schema). */
type BodyOf<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

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
  /** This process's subscription runs, which a refresh request joins or adds to (importing/scheduler.ts). */
  subscriptionRuns: SubscriptionRuns;
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
interface IdempotencyClaim {
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
  /** The body as JSON, once sent (a cached reply is sent many times; see operations/shared/reply-body.ts). */
  serialized?: SerializedReply;
  /**
   * A text body's UTF-8 bytes once the reply is cached (operations/shared/replies.ts): sent instead of the
   * body, which is then decoded from them only when asked for.
   */
  textBytes?: Buffer;
  /** The stored version of the record the body shows: the reply gets a strong `ETag` (operations/shared/conditional.ts). */
  version?: RecordVersion;
  /** That `ETag`, once computed. */
  etag?: string;
}

/** What a cached read depends on besides the operation, the caller's read scope and the URL base. */
export interface CachedBy {
  parts: unknown;
  /** For replies that also depend on the clock (operations/shared/replies.ts). */
  moving?: Moving;
}

/**
 * One operation, as the stages every request runs in this order (docs/contract.md §4):
 *
 * 1. `parse`: the input, checked against everything that does not depend on the record (400);
 * 1b. `permit` (writes of a stored record): whether the caller may make such a write to any record of
 *    its type at all (403 before the record is looked up, so a caller without the right learns
 *    nothing about ids: docs/contract.md §4);
 * 2. `load`: the record the path names (404, or 400 for an id of another type);
 * 3. `authorize`: the policy action that decides whether this caller may do this to that record
 *    with that input (policies/; 401/403, or 400 where the plugin answers so; asynchronous only where
 *    it must ask the database, a record password's shared guess count);
 * 4. `execute`: checks that depend on the record (400), the work, the answer.
 *
 * Reads that name `cache` are answered from the reply cache (operations/shared/replies.ts, REPLY_CACHE)
 * while no write has committed (the key is computed after `parse`; stages 2-4 run only on a miss).
 * `cache` gives undefined for a request that must run every stage (a single read with a password,
 * whose attempts are counted).
 */
export interface Operation<Op extends OperationId, Input = unknown, Target = unknown> {
  parse(ctx: OperationContext<Op>): Input | Promise<Input>;
  cache?(ctx: OperationContext<Op>, input: Input): CachedBy | undefined;
  permit?(user: User | undefined, input: Input): void;
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
  cache?(ctx: OperationContext<NoInfer<Op>>, input: NoInfer<Input>): CachedBy | undefined;
  permit?(user: User | undefined, input: NoInfer<Input>): void;
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

/** Who writes, and when, for a write this request makes (one HTML budget per request). */
export function writerOf(ctx: OperationContext): WriteContext {
  return { repositories: ctx.repositories, user: ctx.user, now: ctx.now(), siteTimezone: ctx.config.siteTimezone, html: new HtmlElementBudget() };
}

/** Where the request keeps the problems of its booleans that are no booleans (http/param-stages.ts). */
export const TYPE_PROBLEMS = 'typeProblems';

/**
 * The 400 of a request's booleans that are no booleans, answered once the operation's own parameter
 * checks passed and before its handler's checks, as WordPress orders them (http/param-stages.ts).
 */
export function typeProblemsOf(ctx: Pick<OperationContext, 'res'>): RestError | undefined {
  const problems = ctx.res.locals[TYPE_PROBLEMS] as Record<string, ParamProblem> | undefined;
  return problems ? invalidParams(problems) : undefined;
}
