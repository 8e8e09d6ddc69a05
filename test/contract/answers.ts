import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { loadDocument, resolveRef, type ApiDocument, type SchemaObject } from '../../src/openapi/document.js';

/**
 * Answers compared with the document, beyond what response validation checks: undocumented keys,
 * and the headers the document promises.
 *
 * Response schemas do not say `additionalProperties: false`: the document promises clients that
 * records may grow, so a strict SDK does not break the day a field is added (and the plugin's own
 * records, with `custom_fields` or `_links`, still fit). Response validation therefore no longer
 * refuses a key the document does not name, so this check does instead, in the tests only: every
 * JSON answer that goes through a test app is compared, key by key, with the `properties` of the
 * schema the document gives for its operation and status. A key that the schema does not list is
 * refused unless the schema opens the object explicitly: `x-other-keys: true`, as `ErrorData` and
 * `JsonLd` say (not `additionalProperties: true` beside `properties`, which generators misread:
 * openapi/README.md "Open objects"), or an `additionalProperties` schema. Headers the document marks `required: true` for the answer's
 * operation and status (`X-Request-Id`, `Allow`, `ETag` on reads, the paging totals on lists,
 * `Location` on creates...) must be present. The answer then becomes a 500 saying what differs, as
 * the response validator does for any other mismatch, so the test that provoked it fails.
 */

type Schema = SchemaObject | { $ref: string };

/** The JSON type of a value, in JSON-schema words. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/** Whether a value could be an instance of the schema's `type` (the validator checks the rest). */
function typeFits(schema: SchemaObject, value: unknown): boolean {
  const type = jsonType(value);
  if (type === 'null') return schema.nullable === true || schema.type === undefined;
  if (schema.type === undefined) return true;
  if (schema.type === 'number') return type === 'number' || type === 'integer';
  return schema.type === type;
}

/** `allOf` members merged into one object schema: their properties together; open if any is open. */
function mergeAllOf(doc: ApiDocument, schema: SchemaObject): SchemaObject {
  const members = (schema.allOf as Schema[] | undefined) ?? [];
  if (members.length === 0) return schema;
  const merged: SchemaObject = { ...schema, allOf: undefined, properties: { ...(schema.properties ?? {}) } };
  for (const member of members) {
    const resolved = mergeAllOf(doc, resolveRef<SchemaObject>(doc, member));
    merged.type ??= resolved.type;
    Object.assign(merged.properties!, resolved.properties ?? {});
    if (resolved.additionalProperties !== undefined && resolved.additionalProperties !== false) merged.additionalProperties = resolved.additionalProperties;
    if (resolved['x-other-keys'] === true) merged['x-other-keys'] = true;
  }
  return merged;
}

/**
 * The keys of `value` (as JSON pointers below `at`) that `schema` does not document. For `anyOf` /
 * `oneOf` the value is compared with each alternative its type fits, and the best one counts.
 */
export function undocumentedKeys(doc: ApiDocument, schema: Schema, value: unknown, at = ''): string[] {
  const resolved = mergeAllOf(doc, resolveRef<SchemaObject>(doc, schema));
  const alternatives = (resolved.anyOf ?? resolved.oneOf) as Schema[] | undefined;
  if (alternatives) {
    let best: string[] | undefined;
    for (const alternative of alternatives) {
      const branch = mergeAllOf(doc, resolveRef<SchemaObject>(doc, alternative));
      if (!typeFits(branch, value)) continue;
      const found = undocumentedKeys(doc, branch, value, at);
      if (!best || found.length < best.length) best = found;
      if (found.length === 0) break;
    }
    return best ?? [];
  }
  if (Array.isArray(value)) {
    return resolved.items ? value.flatMap((item, index) => undocumentedKeys(doc, resolved.items!, item, `${at}/${index}`)) : [];
  }
  if (value === null || typeof value !== 'object') return [];
  const properties = resolved.properties ?? {};
  const extra = (resolved.additionalProperties ?? (resolved['x-other-keys'] === true ? true : undefined)) as boolean | Schema | undefined;
  // An object schema that documents no key at all (`type: object`) describes a free-form value.
  const closed = extra === false || (extra === undefined && resolved.properties !== undefined);
  const found: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const pointer = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key in properties) found.push(...undocumentedKeys(doc, properties[key], item, pointer));
    else if (typeof extra === 'object') found.push(...undocumentedKeys(doc, extra, item, pointer));
    else if (closed) found.push(pointer);
  }
  return found;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Response = Record<string, unknown>;

