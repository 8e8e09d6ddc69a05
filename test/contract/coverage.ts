import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { listOperations, loadDocument, NAMESPACE, type ApiDocument } from '../../src/openapi/document.js';

/**
 * Contract coverage: which parts of the OpenAPI document the test suite really exercises.
 *
 * Every response that goes through a test app is recorded as (operationId, status), the operation
 * being the one the validator matched (`req.openapi`). After the whole run (`CONTRACT_COVERAGE=1`,
 * set by `npm test`), `findContractGaps` compares that record with the document: every operation,
 * every (operation, documented status) pair and every component schema must have been exercised.
 * A schema counts as exercised when it is reachable from an exercised response, or from the request
 * body of an operation that answered 2xx (the body passed validation).
 */

/** operationId → statuses seen. */
export type ExercisedResponses = Map<string, Set<number>>;

const exercised: ExercisedResponses = new Map();

/** What the run has exercised so far. */
export function exercisedResponses(): ExercisedResponses {
  return exercised;
}

export function recordResponse(operationId: string, status: number, into: ExercisedResponses = exercised): void {
  let statuses = into.get(operationId);
  if (!statuses) into.set(operationId, (statuses = new Set()));
  statuses.add(status);
}

let routes: Array<{ method: string; pattern: RegExp; operationId: string }> | undefined;

/**
 * The operation a request URL names, for responses sent before the validator matched it (bad
 * credentials, invalid JSON, oversized bodies): the document's paths under the default base path.
 */
function operationOf(method: string, url: string): string | undefined {
  routes ??= listOperations(loadDocument()).map((op) => ({
    method: op.method,
    pattern: new RegExp(`^/wp-json/${NAMESPACE}${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`.replace(/\/\$$/, '$')),
    operationId: op.operationId,
  }));
  const pathPart = url.split('?')[0].replace(/\/+$/, '');
  const verb = method === 'HEAD' ? 'GET' : method;
  return routes.find((route) => route.method === verb && route.pattern.test(pathPart))?.operationId;
}

/** Wraps a request listener (an Express app) so each response it sends is recorded. */
export function recordingListener(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const { method = 'GET', url = '/' } = req;
    res.on('finish', () => {
      // Set by express-openapi-validator once it has matched the request to an operation.
      const matched = (req as IncomingMessage & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
      const operationId = matched ?? operationOf(method, url);
      if (operationId) recordResponse(operationId, res.statusCode);
    });
    listener(req, res);
  };
}

/**
 * Pairs that no test can exercise, each with the reason. Empty: every documented status is
 * reached through HTTP. (`default` responses are never required: they describe the statuses that
 * are not listed, 413, 415 and 503, which other tests exercise.)
 */
export const UNREACHABLE: ReadonlyArray<{ operationId: string; status: number; reason: string }> = [];

/**
 * Responses every operation lists because the whole service may answer them, whatever the operation:
 * 429 (failed credentials are counted before any handler runs) and 500 (a fault). Like `default`,
 * they are not required per operation; each must be seen on some operation of the run (tests of
 * the throttles and of fault injection reach them).
 */
export const SERVICE_WIDE_RESPONSES: ReadonlyMap<string, number> = new Map([
  ['#/components/responses/TooManyRequests', 429],
  ['#/components/responses/InternalError', 500],
]);

export interface ContractGaps {
  operations: string[];
  /** `operationId status` pairs. */
  responses: string[];
  schemas: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const SCHEMA_REF = '#/components/schemas/';

type Node = Record<string, unknown>;

/** Follows a local `$ref` (components/responses, components/requestBodies...). */
function deref(doc: ApiDocument, node: unknown): Node | undefined {
  let current = node as Node | undefined;
  while (current && typeof current.$ref === 'string' && !current.$ref.startsWith(SCHEMA_REF)) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Node | undefined)?.[key], doc) as Node | undefined;
  }
  return current;
}

/** Adds every component schema referenced from `node`, transitively, to `into`. */
function collectSchemas(doc: ApiDocument, node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) return node.forEach((item) => collectSchemas(doc, item, into));
  if (!node || typeof node !== 'object') return;
  const ref = (node as Node).$ref;
  if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF)) {
    const name = ref.slice(SCHEMA_REF.length);
    if (into.has(name)) return;
    into.add(name);
    return collectSchemas(doc, doc.components.schemas?.[name], into);
  }
  for (const value of Object.values(node as Node)) collectSchemas(doc, deref(doc, value) ?? value, into);
}

/** What the document describes and the run did not exercise. */
export function findContractGaps(doc: ApiDocument, seen: ExercisedResponses, unreachable = UNREACHABLE): ContractGaps {
  const gaps: ContractGaps = { operations: [], responses: [], schemas: [] };
  const reached = new Set<string>();
  const excused = new Set(unreachable.map((u) => `${u.operationId} ${u.status}`));
  const serviceWideSeen = new Set<string>();
  for (const pathItem of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Node | undefined;
      if (!operation) continue;
      const operationId = String(operation.operationId);
      const statuses = seen.get(operationId) ?? new Set<number>();
      if (statuses.size === 0) gaps.operations.push(operationId);
      for (const [code, response] of Object.entries((operation.responses as Node) ?? {})) {
        const status = Number(code);
        if (!Number.isInteger(status)) continue;
        const serviceWide = SERVICE_WIDE_RESPONSES.get(String((response as Node).$ref)) === status;
        if (statuses.has(status)) {
          collectSchemas(doc, deref(doc, response), reached);
          if (serviceWide) serviceWideSeen.add(String((response as Node).$ref));
        } else if (!serviceWide && !excused.has(`${operationId} ${status}`)) gaps.responses.push(`${operationId} ${status}`);
      }
      // Statuses outside the list were answered with the `default` response.
      const listed = Object.keys((operation.responses as Node) ?? {});
      if ([...statuses].some((status) => !listed.includes(String(status)))) collectSchemas(doc, deref(doc, (operation.responses as Node).default), reached);
      if ([...statuses].some((status) => status >= 200 && status < 300)) collectSchemas(doc, deref(doc, operation.requestBody), reached);
    }
  }
  for (const [ref, status] of SERVICE_WIDE_RESPONSES) {
    if (doc.components.responses?.[ref.split('/').pop() ?? ''] && !serviceWideSeen.has(ref)) gaps.responses.push(`(any operation) ${status}`);
  }
  gaps.schemas = Object.keys(doc.components.schemas ?? {}).filter((name) => !reached.has(name));
  return gaps;
}

/** A readable failure message, or undefined when nothing is missing. */
export function describeGaps(gaps: ContractGaps): string | undefined {
  const parts = [
    gaps.operations.length ? `operations never called: ${gaps.operations.join(', ')}` : '',
    gaps.responses.length ? `documented responses never seen (operationId status): ${gaps.responses.join(', ')}` : '',
    gaps.schemas.length ? `component schemas never exercised: ${gaps.schemas.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? `The test suite does not exercise the whole OpenAPI document.\n  ${parts.join('\n  ')}` : undefined;
}
