import { listOperations, loadDocument, resolveRef, type ParameterObject, type SchemaObject } from '../../src/openapi/document.js';

/**
 * The operations of the OpenAPI document, as the request generator needs them: parameters, body
 * schema and content types, and the statuses each one documents. Read from the document, so a new
 * operation is generated and checked without touching the tests.
 */

/** The resources whose records the generator seeds and refers to. */
export type Collection = 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'webhooks' | 'subscriptions';

export interface ApiOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as written in the document, relative to the namespace (`/events/{id}`). */
  path: string;
  collection: Collection | undefined;
  /** What the path parameter names, when there is one. */
  pathParameter: 'id' | 'slug' | undefined;
  queryParameters: ParameterObject[];
  bodySchema: SchemaObject | undefined;
  /** Media types the request body may have (empty for GET and DELETE). */
  contentTypes: string[];
  /** The statuses listed for the operation (not counting `default`). */
  statuses: Set<number>;
  /** Whether `default` (the generic error response: 413, 415, 500, 503) is documented too. */
  hasDefault: boolean;
  /** The media types of each documented response (status or `default`) that has a body. */
  answerTypes: Record<string, string[]>;
  /** Whether the anonymous visitor may call it (its security lists `{}`). */
  allowsAnonymous: boolean;
}

/** Statuses the document describes under `default` only (413 body too large, 415 wrong content type). */
export const DEFAULT_CLIENT_ERRORS = new Set([413, 415]);

const COLLECTIONS: Collection[] = ['events', 'venues', 'organizers', 'categories', 'tags', 'webhooks', 'subscriptions'];

let cached: ApiOperation[] | undefined;

/**
 * Operations the generators leave out: a webhook's ping sends a message over the network now
 * (docs/webhooks.md), a subscription's refresh fetches its source now and a calendar import fetches
 * its `url` (docs/importing.md), which these tests do not reach; test/api/webhooks/webhooks/webhooks.test.ts,
 * test/webhooks/, test/importing/subscriptions.test.ts and test/api/events/import.test.ts test them.
 */
const NOT_GENERATED = new Set(['pingWebhook', 'refreshSubscription', 'importEvents']);

export function apiOperations(): ApiOperation[] {
  if (cached) return cached;
  const doc = loadDocument();
  cached = listOperations(doc)
    .filter((op) => !NOT_GENERATED.has(op.operationId))
    .map((op) => {
      const raw = (doc.paths[op.path] as Record<string, Record<string, unknown>>)[op.method.toLowerCase()];
      const responses = Object.keys(raw.responses as Record<string, unknown>);
      const requestBody = raw.requestBody ? resolveRef<{ content: Record<string, unknown> }>(doc, raw.requestBody as never) : undefined;
      const first = op.path.split('/')[1] as Collection;
      return {
        operationId: op.operationId,
        method: op.method as ApiOperation['method'],
        path: op.path,
        collection: COLLECTIONS.includes(first) ? first : undefined,
        pathParameter: op.path.includes('{id}') ? 'id' : op.path.includes('{slug}') ? 'slug' : undefined,
        queryParameters: op.parameters.filter((p) => p.in === 'query'),
        bodySchema: op.bodySchema,
        contentTypes: Object.keys(requestBody?.content ?? {}),
        statuses: new Set(responses.filter((s) => s !== 'default').map(Number)),
        hasDefault: responses.includes('default'),
        answerTypes: Object.fromEntries(
          Object.entries(raw.responses as Record<string, unknown>).map(([status, response]) => [
            status,
            Object.keys(resolveRef<{ content?: Record<string, unknown> }>(doc, response as never).content ?? {}),
          ]),
        ),
        allowsAnonymous: op.allowsAnonymous,
      };
    });
  return cached;
}

/** The media types the document gives for an answer of the operation with this status (JSON when it gives none). */
export function documentedTypes(op: ApiOperation, status: number): string[] {
  const types = op.answerTypes[String(status)] ?? op.answerTypes.default ?? [];
  return types.length ? types : ['application/json'];
}

/** Whether a status is documented for the operation. */
export function isDocumentedStatus(op: ApiOperation, status: number): boolean {
  return op.statuses.has(status) || (op.hasDefault && DEFAULT_CLIENT_ERRORS.has(status));
}
