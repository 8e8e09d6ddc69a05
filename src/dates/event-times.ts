import { DateTime } from 'luxon';
import moment from 'moment-timezone';
import { UTC_ZONE, zoneOf } from './parse.js';
import { toStorage, toStorageUtc } from './storage.js';

/**
 * The zone abbreviation valid at an instant, DST-aware (`CST`/`CDT`), from the tz database as PHP
 * writes it (`JST`, `AEDT`, `+04` where the database has no letters): `Intl` does not expose those
 * abbreviations, moment-timezone ships the database with them. `UTC±N` zones are their own
 * abbreviation.
 */
export function timezoneAbbreviation(zoneName: string, utc: string): string {
  // The zone's table looked up directly (a moment object per call parsed the date again); the tz
  // database has none for `UTC+5`, which is its own abbreviation.
  const zone = moment.tz.zone(zoneName);
  const at = Date.parse(`${utc.replace(' ', 'T')}Z`);
  return zone && !Number.isNaN(at) ? zone.abbr(at) : zoneName;
}

/**
 * Start and end of an event, local wall time in its zone and UTC, and what records show of them
 * beyond those values (`TimeForms`), made with them so that a read formats no date.
 */
export interface EventTimes extends TimeForms {
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
}

/**
 * The forms of an event's times that records and pages show, derived from the times and the zone when
 * they are written and stored with them (`events.timezone_abbr`, `start_iso`, `end_iso`,
 * `start_day`, `end_day`; docs/architecture.md "Rendered texts"): the zone's abbreviation at the
 * start (`timezone_abbr`), the start and end with the zone's offset (the `json_ld`'s `startDate` and
 * `endDate`), and the days of the start and end as pages write them (`Sunday 10 January 2027`).
 */
export interface TimeForms {
  zoneAbbr: string;
  startIso: string;
  endIso: string;
  startDay: string;
  endDay: string;
}

/** The one rule for `TimeForms`: the times in `zoneName`. Pure arithmetic on the stored texts, about a microsecond (a series writes a thousand at once). */
export function timeFormsOf(times: { startLocal: string; endLocal: string; startUtc: string; endUtc: string }, zoneName: string): TimeForms {
  return {
    zoneAbbr: timezoneAbbreviation(zoneName, times.startUtc),
    startIso: isoWithOffset(times.startLocal, times.startUtc, zoneName),
    endIso: isoWithOffset(times.endLocal, times.endUtc, zoneName),
    startDay: dayText(times.startLocal),
    endDay: dayText(times.endLocal),
  };
}

const msOf = (stored: string) => Date.parse(`${stored.replace(' ', 'T')}Z`);

/**
 * ISO 8601 of a stored local time with the offset its stored UTC time gives (`2030-05-01T10:00:00-05:00`),
 * as luxon's `toISO` writes it: `Z` for a fixed zone at offset 0 (`UTC`, or a zone the tz database does not
 * know, read as UTC), `+00:00` for a zone that is only at 0 for now (`Europe/London` in winter).
 */
export function isoWithOffset(local: string, utc: string, zoneName: string): string {
  const minutes = Math.round((msOf(local) - msOf(utc)) / 60_000);
  const zone = zoneOf(zoneName) ?? UTC_ZONE;
  if (minutes === 0 && zone.isUniversal) return `${local.replace(' ', 'T')}Z`;
  const sign = minutes < 0 ? '-' : '+';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local.replace(' ', 'T')}${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The day of a local time as a page writes it, in British English: `Sunday 10 January 2027`. */
export function dayText(local: string): string {
  const [year, month, day] = local.slice(0, 10).split('-').map(Number);
  // An event's dates lie within a century of today (MAX_YEARS_FROM_TODAY), never in the years 0-99 Date.UTC reads as 19xx.
  const weekday = new Date(Date.UTC(year!, month! - 1, day!)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${day} ${MONTHS[month! - 1]} ${year}`;
}

/**
 * Forms made on a read because the row had none stored (a row written straight into the database,
 * past the repositories). Counted, so that a test can show that reads make none
 * (test/integration/time-forms.test.ts).
 */
export const timeFormsOnRead = { count: 0 };

/** An event's stored forms, or, when a row has any of them NULL (see `timeFormsOnRead`), those made now. */
export function storedTimeForms(
  stored: Record<keyof TimeForms, unknown>,
  times: { startLocal: string; endLocal: string; startUtc: string; endUtc: string },
  zoneName: string,
): TimeForms {
  const { zoneAbbr, startIso, endIso, startDay, endDay } = stored;
  if (typeof zoneAbbr === 'string' && typeof startIso === 'string' && typeof endIso === 'string' && typeof startDay === 'string' && typeof endDay === 'string') {
    return { zoneAbbr, startIso, endIso, startDay, endDay };
  }
  timeFormsOnRead.count++;
  return timeFormsOf(times, zoneName);
}

/**
 * All-day events run from the start of their first day to the end of their last (docs/plugin-behaviour.md
 * §5.3, with the default day cutoff 00:00): supplied times are discarded.
 */
export function applyAllDay(start: DateTime, end: DateTime): [DateTime, DateTime] {
  return [start.startOf('day'), end.endOf('day').startOf('second')];
}

/** The times of `start` and `end`, both in the event's zone, named `zoneName`. */
export function timesOf(start: DateTime, end: DateTime, zoneName: string): EventTimes {
  const times = { startLocal: toStorage(start), endLocal: toStorage(end), startUtc: toStorageUtc(start), endUtc: toStorageUtc(end) };
  return { ...times, ...timeFormsOf(times, zoneName) };
}

/**
 * How far from today an event's start and end may lie (docs/limits.md "Time-zone blocks in iCalendar
 * feeds"): the years an iCalendar feed describes grow with the events' span. WordPress-era clients
 * schedule events for the coming years and archive those of past decades; a century either way
 * leaves them all their room.
 */
export const MAX_YEARS_FROM_TODAY = 100;

/** Undefined when `moment` lies within MAX_YEARS_FROM_TODAY of `now`, else the reason it does not, naming `field`. */
export function outsideEventYears(field: string, moment: DateTime, now: Date): string | undefined {
  const today = DateTime.fromJSDate(now, { zone: 'utc' });
  const earliest = today.minus({ years: MAX_YEARS_FROM_TODAY });
  const latest = today.plus({ years: MAX_YEARS_FROM_TODAY });
  if (moment >= earliest && moment <= latest) return undefined;
  return `${field} must lie within ${MAX_YEARS_FROM_TODAY} years of today (from ${earliest.toISODate()} to ${latest.toISODate()}).`;
}
