import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import type { operations } from '../../generated/openapi.js';
import type { User } from '../auth/capabilities.js';
import type { Config } from '../config.js';
import type { VersionedCache } from '../db/versioned-cache.js';
import type { Urls } from './urls.js';

/** Every operationId of the OpenAPI document. */
export type OperationId = keyof operations;

type ParametersOf<Op extends OperationId> = operations[Op]['parameters'];

/** The validated (coerced, defaulted) query of an operation, typed from the document. */
export type QueryOf<Op extends OperationId> = ParametersOf<Op> extends { query?: infer Q } ? NonNullable<Q> : never;
/** The validated path parameters of an operation. */
export type PathOf<Op extends OperationId> = ParametersOf<Op> extends { path: infer P } ? NonNullable<P> : never;
/** The validated request body of an operation (JSON and form bodies share one schema). */
export type BodyOf<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** What a handler gets: the caller, the validated input, and the services it may use. */
export interface OperationContext<Op extends OperationId = OperationId> {
  operationId: Op;
  req: Request;
  res: Response;
  user: User | undefined;
  urls: Urls;
  config: Config;
  db: Knex;
  /** The clock, injectable in tests (date windows, publication dates). */
  now: () => Date;
  /** Replies to reads, per key, while the data does not change (http/replies.ts). */
  replies: VersionedCache<Reply>;
  query: QueryOf<Op>;
  path: PathOf<Op>;
  body: BodyOf<Op>;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body as JSON, once sent (a remembered reply is sent many times; see app.ts dispatch). */
  serialized?: string;
}

/**
 * One operation: a permission decision and a handler. The permission is mandatory, so no operation
 * can be added without deciding who may call it (`allowPublic` and `checkedByHandler` say so
 * explicitly). It runs after the validator; rules that depend on the record or on the body run in
 * the handler.
 */
export interface Operation<Op extends OperationId> {
  permission: (ctx: OperationContext<Op>) => void;
  handler: (ctx: OperationContext<Op>) => Promise<Reply>;
}

/** The table of every operation. A missing or unknown operationId does not compile. */
export type OperationTable = { [Op in OperationId]: Operation<Op> };

/** For operations anybody may call (reads, with per-record visibility applied by the handler). */
export function allowPublic(): void {}

/**
 * For writes: the document's security step has already required credentials (401); the caller's
 * right is checked by the handler once the parameters are valid (400) and the record is found (404),
 * the order contract §4 sets.
 */
export function checkedByHandler(): void {}
