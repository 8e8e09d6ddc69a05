import type { SchemaObject } from '../../src/openapi/document.js';
import type { ApiOperation } from './operations.js';
import type { ApiRequest } from './world.js';
import { rawBody } from './world.js';

/**
 * Bugs in src/ that the fuzz test found, each with a skipped reproducing test in
 * known-bugs.test.ts. The fuzz and property tests leave out exactly the requests that trigger one
 * (and only those), so they keep guarding everything else; delete an entry once its bug is fixed.
 */

/** The deepest bracket nesting body-parser's urlencoded parser (qs) accepts before refusing the body. */
const FORM_DEPTH_LIMIT = 32;

/** The largest SQL OFFSET both engines accept (a signed 64-bit integer); per_page is clamped to 50. */
const LARGEST_SAFE_PAGE = Math.floor((2 ** 63 - 1) / 50);

/**
 * The known bug a request triggers, if any:
 * - BUG form-depth: a form body nested deeper than 32 bracket levels is refused by body-parser with
 *   an error the error middleware does not map, so it answers 500 instead of 400 (known-bugs.test.ts).
 * - BUG page-overflow: a `page` whose SQL OFFSET exceeds a 64-bit integer answers 500 instead of 404
 *   `*-archive-page-not-found` on every list (known-bugs.test.ts).
 * - BUG infinite-integer: an integer input (a query parameter, a list of ids, a body field that may
 *   be an integer) given as `1e400`, `-1e400` or `Infinity` passes validation as ±Infinity and reaches
 *   MySQL as a bare `Infinity` (500 "Unknown column") instead of 400 (known-bugs.test.ts).
 * - BUG far-date: a relative date phrase landing past the JavaScript date range (`now + 10000000
 *   years`) answers 500 instead of 400 in every date input (known-bugs.test.ts).
 */
export function knownBug(op: ApiOperation, req: ApiRequest): string | undefined {
  const raw = rawBody(req);
  if (raw?.contentType.startsWith('application/x-www-form-urlencoded') && formDepth(raw.text) > FORM_DEPTH_LIMIT) return 'form-depth';
  const page = Number(req.query.page);
  if (req.method === 'GET' && Number.isFinite(page) && page > LARGEST_SAFE_PAGE) return 'page-overflow';
  const integerQuery = op.queryParameters.filter((p) => takesInteger(p.schema)).map((p) => p.name);
  if (integerQuery.some((name) => listItems(req.query[name]).some(isInfinite))) return 'infinite-integer';
  const body = req.body && req.body.kind !== 'raw' ? ((req.body.value ?? {}) as Record<string, unknown>) : {};
  const integerBody = Object.entries(op.bodySchema?.properties ?? {}).filter(([, schema]) => takesInteger(schema)).map(([name]) => name);
  if (integerBody.some((name) => listItems(body[name]).some(isInfinite))) return 'infinite-integer';
  if ([...Object.values(req.query), ...Object.values(body)].some((value) => typeof value === 'string' && beyondDateRange(value))) return 'far-date';
  return undefined;
}

/** A phrase adding more years than JavaScript dates reach (about 275,000 years from 1970). */
function beyondDateRange(text: string): boolean {
  const years = /(\d+)\s*years?/i.exec(text);
  return years !== null && Number(years[1]) > 270_000;
}

/** Whether a schema takes an integer: itself, as a list item or as one of its alternatives. */
function takesInteger(schema: SchemaObject): boolean {
  return schema.type === 'integer' || (schema.items !== undefined && takesInteger(schema.items)) || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(takesInteger);
}

const isInfinite = (item: string): boolean => Math.abs(Number(item)) === Infinity;

/** The items of a list parameter as the service splits them (repeated keys, commas). */
function listItems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items = (Array.isArray(value) ? value : [value]).filter((item) => typeof item === 'string' || typeof item === 'number');
  return items.flatMap((item) => String(item).split(',')).map((item) => item.trim());
}

/** The deepest bracket nesting of any key of a form body (`a[b][c]=1` → 2). */
function formDepth(text: string): number {
  return Math.max(0, ...text.split('&').map((pair) => (safeDecode(pair.split('=')[0]).match(/\[/g) ?? []).length));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
