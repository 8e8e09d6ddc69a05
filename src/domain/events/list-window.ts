import { DateTime, type Zone } from 'luxon';
import { parseDateInput, UTC_ZONE, zoneOf } from '../../dates/parse.js';
import { toStorage } from '../../dates/storage.js';
import type { DateBounds } from '../../repositories/event-lists.js';

/** The six date parameters of `GET /events`, in the order the plugin writes them into `rest_url`. */
export const DATE_PARAMETERS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
type DateParameter = (typeof DATE_PARAMETERS)[number];

const BOUND_OF: Record<DateParameter, keyof DateBounds> = {
  start_date: 'startFrom',
  end_date: 'endTo',
  starts_before: 'startsBefore',
  starts_after: 'startsAfter',
  ends_before: 'endsBefore',
  ends_after: 'endsAfter',
};

/**
 * The default window (docs/plugin-behaviour.md §5.5), computed per request: from 00:00 of the site-local
 * date of "yesterday 23:59 UTC" to 23:59:59 of the UTC date 24 months from now.
 */
export function defaultWindow(now: Date, siteZone: Zone): { start_date: string; end_date: string } {
  const utcNow = DateTime.fromJSDate(now).toUTC();
  const beforeToday = utcNow.startOf('day').minus({ minutes: 1 }).setZone(siteZone);
  return {
    start_date: `${beforeToday.toISODate()} 00:00:00`,
    // PHP's `+24 months` keeps the day number and rolls over (29 February → 1 March); luxon would clamp.
    end_date: `${new Date(Date.UTC(utcNow.year + 2, utcNow.month - 1, utcNow.day)).toISOString().slice(0, 10)} 23:59:59`,
  };
}

/**
 * The list's date bounds, as site-local wall times compared with each event's local start and end.
 * Inclusive mode (default): `start_date` → 00:00:00 of its date, the five others → 23:59:59 of
 * theirs. `strict_dates`: the value is read as UTC (when it has no offset), converted to the site
 * zone and used with its time. Without any of the six, the default window applies, unless the list
 * asks for records by modification time (`byModified`: a sync must see past events, docs/contract.md §8);
 * with `include`, no date bound at all (docs/contract.md §6). Returns the bounds and the values to write
 * into paging URLs, or the names of the unparseable parameters.
 */
export function listBounds(
  query: Partial<Record<DateParameter, string>>,
  options: { strict: boolean; include: boolean; byModified?: boolean; now: Date; siteTimezone: string },
): { bounds: DateBounds; urlValues: Partial<Record<DateParameter, string>>; invalid: DateParameter[] } {
  const siteZone = zoneOf(options.siteTimezone) ?? UTC_ZONE;
  const invalid: DateParameter[] = [];
  const urlValues: Partial<Record<DateParameter, string>> = {};
  for (const name of DATE_PARAMETERS) {
    const value = query[name];
    if (value === undefined) continue;
    const moment = options.strict ? parseDateInput(value, UTC_ZONE, options.now)?.setZone(siteZone) : parseDateInput(value, siteZone, options.now);
    if (!moment) {
      invalid.push(name);
      continue;
    }
    urlValues[name] = options.strict ? toStorage(moment) : `${moment.toISODate()} ${name === 'start_date' ? '00:00:00' : '23:59:59'}`;
  }
  if (invalid.length || options.include) return { bounds: {}, urlValues: options.include ? {} : urlValues, invalid };
  const relative = ['starts_before', 'starts_after', 'ends_before', 'ends_after'].some((name) => query[name as DateParameter] !== undefined);
  const windowless = options.byModified === true && DATE_PARAMETERS.every((name) => query[name] === undefined);
  if (!relative && !windowless) {
    const defaults = defaultWindow(options.now, siteZone);
    urlValues.start_date ??= defaults.start_date;
    urlValues.end_date ??= defaults.end_date;
  }
  const bounds: DateBounds = {};
  for (const name of DATE_PARAMETERS) if (urlValues[name] !== undefined) bounds[BOUND_OF[name]] = urlValues[name];
  return { bounds, urlValues, invalid };
}

/**
 * WordPress's keyword search: phrases in double quotes, other words split on spaces, commas and
 * plus signs; a leading `-` excludes a word.
 */
export function searchTerms(search: string): { include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  for (const match of search.matchAll(/"([^"]*)"?|[^\s",+]+/g)) {
    const term = (match[1] ?? match[0]).trim();
    if (term === '') continue;
    if (term.startsWith('-') && term.length > 1 && match[1] === undefined) exclude.push(term.slice(1));
    else include.push(term);
  }
  return { include, exclude };
}
