import qs from 'qs';
import { splitList } from '../text/lists.js';
import { parseBooleanWord } from '../text/booleans.js';
import type { RequestHandler } from 'express';
import { invalidParams } from '../core/errors.js';
import type { OperationInfo, SchemaObject } from '../openapi/document.js';
import { pathPattern } from './document-routes.js';

/**
 * Input forms the plugin's clients send that the OpenAPI validator does not accept as they are
 * (docs/contract.md §2): booleans as `1`/`0`/`TRUE`/`yes`/`off`, lists as `a=1,2`, `a=1 2`, `a[]=1&a[]=2` or a
 * JSON array, `order=DESC`. They are rewritten into the one form the document declares, before
 * validation, by parameter name. Which names are booleans, lists or case-insensitive is read from the
 * document at start-up, so the two cannot drift.
 */
export interface InputShapes {
  /** Query names that are booleans (or lists) wherever they appear: query names are used consistently. */
  queryBooleans: Set<string>;
  queryLists: Set<string>;
  /** Query names whose values are matched in any case (`x-case-insensitive` in the document): sent on in lower case. */
  queryLowercase: Set<string>;
  /** Body field shapes per operation (`POST /venues`), because one name may differ between resources. */
  bodies: BodyShape[];
}

/** The normalised fields of one operation's body. */
interface BodyShape {
  method: string;
  pattern: RegExp;
  booleans: Set<string>;
  /** Lists split as wp_parse_list splits them (commas and whitespace). */
  lists: Set<string>;
  /** Lists whose items may be names with spaces (`x-list-items: names`): split on commas only. */
  nameLists: Set<string>;
  /** Integer and number fields: a JSON boolean there is refused, never coerced to 1 or 0. */
  numbers: Set<string>;
  /**
   * References to records (`venue`, `organizer`: an id, or one of several other forms, `anyOf`): `true`
   * there is no id. The validator would coerce it to 1 (the integer form), so it is sent on as text.
   */
  references: Set<string>;
}

type Kind = 'boolean' | 'list' | 'nameList' | 'number' | 'reference' | 'other';

function kindOf(schema: SchemaObject | undefined): Kind {
  if (!schema) return 'other';
  // An id among other forms, none of them a boolean (`recurrence` takes `false`).
  if (schema.anyOf?.some((s) => s.type === 'integer') && !schema.anyOf.some((s) => s.type === 'boolean')) return 'reference';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'array') return schema['x-list-items'] === 'names' ? 'nameList' : 'list';
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  return 'other';
}

/** Reads, from the document, which names are booleans or lists (a query name used both ways is left alone). */
export function inputShapesOf(operations: OperationInfo[], namespaceRoot = ''): InputShapes {
  const query = new Map<string, Set<Kind>>();
  const queryLowercase = new Set<string>();
  for (const op of operations) {
    for (const p of op.parameters) {
      if (p.in !== 'query') continue;
      query.set(p.name, (query.get(p.name) ?? new Set<Kind>()).add(kindOf(p.schema)));
      if (p['x-case-insensitive'] === true) queryLowercase.add(p.name);
    }
  }
  const only = (kind: Kind) => new Set([...query].filter(([, kinds]) => kinds.size === 1 && kinds.has(kind)).map(([name]) => name));
  const bodies = operations
    .filter((op) => op.bodySchema?.properties)
    .map((op): BodyShape => {
      const fields = Object.entries(op.bodySchema?.properties ?? {});
      const named = (kind: Kind) => new Set(fields.filter(([, schema]) => kindOf(schema) === kind).map(([name]) => name));
      return {
        method: op.method,
        pattern: pathPattern(namespaceRoot, op.path),
        booleans: named('boolean'),
        lists: named('list'),
        nameLists: named('nameList'),
        numbers: named('number'),
        references: named('reference'),
      };
    });
  return { queryBooleans: only('boolean'), queryLists: only('list'), queryLowercase, bodies };
}

/** The spellings the plugin reads as booleans (PHP's FILTER_VALIDATE_BOOLEAN, `tribe_is_truthy`), in any case. */
/**
 * `1`, `TRUE`, `yes`, `On`, 1 → true; `0`, `False`, `no`, `OFF`, 0 → false; anything else (`""`,
 * `maybe`, 2) is left for the validator to refuse.
 */
export function normaliseBoolean(value: unknown): unknown {
  return parseBooleanWord(value) ?? value;
}

/**
 * `"1, 2"`, `"1 2"`, `"1,,2"` → `["1","2"]`; the strings of an array are split the same way; a lone
 * number becomes a one-item list. Anything else (objects) is left for the validator.
 */
export function normaliseList(value: unknown, names = false): unknown {
  if (typeof value === 'string') return splitList(value, names);
  if (Array.isArray(value)) return value.flatMap((item) => (typeof item === 'string' ? splitList(item, names) : [item]));
  if (typeof value === 'number') return [value];
  return value;
}

