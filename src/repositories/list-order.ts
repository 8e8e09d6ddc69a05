import type { Knex } from 'knex';
import { parseInstantUtc } from '../dates/instant.js';

/**
 * `orderby` and `order` of the event, venue and organizer lists (docs/contract.md §8), as the
 * repositories take them. `event_date` (events only) is the start, then the publication date;
 * `date` the publication date; `modified` the last modification; `title` the title, compared
 * case-insensitively on both engines; `id` the id. Every order ends with the id in the same direction,
 * so equal keys keep one order and consecutive pages never repeat or skip a record.
 */
export type Direction = 'asc' | 'desc';
export type EventOrderBy = 'event_date' | 'date' | 'modified' | 'title' | 'id';
export type LinkedOrderBy = Exclude<EventOrderBy, 'event_date'>;

export interface ListOrder<By extends string> {
  by: By;
  direction: Direction;
}

/**
 * The order a list asked for: `orderby` or the list's own (`fallback`), and `order` or, as WordPress
 * does, ascending for `event_date` and descending for every other key a client names. Without
 * `orderby` the list's own order keeps its own direction (`fallback.direction`).
 */
export function listOrder<By extends string>(orderby: By | undefined, order: Direction | undefined, fallback: ListOrder<By>): ListOrder<By> {
  if (orderby === undefined) return { by: fallback.by, direction: order ?? fallback.direction };
  return { by: orderby, direction: order ?? (orderby === 'event_date' ? 'asc' : 'desc') };
}

/** `modified_after` (inclusive) and `modified_before` (exclusive) on a UTC column, as storage strings. */
export interface ModifiedRange {
  after?: string;
  before?: string;
}

export function whereModified(query: Knex.QueryBuilder, column: string, range: ModifiedRange): void {
  if (range.after !== undefined) query.where(column, '>=', range.after);
  if (range.before !== undefined) query.where(column, '<', range.before);
}

/**
 * `modified_after` / `modified_before` of a list as UTC storage strings, with a problem recorded
 * (for a 400 `rest_invalid_param`) for each value that is not a date-time with an offset.
 */
export function modifiedRange(query: { modified_after?: string; modified_before?: string }, problems: Record<string, string>): ModifiedRange {
  const range: ModifiedRange = {};
  for (const [name, key] of [
    ['modified_after', 'after'],
    ['modified_before', 'before'],
  ] as const) {
    const value = query[name];
    if (value === undefined) continue;
    const instant = parseInstantUtc(value);
    if (instant === undefined) problems[name] = `${name} must be an RFC 3339 date-time with an offset or Z, such as 2026-01-01T09:30:00Z.`;
    else range[key] = instant;
  }
  return range;
}
