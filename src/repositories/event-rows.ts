import { POST_COLUMNS, toPostRow, type PostRow } from './posts.js';
import { TEXT_LIMITS, boundedList, boundedText } from '../text/limits.js';
import { storedTimeForms, type EventTimes, type TimeForms } from '../dates/event-times.js';

/**
 * What an event row holds once read, and how the columns of `posts`, `events` and `event_series` a
 * statement reads become one (`EventRepository`, repositories/events.ts).
 */

/** An event: the shared post columns, its times, plus its own. */
export interface EventRow extends PostRow, EventTimes {
  timezone: string;
  allDay: boolean;
  costRaw: string[];
  costValues: string[];
  /** The formatted cost's plain form, stored when written (text/plain-forms.ts); null for a row written past the repositories. */
  costPlain: string | null;
  currencySymbol: string;
  currencyPosition: string;
  currencyCode: string;
  website: string;
  showMap: boolean;
  showMapLink: boolean;
  hideFromListings: boolean;
  sticky: boolean;
  featured: boolean;
  postParent: number | null;
  /** The series' first event (itself for the first event), or null for a single event (docs/contract.md §14). */
  seriesId: number | null;
  /** The series' rules (RFC 5545 content lines), or null for a single event. */
  recurrence: string[] | null;
  /** The local start the rules give this occurrence (its RECURRENCE-ID). */
  recurrenceStart: string | null;
  /** Why the rolling horizon could not extend the event's series (docs/contract.md §14), or null. */
  horizonError: string | null;
  /** Edited on its own: later edits of the series leave it alone. */
  exception: boolean;
  /** The subscription that manages it and its key at the source (docs/importing.md "Subscribing to a calendar"), or null. */
  managedBy: { subscription: number; source_id: string } | null;
}

/** Columns of `events` as written. */
export type EventColumns = Partial<{
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  /** The times' forms (dates/event-times.ts `TimeForms`), written with the times by `timeColumnsOf`. */
  timezone_abbr: string;
  start_iso: string;
  end_iso: string;
  start_day: string;
  end_day: string;
  timezone: string;
  all_day: boolean;
  cost_raw: string;
  cost_values: string;
  cost_min: number | null;
  cost_max: number | null;
  cost_plain: string;
  currency_symbol: string;
  currency_position: string;
  currency_code: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
}>;

/** The column of each of an event's time forms (dates/event-times.ts `TimeForms`). */
export const TIME_FORM_COLUMNS: Record<keyof TimeForms, string> = {
  zoneAbbr: 'timezone_abbr',
  startIso: 'start_iso',
  endIso: 'end_iso',
  startDay: 'start_day',
  endDay: 'end_day',
};

const EVENT_COLUMNS = [
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  ...Object.values(TIME_FORM_COLUMNS),
  'timezone',
  'all_day',
  'cost_raw',
  'cost_values',
  'cost_plain',
  'currency_symbol',
  'currency_position',
  'currency_code',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'post_parent',
  'series_id',
  'recurrence_start',
  'exception',
  'managed_subscription',
  'managed_source_id',
];

/** The `events` columns of an event's times, always written together: the times and their forms. */
export function timeColumnsOf(times: EventTimes): Record<string, string> {
  const columns: Record<string, string> = { start_local: times.startLocal, end_local: times.endLocal, start_utc: times.startUtc, end_utc: times.endUtc };
  for (const [form, column] of Object.entries(TIME_FORM_COLUMNS)) columns[column] = times[form as keyof TimeForms];
  return columns;
}

/** Every column `timeColumnsOf` writes: what a series never copies from one event to another (each has its own times). */
export const TIME_COLUMNS: ReadonlySet<string> = new Set(['start_local', 'end_local', 'start_utc', 'end_utc', ...Object.values(TIME_FORM_COLUMNS)]);

/** The forms of an event's times a row holds (NULL where it was written past the repositories). */
export function timeFormsIn(row: Record<string, unknown>, prefix = ''): Record<keyof TimeForms, unknown> {
  return Object.fromEntries(Object.entries(TIME_FORM_COLUMNS).map(([form, column]) => [form, row[`${prefix}${column}`]])) as Record<keyof TimeForms, unknown>;
}

/** The columns a statement reads for `toEventRow`: `posts as p`, `events as x`, `event_series as s`. */
export const EVENT_SELECT = [...POST_COLUMNS.map((c) => `p.${c}`), ...EVENT_COLUMNS.map((c) => `x.${c}`), 's.rules as series_rules', 's.horizon_error as series_horizon_error'];

function jsonList(value: unknown): string[] {
  const parsed = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** An event row as the statements of EVENT_SELECT return it. */
export function toEventRow(row: Record<string, unknown>): EventRow {
  const flag = (name: string) => Boolean(Number(row[name]));
  // The post's fields first, then the event's (the same keys in the same order as a spread), added
  // with Object.assign: on Node 20 the spread of the post's object followed by these 25 keys cost
  // 0.15 ms a row, the assignment 5 µs.
  const times = { startLocal: String(row.start_local), endLocal: String(row.end_local), startUtc: String(row.start_utc), endUtc: String(row.end_utc) };
  const timezone = String(row.timezone);
  return Object.assign(toPostRow(row), {
    ...times,
    ...storedTimeForms(timeFormsIn(row), times, timezone),
    timezone,
    allDay: flag('all_day'),
    // Within the limits whatever was stored (text/limits.ts).
    costRaw: boundedList(jsonList(row.cost_raw), TEXT_LIMITS.cost),
    costValues: boundedList(jsonList(row.cost_values), TEXT_LIMITS.cost),
    costPlain: row.cost_plain === null || row.cost_plain === undefined ? null : String(row.cost_plain),
    currencySymbol: String(row.currency_symbol),
    currencyPosition: String(row.currency_position),
    currencyCode: String(row.currency_code),
    website: boundedText(String(row.website), TEXT_LIMITS.url),
    showMap: flag('show_map'),
    showMapLink: flag('show_map_link'),
    hideFromListings: flag('hide_from_listings'),
    sticky: flag('sticky'),
    featured: flag('featured'),
    postParent: row.post_parent === null || row.post_parent === undefined ? null : Number(row.post_parent),
    seriesId: row.series_id === null || row.series_id === undefined ? null : Number(row.series_id),
    recurrence:
      row.series_id === null || row.series_id === undefined || typeof row.series_rules !== 'string' ? null : boundedList(jsonList(row.series_rules), TEXT_LIMITS.recurrence),
    recurrenceStart: row.recurrence_start === null || row.recurrence_start === undefined ? null : String(row.recurrence_start),
    horizonError: typeof row.series_horizon_error === 'string' ? row.series_horizon_error : null,
    exception: flag('exception'),
    managedBy:
      row.managed_subscription === null || row.managed_subscription === undefined
        ? null
        : { subscription: Number(row.managed_subscription), source_id: String(row.managed_source_id ?? '') },
  });
}
