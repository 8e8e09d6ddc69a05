import { DateTime, type Zone } from 'luxon';

/** The storage form of every date: 'YYYY-MM-DD HH:MM:SS'. */
export const STORAGE_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/**
 * Every date the service stores is a 'YYYY-MM-DD HH:MM:SS' string: sortable, comparable as text on
 * both engines, and identical on read. These helpers are the one place such strings are made.
 */
export function formatUtc(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Now, in UTC, to the second. */
export function utcNow(): string {
  return formatUtc(new Date());
}

/** 'YYYY-MM-DD HH:MM:SS' of the moment's wall time in its zone. */
export function toStorage(moment: DateTime): string {
  return moment.toFormat(STORAGE_FORMAT);
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC. */
export function toStorageUtc(moment: DateTime): string {
  return moment.toUTC().toFormat(STORAGE_FORMAT);
}

/** A stored 'YYYY-MM-DD HH:MM:SS' read as wall time in `zone`. */
export function fromStorage(value: string, zone: Zone): DateTime {
  // The fields taken apart by hand: luxon's format parser builds its matcher on every call, and
  // every event record reads several stored dates.
  const parts = STORED.exec(value);
  if (!parts) return DateTime.invalid('unparsable', `the input "${value}" can't be parsed as format ${STORAGE_FORMAT}`);
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number);
  return DateTime.fromObject({ year, month, day, hour, minute, second }, { zone });
}

const STORED = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** `start_date_details` & co.: the stored string split into zero-padded strings (docs/plugin-behaviour.md §1.6). */
export function dateDetails(value: string): { year: string; month: string; day: string; hour: string; minutes: string; seconds: string } {
  const [date, time = '00:00:00'] = value.split(' ');
  const [year, month, day] = date.split('-');
  const [hour, minutes, seconds] = time.split(':');
  return { year, month, day, hour, minutes, seconds };
}