/** operationId → documented responses (status or `default` → response object, `$ref`s resolved). */
function responsesByOperation(doc: ApiDocument): Map<string, Record<string, Response>> {
  const out = new Map<string, Record<string, Response>>();
  for (const pathItem of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as { operationId: string; responses: Record<string, unknown> } | undefined;
      if (!operation) continue;
      const responses = Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, resolveRef<Response>(doc, response as never)]));
      out.set(operation.operationId, responses);
    }
  }
  return out;
}

let document: ApiDocument | undefined;
let responses: Map<string, Record<string, Response>> | undefined;

function documented(): { doc: ApiDocument; responses: Map<string, Record<string, Response>> } {
  document ??= loadDocument();
  responses ??= responsesByOperation(document);
  return { doc: document, responses };
}

/** The response the document gives for an operation and status (or its `default`). */
function responseOf(doc: ApiDocument, operationId: string, status: number): Response | undefined {
  const all = doc === document ? documented().responses.get(operationId) : responsesByOperation(doc).get(operationId);
  return all?.[String(status)] ?? all?.default;
}

/**
 * The JSON schema the document gives for an answer: the operation's response for the status (or
 * its `default`); answers sent before any operation matched are errors in the `Error` envelope.
 */
export function responseSchema(doc: ApiDocument, operationId: string | undefined, status: number): Schema | undefined {
  if (operationId === undefined) return status >= 400 ? { $ref: '#/components/schemas/Error' } : undefined;
  const content = responseOf(doc, operationId, status)?.content as Record<string, { schema?: Schema }> | undefined;
  return (content?.['application/json'] ?? content?.['application/ld+json'])?.schema;
}

/** The undocumented keys of one answer, against the committed document. */
export function undocumentedKeysOfAnswer(operationId: string | undefined, status: number, body: unknown): string[] {
  const { doc } = documented();
  const schema = responseSchema(doc, operationId, status);
  return schema ? undocumentedKeys(doc, schema, body) : [];
}

/** The headers the document marks `required` for an answer of the operation that the answer lacks. */
export function missingHeadersOfAnswer(operationId: string | undefined, status: number, has: (name: string) => boolean): string[] {
  if (operationId === undefined) return [];
  const { doc } = documented();
  const headers = (responseOf(doc, operationId, status)?.headers ?? {}) as Record<string, unknown>;
  return Object.entries(headers)
    .filter(([name, header]) => resolveRef<{ required?: boolean }>(doc, header as never).required === true && !has(name))
    .map(([name]) => name);
}

/**
 * Wraps a request listener (an Express app) so that every answer is compared with the document
 * before it is sent: its JSON keys (above) and the headers the document marks as required. An
 * answer whose keys differ is replaced by a 500 that says how, as response validation does. Headers
 * are checked as they go out (`writeHead`), after the app's own hook there has added Cache-Control
 * and Vary (src/http/cache-policy.ts); an answer missing one is sent as a 500, its message logged
 * and in `X-Undocumented-Answer`.
 */
export function answerCheckingListener(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const operationIdOf = () => (req as IncomingMessage & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
    const writeHead = res.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
    res.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
      const missing = missingHeadersOfAnswer(operationIdOf(), Number(statusCode), (name) => this.hasHeader(name));
      if (missing.length === 0) return writeHead.call(this, statusCode, ...rest);
      const message = `${req.method} ${req.url} (${operationIdOf() ?? 'no operation'}, ${statusCode}) differs from the document: ${missing.map((name) => `header ${name}`).join(', ')}`;
      console.error(`      undocumented answer: ${message}`);
      this.setHeader('X-Undocumented-Answer', message);
      return writeHead.call(this, 500);
    } as typeof res.writeHead;
    const end = res.end as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      if (res.headersSent) return end.apply(this, args);
      const chunk = typeof args[0] === 'function' ? undefined : args[0];
      const operationId = operationIdOf();
      const problems: string[] = [];
      if (chunk !== undefined && chunk !== null && /^application\/(ld\+)?json/.test(String(res.getHeader('Content-Type') ?? ''))) {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
        } catch {
          body = undefined;
        }
        if (body !== undefined) problems.push(...undocumentedKeysOfAnswer(operationId, res.statusCode, body).map((key) => `key ${key}`));
      }
      if (problems.length === 0) return end.apply(this, args);
      const message = `${req.method} ${req.url} (${operationId ?? 'no operation'}, ${res.statusCode}) differs from the document: ${problems.join(', ')}`;
      console.error(`      undocumented answer: ${message}`);
      const replacement = JSON.stringify({ code: 'rest_undocumented_answer', message, data: { status: 500, problems } });
      res.statusCode = 500;
      res.removeHeader('ETag');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(replacement));
      return end.call(this, replacement);
    } as typeof res.end;
    listener(req, res);
  };
}