/** Whether a list holds a boolean, as an item or as an item's `id`. */
export function holdsBoolean(value: unknown): boolean {
  return Array.isArray(value) && value.some((item) => typeof item === 'boolean' || typeof (item as { id?: unknown } | null)?.id === 'boolean');
}

/**
 * `true` in a reference field (alone, as a list item or as `{id}`) becomes `"true"`, which the rules
 * refuse as they refuse any other word; `false` stays (the validator makes it 0, which unlinks).
 */
export function trueAsText(value: unknown): unknown {
  if (value === true) return 'true';
  if (Array.isArray(value)) return value.map(trueAsText);
  // `{id: true}` (a string or a number has no `id`; `null` unlinks).
  if ((value as { id?: unknown } | null)?.id === true) return { ...(value as object), id: 'true' };
  return value;
}

/**
 * Query values are strings or lists of strings. Bracket keys can build objects (`a[x]=1`) or lists of
 * objects; those become their values, as strings, so the validator sees a shape it can refuse.
 */
function flattenQueryValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'object' && item !== null ? JSON.stringify(item) : item));
  if (typeof value === 'object' && value !== null) return Object.values(value).map((item) => (typeof item === 'object' && item !== null ? JSON.stringify(item) : item));
  return value;
}

/**
 * Express's query parser, replaced: `qs` (bracket lists such as `a[]=1`) plus the normalisation above.
 * Query booleans stay strings (`'true'`/`'false'`) because the validator coerces query strings itself.
 */
export function queryParser(shapes: InputShapes): (query: string) => Record<string, unknown> {
  return (query) => {
    const parsed = qs.parse(query, { depth: 2, arrayLimit: 100, parameterLimit: 1000, allowDots: false }) as Record<string, unknown>;
    for (const [name, raw] of Object.entries(parsed)) {
      const value = flattenQueryValue(raw);
      if (shapes.queryLists.has(name)) {
        const list = normaliseList(value);
        // An empty list parameter (`include=`) stays visible as one empty item, so validation refuses it.
        parsed[name] = Array.isArray(list) && list.length === 0 ? [''] : list;
      } else if (shapes.queryBooleans.has(name)) {
        const flag = normaliseBoolean(value);
        parsed[name] = typeof flag === 'boolean' ? String(flag) : value;
      } else if (shapes.queryLowercase.has(name) && typeof value === 'string') {
        parsed[name] = value.toLowerCase();
      } else if (Array.isArray(value)) {
        // A repeated scalar (`page=1&page=2`): WordPress takes the last value.
        parsed[name] = value[value.length - 1];
      }
      // Anything else is a string, which stays as qs parsed it.
    }
    return parsed;
  };
}

/** Rewrites top-level body fields in place (bodies are plain objects, unlike Express 5's `req.query`). */
export function normaliseBody(shapes: InputShapes): RequestHandler {
  return (req, _res, next) => {
    const body = req.body as Record<string, unknown> | undefined;
    const shape = shapes.bodies.find((b) => b.method === req.method && b.pattern.test(req.path));
    const problems: Record<string, string> = {};
    if (shape && body && typeof body === 'object' && !Array.isArray(body)) {
      for (const [name, value] of Object.entries(body)) {
        if (shape.booleans.has(name)) body[name] = normaliseBoolean(value);
        else if (shape.lists.has(name)) body[name] = normaliseList(value);
        else if (shape.nameLists.has(name)) {
          body[name] = normaliseList(value, true);
          // The validator would coerce `true` to 1 (`tags: [true]` → tag 1): a boolean is no term (docs/contract.md §6).
          if (holdsBoolean(body[name])) problems[name] = `${name} must be IDs, slugs or names, not true or false.`;
        }
        // The validator would coerce `true` to 1 (`parent: true` → category 1); WordPress refuses it.
        else if (shape.numbers.has(name) && typeof value === 'boolean') body[name] = String(value);
        else if (shape.references.has(name)) body[name] = trueAsText(value);
      }
    }
    next(Object.keys(problems).length ? invalidParams(problems) : undefined);
  };
}

/**
 * The name of the first input that became a number that is not finite, if any. The validator
 * coerces `1e400` or `Infinity` to ±Infinity and accepts it as an integer, and JSON's `1e400`
 * parses to Infinity; no parameter of the API can take such a value, and the databases cannot
 * compare with it.
 */
export function nonFiniteInput(query: Record<string, unknown>, body: unknown): string | undefined {
  const holds = (value: unknown, depth: number): boolean => {
    if (typeof value === 'number') return !Number.isFinite(value);
    if (depth > 8 || typeof value !== 'object' || value === null) return false;
    return Object.values(value).some((item) => holds(item, depth + 1));
  };
  for (const [name, value] of Object.entries(query)) if (holds(value, 0)) return name;
  if (typeof body === 'object' && body !== null) for (const [name, value] of Object.entries(body)) if (holds(value, 0)) return name;
  return undefined;
}
