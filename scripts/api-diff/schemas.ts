/**
 * Schema comparison for the breaking-change check (docs/api-versioning.md "What counts as breaking").
 * Pure functions: given two resolved OpenAPI 3.0 schemas and the side of the wire they describe, list
 * what a client written against the old schema would trip over in the new one.
 *
 * Direction decides everything. A request schema is what the service accepts: the new one must
 * accept every value the old one accepted (no narrowed type, no removed enum value, no new required
 * property). A response schema is what the client reads: every value the new one allows must still
 * be understood by the old client (no removed or no-longer-always-present property, no new type, no
 * new enum value, no new `null`).
 */

export type Json = Record<string, unknown>;
export type Direction = 'request' | 'response';

export interface Change {
  /** True when a client written against the old document may break. */
  breaking: boolean;
  /** Where: operation, parameter or body, then the property path, e.g. `GET /events response 200 application/json .venue.city`. */
  location: string;
  message: string;
}

/** Resolves local `#/...` references (the bundled document has no other kind). */
export function resolve(document: Json, value: unknown): Json {
  let current = value as Json;
  for (let hops = 0; current && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`reference loop at ${current.$ref}`);
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document) as Json;
    if (current === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  return current ?? {};
}

/** What a schema allows, flattened: allOf merged (an intersection), oneOf/anyOf joined (a union). */
export interface Shape {
  /** Allowed JSON types; null when the schema names none (any type). */
  types: Set<string> | null;
  nullable: boolean;
  /** Allowed values as JSON text; null when unrestricted. */
  enumValues: Set<string> | null;
  properties: Map<string, unknown>;
  required: Set<string>;
  items: unknown;
  bounds: Map<string, number>;
}

const BOUND_KEYS = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const;
/** For each bound, whether a larger value allows more (maxLength) or less (minLength). */
const LARGER_ALLOWS_MORE: Record<(typeof BOUND_KEYS)[number], boolean> = {
  minLength: false,
  maxLength: true,
  minimum: false,
  maximum: true,
  minItems: false,
  maxItems: true,
};

function ownShape(schema: Json): Shape {
  const type = typeof schema.type === 'string' ? schema.type : schema.properties ? 'object' : null;
  const bounds = new Map<string, number>();
  for (const key of BOUND_KEYS) if (typeof schema[key] === 'number') bounds.set(key, schema[key]);
  return {
    types: type === null ? null : new Set([type]),
    nullable: schema.nullable === true,
    enumValues: Array.isArray(schema.enum) ? new Set(schema.enum.map((value) => JSON.stringify(value))) : null,
    properties: new Map(Object.entries((schema.properties as Json | undefined) ?? {})),
    required: new Set((schema.required as string[] | undefined) ?? []),
    items: schema.items ?? null,
    bounds,
  };
}

/** allOf: every part applies, so types and enums narrow and properties add up. */
function intersect(a: Shape, b: Shape): Shape {
  const types = a.types === null ? b.types : b.types === null ? a.types : new Set([...a.types].filter((t) => b.types!.has(t)));
  const enumValues = a.enumValues === null ? b.enumValues : b.enumValues === null ? a.enumValues : new Set([...a.enumValues].filter((v) => b.enumValues!.has(v)));
  return {
    types,
    nullable: a.nullable && b.nullable,
    enumValues,
    properties: new Map([...b.properties, ...a.properties]),
    required: new Set([...a.required, ...b.required]),
    items: a.items ?? b.items,
    bounds: new Map([...b.bounds, ...a.bounds]),
  };
}

/** oneOf/anyOf: any part may match, so types and enums widen and only common requirements remain. */
function join(a: Shape, b: Shape): Shape {
  return {
    types: a.types === null || b.types === null ? null : new Set([...a.types, ...b.types]),
    nullable: a.nullable || b.nullable,
    enumValues: a.enumValues === null || b.enumValues === null ? null : new Set([...a.enumValues, ...b.enumValues]),
    properties: new Map([...b.properties, ...a.properties]),
    required: new Set([...a.required].filter((name) => b.required.has(name))),
    items: a.items ?? b.items,
    bounds: new Map(),
  };
}

export function shapeOf(document: Json, value: unknown): Shape {
  const schema = resolve(document, value);
  let shape = ownShape(schema);
  for (const part of (schema.allOf as unknown[] | undefined) ?? []) shape = intersect(shape, shapeOf(document, part));
  const variants = ((schema.oneOf ?? schema.anyOf) as unknown[] | undefined) ?? [];
  if (variants.length > 0) shape = intersect(shape, variants.map((variant) => shapeOf(document, variant)).reduce(join));
  return shape;
}

