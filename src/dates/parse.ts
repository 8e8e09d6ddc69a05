import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { strtotime } from 'locutus/php/datetime/strtotime';

/*
 * PHP's strtotime (locutus's faithful port) computes in the process's local time zone. The service
 * runs in UTC, so that "local" arithmetic is plain wall-clock arithmetic, which is what the zone
 * handling below relies on. Node applies a change of TZ immediately.
 */
process.env.TZ = 'UTC';

/** The storage form of every date: 'YYYY-MM-DD HH:MM:SS'. */
export const STORAGE_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/** `UTC`, `UTC+5`, `UTC-3.5` (WordPress offsets) or an IANA name → a luxon zone; undefined if unknown. */
export function zoneOf(name: string): Zone | undefined {
  const offset = /^UTC(?:([+-])(\d{1,2})(?:\.(\d+))?)?$/.exec(name);
  if (offset) {
    if (!offset[1]) return FixedOffsetZone.utcInstance;
    const hours = Number(offset[2]) + Number(`0.${offset[3] ?? '0'}`);
    if (hours > 14) return undefined;
    return FixedOffsetZone.instance((offset[1] === '-' ? -1 : 1) * Math.round(hours * 60));
  }
  const zone = IANAZone.create(name);
  return zone.isValid ? zone : undefined;
}

/** An explicit offset or `Z` at the end (`…T10:00:00+02:00`, `…10:00 Z`, `… GMT`): the text names an instant. */
const EXPLICIT_OFFSET = /(?:\d)(?:\s*(?:Z|UTC|GMT)|\s*[+-]\d{2}:?\d{2})$/i;
const TIMESTAMP = /^@?-?\d+(\.\d+)?$/;

/**
 * Parses a date input of the forms contract §2 accepts: `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, ISO 8601
 * with or without an offset, a UNIX timestamp (number, numeric string or `@N`), and the relative
 * phrases of PHP's strtotime (`now`, `tomorrow 9am`, `+5 days 11am`, `next wednesday 4pm`...).
 *
 * Wall-clock text is read in `zone`, relative phrases relative to now in `zone`. Text that carries an
 * offset, and timestamps, name an instant, which is converted into `zone` (the plugin keeps their
 * wall time and mislabels it). Returns the moment in `zone`, or undefined when the input is not a
 * date (or falls outside years 1000-9999).
 */
/** JavaScript dates reach ±8.64e15 ms from 1970. */
const MAX_DATE_SECONDS = 8.64e12;

export function parseDateInput(input: unknown, zone: Zone, now: Date): DateTime | undefined {
  let result: DateTime | undefined;
  if (typeof input === 'number' || (typeof input === 'string' && TIMESTAMP.test(input.trim()))) {
    const seconds = Number(String(input).trim().replace(/^@/, ''));
    result = Number.isFinite(seconds) ? DateTime.fromMillis(Math.round(seconds * 1000), { zone }) : undefined;
  } else if (typeof input === 'string' && input.trim() !== '' && input.length <= 100) {
    const text = input.trim();
    if (EXPLICIT_OFFSET.test(text)) {
      const iso = DateTime.fromISO(text.replace(' ', 'T'), { setZone: true });
      const seconds = iso.isValid ? iso.toSeconds() : strtotime(text, Math.floor(now.getTime() / 1000));
      result = seconds === false || Math.abs(seconds) >= MAX_DATE_SECONDS ? undefined : DateTime.fromSeconds(seconds, { zone });
    } else {
      // Run strtotime on a clock that shows the zone's wall time, then read its answer as wall time in the zone.
      const wallNow = DateTime.fromJSDate(now, { zone });
      const fakeUtcNow = Date.UTC(wallNow.year, wallNow.month - 1, wallNow.day, wallNow.hour, wallNow.minute, wallNow.second) / 1000;
      const seconds = strtotime(text, fakeUtcNow);
      // A phrase can land past the range of JavaScript dates (`now + 10000000 years`): not a date.
      if (seconds !== false && Math.abs(seconds) < MAX_DATE_SECONDS) {
        const wall = new Date(seconds * 1000);
        result = DateTime.fromObject(
          {
            year: wall.getUTCFullYear(),
            month: wall.getUTCMonth() + 1,
            day: wall.getUTCDate(),
            hour: wall.getUTCHours(),
            minute: wall.getUTCMinutes(),
            second: wall.getUTCSeconds(),
          },
          { zone },
        );
      }
    }
  }
  if (!result?.isValid || result.year < 1000 || result.year > 9999) return undefined;
  return result.startOf('second');
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
  return DateTime.fromFormat(value, STORAGE_FORMAT, { zone });
}
