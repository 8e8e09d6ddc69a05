import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

/** The namespace every route lives in, relative to the base path. */
export const NAMESPACE = 'tribe/events/v1';

/** The parts of an OpenAPI 3.0 document the service reads. The validator checks the rest. */
export interface ApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers: Array<{ url: string; description?: string }>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface SchemaObject {
  type?: string;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  [key: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema: SchemaObject;
  [key: string]: unknown;
}

/** One operation of the document, with its `$ref`s resolved. */
export interface OperationInfo {
  operationId: string;
  method: string;
  /** The path as written in the document, relative to the namespace (`/events/{id}`). */
  path: string;
  parameters: ParameterObject[];
  /** The schema of the request body (the JSON one; the form one is the same), if any. */
  bodySchema: SchemaObject | undefined;
  /** `true` when the operation can be called without credentials (its security lists `{}`). */
  allowsAnonymous: boolean;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The folder holding package.json, found from this module whether it runs from src/ or dist/src/. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

/** The bundled document (`npm run generate` makes it from the hand-written sources in openapi/). */
export const DOCUMENT_PATH = path.join(projectRoot(), 'generated', 'openapi.yaml');

/**
 * The same document as JSON, written beside it by `npm run generate` (scripts/bundle.mjs), which is
 * what the service loads: `JSON.parse` takes a few milliseconds where parsing the YAML took 0.1-0.3 s
 * and left about 5 MB more resident at start (docs/performance.md "Memory").
 */
const DOCUMENT_JSON_PATH = path.join(projectRoot(), 'generated', 'openapi.json');

/**
 * Reads the bundled document (its JSON twin), or the YAML or JSON document at `file`. Each call
 * returns a fresh copy the caller may change.
 */
export function loadDocument(file?: string): ApiDocument {
  if (file === undefined) return JSON.parse(fs.readFileSync(DOCUMENT_JSON_PATH, 'utf8')) as ApiDocument;
  return YAML.parse(fs.readFileSync(file, 'utf8')) as ApiDocument;
}

/** Resolves a local `$ref` (`#/components/...`), following chains. */
export function resolveRef<T>(doc: ApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value;
  for (let hops = 0; hops < 20 && current && typeof current === 'object' && '$ref' in current; hops++) {
    const ref = (current as { $ref: string }).$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current as T;
}

/**
 * An `allOf` schema as one schema: the members' properties together (a later member's definition of
 * a property wins, so `EventCreate`'s full `EventFields` definitions win over the bare ones that only
 * make `title` required), their `required` lists together, their other keywords from the first member
 * that has them, and the schema's own keywords over all of them (a property's own `description` over
 * its `DateInput`'s). Input shapes, the namespace index and the property tests read the result.
 */
function mergeAllOf(doc: ApiDocument, schema: SchemaObject, seen: Set<string>): SchemaObject {
  const members = schema.allOf as Array<SchemaObject | { $ref: string }> | undefined;
  if (!members) return schema;
  const merged: SchemaObject = {};
  const { allOf: _members, ...own } = schema;
  for (const part of [...members.map((member) => resolveSchema(doc, member, seen)), own as SchemaObject]) {
    const isOwn = part === own;
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') merged.properties = { ...merged.properties, ...(value as Record<string, SchemaObject>) };
      else if (key === 'required') merged.required = [...new Set([...(merged.required ?? []), ...(value as string[])])];
      else if (isOwn || !(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

/** Resolves every `$ref` inside a schema (properties, items, anyOf/oneOf, allOf merged), without cycles. */
export function resolveSchema(doc: ApiDocument, schema: SchemaObject | { $ref: string }, seen = new Set<string>()): SchemaObject {
  if ('$ref' in schema && typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return {};
    seen = new Set(seen).add(schema.$ref);
  }
  const resolved = mergeAllOf(doc, resolveRef<SchemaObject>(doc, schema), seen);
  const out: SchemaObject = { ...resolved };
  if (resolved.items) out.items = resolveSchema(doc, resolved.items, seen);
  if (resolved.properties) {
    out.properties = Object.fromEntries(Object.entries(resolved.properties).map(([k, v]) => [k, resolveSchema(doc, v, seen)]));
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (resolved[key]) out[key] = resolved[key]!.map((s) => resolveSchema(doc, s, seen));
  }
  return out;
}

/** Every operation of the document, in document order. */
export function listOperations(doc: ApiDocument): OperationInfo[] {
  const topSecurity = (doc.security as Array<Record<string, unknown>> | undefined) ?? [];
  const operations: OperationInfo[] = [];
  for (const [routePath, pathItem] of Object.entries(doc.paths)) {
    const shared = ((pathItem.parameters as unknown[]) ?? []).map((p) => resolveRef<ParameterObject>(doc, p as ParameterObject));
    for (const method of HTTP_METHODS) {
      const op = pathItem[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const own = ((op.parameters as unknown[]) ?? []).map((p) => resolveRef<ParameterObject>(doc, p as ParameterObject));
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own].map((p) => ({
        ...p,
        schema: resolveSchema(doc, p.schema),
      }));
      const body = op.requestBody ? resolveRef<{ content: Record<string, { schema: SchemaObject }> }>(doc, op.requestBody as never) : undefined;
      const bodyContent = body?.content['application/json'] ?? (body ? Object.values(body.content)[0] : undefined);
      const security = (op.security as Array<Record<string, unknown>> | undefined) ?? topSecurity;
      operations.push({
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        path: routePath,
        parameters,
        bodySchema: bodyContent ? resolveSchema(doc, bodyContent.schema) : undefined,
        allowsAnonymous: security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0),
      });
    }
  }
  return operations;
}

/**
 * Lists the service derives from the document once at start-up, so that a header or an operation
 * added to the document needs no second list in the code. Names are HTTP header names: one name
 * per header whatever its case, spelled as it is first written, in document order.
 */

/** The operations that take the request header `name` (e.g. `Idempotency-Key`). */
export function operationsWithHeader(operations: OperationInfo[], name: string): ReadonlySet<string> {
  const wanted = name.toLowerCase();
  return new Set(operations.filter((op) => op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === wanted)).map((op) => op.operationId));
}

/** Every request header an operation of the document takes. */
export function requestHeaderNames(operations: OperationInfo[]): string[] {
  return headerNames(operations.flatMap((op) => op.parameters.filter((p) => p.in === 'header').map((p) => p.name)));
}

/** Every header a response of the document declares. */
export function responseHeaderNames(doc: ApiDocument): string[] {
  const names: string[] = [];
  for (const pathItem of Object.values(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const responses = (pathItem[method] as { responses?: Record<string, unknown> } | undefined)?.responses ?? {};
      for (const response of Object.values(responses)) names.push(...Object.keys(resolveRef<{ headers?: Record<string, unknown> }>(doc, response as never).headers ?? {}));
    }
  }
  return headerNames(names);
}

/** The methods the document's operations use. */
export function methodsOf(operations: OperationInfo[]): string[] {
  return [...new Set(operations.map((op) => op.method))];
}

/** The names of the document's security schemes (`basicAuth`, `bearerAuth`). */
export function securitySchemeNames(doc: ApiDocument): string[] {
  return Object.keys(doc.components.securitySchemes ?? {});
}

/** Header names without repeats, compared without case (`ETag` = `etag`), each as first spelled. */
export function headerNames(names: Iterable<string>): string[] {
  const byLowerCase = new Map<string, string>();
  for (const name of names) if (!byLowerCase.has(name.toLowerCase())) byLowerCase.set(name.toLowerCase(), name);
  return [...byLowerCase.values()];
}