/** Whether every value of type set `small` is also of type set `large` (null is any type). */
function typesWithin(small: Set<string> | null, large: Set<string> | null): boolean {
  if (large === null) return true;
  if (small === null) return false;
  return [...small].every((type) => large.has(type) || (type === 'integer' && large.has('number')));
}

function describeTypes(types: Set<string> | null): string {
  return types === null ? 'any type' : [...types].sort().join(' | ');
}

/** The two documents and the direction, shared by the whole walk of one schema pair. */
export interface SchemaWalk {
  before: Json;
  after: Json;
  direction: Direction;
  changes: Change[];
}

function compareTypes(walk: SchemaWalk, location: string, old: Shape, now: Shape): void {
  const add = (breaking: boolean, message: string): number => walk.changes.push({ breaking, location, message });
  const request = walk.direction === 'request';
  const [narrow, wide] = request ? [now.types, old.types] : [old.types, now.types];
  if (!typesWithin(wide, narrow)) add(true, `type ${describeTypes(old.types)} became ${describeTypes(now.types)}`);
  if (request && old.nullable && !now.nullable) add(true, 'null is no longer accepted');
  if (!request && now.nullable && !old.nullable) add(true, 'may now be null');
  if (request) {
    if (now.enumValues !== null) {
      const removed = old.enumValues === null ? ['(any value)'] : [...old.enumValues].filter((v) => !now.enumValues!.has(v));
      if (removed.length > 0) add(true, `no longer accepts ${removed.join(', ')}`);
    }
    const added = old.enumValues === null ? [] : [...(now.enumValues ?? ['(any value)'])].filter((v) => !old.enumValues!.has(v));
    if (added.length > 0) add(false, `now also accepts ${added.join(', ')}`);
  } else {
    if (old.enumValues !== null) {
      const added = now.enumValues === null ? ['(any value)'] : [...now.enumValues].filter((v) => !old.enumValues!.has(v));
      if (added.length > 0) add(true, `may now answer ${added.join(', ')}, which clients of the old document do not know`);
    }
    const removed = now.enumValues === null ? [] : [...(old.enumValues ?? ['(any value)'])].filter((v) => !now.enumValues!.has(v));
    if (removed.length > 0) add(false, `no longer answers ${removed.join(', ')}`);
  }
  for (const key of BOUND_KEYS) {
    const [was, is] = [old.bounds.get(key), now.bounds.get(key)];
    if (was === is || !request) continue;
    // A request bound that appears, or moves so that it allows less, refuses what was accepted.
    const narrower = is !== undefined && (was === undefined || is > was !== LARGER_ALLOWS_MORE[key]);
    add(narrower, `${key} ${was ?? 'none'} became ${is ?? 'none'}`);
  }
}

function compareProperties(walk: SchemaWalk, location: string, old: Shape, now: Shape, seen: Set<string>): void {
  const add = (breaking: boolean, at: string, message: string): number => walk.changes.push({ breaking, location: at, message });
  const request = walk.direction === 'request';
  for (const [name, schema] of old.properties) {
    const at = `${location}.${name}`;
    if (!now.properties.has(name)) {
      add(true, at, request ? 'property removed: the service no longer accepts it' : 'response field removed');
      continue;
    }
    if (request && now.required.has(name) && !old.required.has(name)) add(true, at, 'property became required');
    if (!request && old.required.has(name) && !now.required.has(name)) add(true, at, 'response field no longer always present');
    compareWalk(walk, at, schema, now.properties.get(name), seen);
  }
  for (const name of now.properties.keys()) {
    if (old.properties.has(name)) continue;
    const newRequired = request && now.required.has(name);
    add(newRequired, `${location}.${name}`, newRequired ? 'new required property' : request ? 'new optional property' : 'new response field');
  }
}

/** Compares one pair of schemas and everything under them; `seen` stops recursive schemas. */
function compareWalk(walk: SchemaWalk, location: string, before: unknown, after: unknown, seen: Set<string>): void {
  const refs = `${(before as Json)?.$ref ?? ''} ${(after as Json)?.$ref ?? ''}`;
  if (refs !== ' ' && seen.has(refs)) return;
  const inner = refs === ' ' ? seen : new Set([...seen, refs]);
  const old = shapeOf(walk.before, before);
  const now = shapeOf(walk.after, after);
  compareTypes(walk, location, old, now);
  compareProperties(walk, location, old, now, inner);
  if (old.items !== null && now.items !== null) compareWalk(walk, `${location}[]`, old.items, now.items, inner);
}

/** Lists the changes between two schemas of one side of the wire, each located under `location`. */
export function compareSchemas(walk: SchemaWalk, location: string, before: unknown, after: unknown): void {
  const start = walk.changes.length;
  compareWalk(walk, '', before, after, new Set());
  for (const change of walk.changes.slice(start)) change.location = `${location} ${change.location}`.trimEnd();
}
