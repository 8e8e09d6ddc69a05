import { DateTime } from 'luxon';
import moment from 'moment-timezone';
import { UTC_ZONE, zoneOf } from './parse.js';
import { fromStorage, toStorage, toStorageUtc } from './storage.js';

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

/** ISO 8601 with the event's offset, for JSON-LD (`2030-05-01T10:00:00-05:00`). */
export function isoInZone(local: string, zoneName: string): string {
  // A stored time is always a valid date, so toISO never gives null.
  return fromStorage(local, zoneOf(zoneName) ?? UTC_ZONE).toISO({ suppressMilliseconds: true })!;
}

/** Start and end of an event, local wall time in its zone and UTC. */
export interface EventTimes {
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
}

/**
 * All-day events run from the start of their first day to the end of their last (docs/plugin-behaviour.md
 * §5.3, with the default day cutoff 00:00): supplied times are discarded.
 */
export function applyAllDay(start: DateTime, end: DateTime): [DateTime, DateTime] {
  return [start.startOf('day'), end.endOf('day').startOf('second')];
}

export function timesOf(start: DateTime, end: DateTime): EventTimes {
  return { startLocal: toStorage(start), endLocal: toStorage(end), startUtc: toStorageUtc(start), endUtc: toStorageUtc(end) };
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
