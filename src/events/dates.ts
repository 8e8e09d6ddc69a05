import { DateTime, type Zone } from 'luxon';
import moment from 'moment-timezone';
import { fromStorage, parseDateInput, toStorage, toStorageUtc, zoneOf } from '../dates/parse.js';

/**
 * The zone abbreviation valid at an instant, DST-aware (`CST`/`CDT`), from the tz database as PHP
 * writes it (`JST`, `AEDT`, `+04` where the database has no letters): `Intl` does not expose those
 * abbreviations, moment-timezone ships the database with them. `UTC±N` zones are their own
 * abbreviation.
 */
export function timezoneAbbreviation(zoneName: string, utc: string): string {
  if (/^UTC[+-]/.test(zoneName)) return zoneName;
  const instant = moment.tz(`${utc.replace(' ', 'T')}Z`, zoneName);
  return instant.isValid() ? instant.zoneAbbr() : zoneName;
}

/** ISO 8601 with the event's offset, for JSON-LD (`2030-05-01T10:00:00-05:00`). */
export function isoInZone(local: string, zoneName: string): string {
  return fromStorage(local, zoneOf(zoneName) ?? zoneOf('UTC')!).toISO({ suppressMilliseconds: true }) ?? '';
}

/** Start and end of an event, local wall time in its zone and UTC. */
export interface EventTimes {
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
}

/**
 * All-day events run from the start of their first day to the end of their last (plugin-behaviour
 * §5.3, with the default day cutoff 00:00): supplied times are discarded.
 */
export function applyAllDay(start: DateTime, end: DateTime): [DateTime, DateTime] {
  return [start.startOf('day'), end.endOf('day').startOf('second')];
}

export function timesOf(start: DateTime, end: DateTime): EventTimes {
  return { startLocal: toStorage(start), endLocal: toStorage(end), startUtc: toStorageUtc(start), endUtc: toStorageUtc(end) };
}

/** Parses a start or end input in the event zone. */
export function parseEventDate(input: unknown, zone: Zone, now: Date): DateTime | undefined {
  return parseDateInput(input, zone, now);
}

/** `start_date_details` & co.: the stored string split into zero-padded strings (§1.6). */
export function dateDetails(value: string): { year: string; month: string; day: string; hour: string; minutes: string; seconds: string } {
  const [date, time = '00:00:00'] = value.split(' ');
  const [year, month, day] = date.split('-');
  const [hour, minutes, seconds] = time.split(':');
  return { year, month, day, hour, minutes, seconds };
}
