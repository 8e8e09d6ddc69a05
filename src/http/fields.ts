import type { RequestHandler } from 'express';
import { resolveRef, type ApiDocument, type SchemaObject } from '../openapi/document.js';

/**
 * WordPress's global `_fields` parameter (`rest_filter_response_fields`): a GET answer keeps only the
 * named keys. Names are separated by commas or whitespace (as `wp_parse_list` splits them); a dot
 * names a key inside an object (`venue.venue`), and naming the object itself keeps it whole. Key
 * order stays the record's. Names that match nothing are simply absent; errors are never filtered.
 *
 * Differences from WordPress, where its literal behaviour would be useless to our clients: on the
 * list envelopes (`{events: [...], rest_url, total, ...}`) the names apply to each record of the
 * list, and the envelope's own keys stay, as on WordPress's own collections, whose answer is the
 * list itself; and a nested name applies to each object of a nested list too (`organizer.organizer`
 * keeps each organizer's name, where PHP would empty the list).
 *
 * Applied in one place: `res.json` is wrapped before the OpenAPI validator wraps it, so in tests the
 * validator checks the whole answer and the selection is taken from it afterwards.
 */

/** A parsed `_fields`: `true` keeps the key whole, a nested selection keeps only those keys below it. */
export type FieldSelection = Map<string, true | FieldSelection>;

/** `_fields` as sent (a string, or a list once the query parser has split it) → a selection, or none. */
export function parseFields(value: unknown): FieldSelection | undefined {
  const names = (Array.isArray(value) ? value : [value]).flatMap((item) => (typeof item === 'string' ? item.split(/[\s,]+/) : [])).filter((name) => name !== '');
  if (names.length === 0) return undefined;
  const selection: FieldSelection = new Map();
  for (const name of names) {
    const parts = name.split('.');
    const last = parts.pop()!;
    let at: FieldSelection = selection;
    let covered = false;
    for (const part of parts) {
      let below: true | FieldSelection | undefined = at.get(part);
      // The parent is already kept whole: a narrower name below it changes nothing.
      if (below === true) {
        covered = true;
        break;
      }
      if (!below) at.set(part, (below = new Map()));
      at = below;
    }
    if (!covered) at.set(last, true);
  }
  return selection;
}

/** The value with only the selected keys (a Map, so no name can reach `__proto__`). */
export function selectFields(value: unknown, selection: FieldSelection): unknown {
  if (Array.isArray(value)) return value.map((item) => selectFields(item, selection));
  // A scalar under a nested name (`title.rendered`) stays whole, as in WordPress.
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const wanted = selection.get(key);
    if (wanted === undefined) continue;
    out[key] = wanted === true ? item : selectFields(item, wanted);
  }
  return out;
}

/**
 * The key holding the records of a list answer, per GET operation: the array property of a 200
 * schema that also has `total_pages` (`events` for `listEvents`).
 */
export function listKeys(doc: ApiDocument): Map<string, string> {
  const keys = new Map<string, string>();
  for (const pathItem of Object.values(doc.paths)) {
    const op = pathItem.get as { operationId: string; responses: Record<string, unknown> } | undefined;
    if (!op?.responses['200']) continue;
    const response = resolveRef<{ content?: Record<string, { schema: SchemaObject }> }>(doc, op.responses['200'] as never);
    const schema = response.content?.['application/json'] ? resolveRef<SchemaObject>(doc, response.content['application/json'].schema) : undefined;
    const properties = schema?.properties ?? {};
    const arrays = Object.entries(properties).filter(([, property]) => resolveRef<SchemaObject>(doc, property).type === 'array');
    if ('total_pages' in properties && arrays.length === 1) keys.set(op.operationId, arrays[0][0]);
  }
  return keys;
}

/** The answer with `_fields` applied: to each record of a list (the envelope stays), or to the record. */
export function applyFields(body: unknown, selection: FieldSelection, listKey: string | undefined): unknown {
  const records = listKey !== undefined && body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[listKey] : undefined;
  if (Array.isArray(records)) return { ...(body as Record<string, unknown>), [listKey!]: records.map((record) => selectFields(record, selection)) };
  return selectFields(body, selection);
}

/**
 * Applies `_fields` to successful GET answers sent with `res.json`. Mount it before the OpenAPI
 * validator (see above); `res.locals.fields` tells the dispatcher that this answer must go through
 * `res.json`.
 */
export function responseFields(doc: ApiDocument): RequestHandler {
  const lists = listKeys(doc);
  return (req, res, next) => {
    // Without a query string there is no `_fields` (and Express parses `req.query` on every read of it).
    if (req.method !== 'GET' || !req.url.includes('?')) return next();
    const selection = parseFields((req.query as Record<string, unknown>)._fields);
    if (!selection) return next();
    res.locals.fields = selection;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      // Errors, and the JSON-LD feed (its schema.org keys are not a record's fields), are sent whole.
      if (res.statusCode >= 300 || String(res.get('Content-Type') ?? '').startsWith('application/ld+json')) return json(body);
      const operationId = (req as unknown as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
      return json(applyFields(body, selection, operationId === undefined ? undefined : lists.get(operationId)));
    };
    next();
  };
}
