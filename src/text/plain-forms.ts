import { htmlToText } from './html.js';
import { formatCost } from './cost-text.js';

/**
 * The plain forms of stored plain-text fields (titles, names, address lines, phone, e-mail, the
 * formatted cost), computed when written and stored beside them in `{field}_plain` columns
 * (docs/architecture.md "Rendered texts"): a page, an iCalendar feed or a feed's name shows them as
 * stored and decodes nothing. Such values are kept as WordPress keeps them, with character references
 * (`Rock &amp; Roll`): their plain form is read as HTML text, so a reader sees `Rock & Roll`.
 */

/** The one rule: the text of a stored value (references decoded, any tag dropped), runs of white space one space, ends trimmed. */
export function plainOf(value: string): string {
  return value ? htmlToText(value).replace(/\s+/g, ' ').trim() : '';
}

/** The fields with a stored plain form, by table (`cost` of `events` is `plainCostOf`'s). */
export const PLAIN_FIELDS = {
  posts: ['title'],
  terms: ['name'],
  venues: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'],
  organizers: ['phone', 'email'],
} as const;

export type PlainTable = keyof typeof PLAIN_FIELDS;

/** The plain columns of the fields among some columns a write stores in `table`: what to store with them. */
export function plainColumnsOf(table: PlainTable, written: object): Record<string, string> {
  const columns = written as Record<string, unknown>;
  const plain: Record<string, string> = {};
  for (const field of PLAIN_FIELDS[table]) {
    const value = columns[field];
    if (typeof value === 'string') plain[`${field}_plain`] = plainOf(value);
  }
  return plain;
}

/** The plain form of the formatted cost (`formatCost` of the stored cost columns): `events.cost_plain`. */
export function plainCostOf(raw: string[], values: string[], symbol: string, position: string): string {
  return plainOf(formatCost(raw, values, symbol, position));
}

/**
 * Plain forms made on a read because none was stored (a row written straight into the database,
 * past the repositories). Counted, so that a test can show that reads make none
 * (test/integration/plain-texts.test.ts).
 */
export const plainOnRead = { count: 0 };

/** A field's stored plain form, or, when the row has none (NULL, see `plainOnRead`), the one made now of `value`. */
export function storedPlain(stored: string | null, value: string): string {
  if (stored !== null || value === '') return stored ?? '';
  plainOnRead.count++;
  return plainOf(value);
}
