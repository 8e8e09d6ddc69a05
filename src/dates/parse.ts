import { createRequire } from 'node:module';
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { namesImpossibleDate } from './calendar.js';

/*
 * locutus 2.x: its 3.x line asks for Node 22 or newer, and 2.x's strtotime gives the same answers.
 * 2.x is CommonJS without an exports map or types, so it is required by its file path.
 */
const strtotime = createRequire(import.meta.url)('locutus/php/datetime/strtotime.js') as (text: string, now?: number) => number | false;

/**
 * PHP's strtotime (locutus's faithful port) computes in the process's local time zone. The processes
 * run in UTC (main.ts, cli.ts and the test hooks set TZ first; createApp refuses to start otherwise),
 * so that "local" arithmetic is plain wall-clock arithmetic, which the zone handling below relies on.
 */
export function assertUtcProcess(): void {
  if (process.env.TZ !== 'UTC') throw new Error('The process must run with TZ=UTC (set it before anything else).');
}

/** UTC, for values read as UTC and as the fallback of a zone checked when it was stored. */
export const UTC_ZONE: Zone = FixedOffsetZone.utcInstance;

/** `UTC`, `UTC+5`, `UTC-3.5` (WordPress offsets) or an IANA name → a luxon zone; undefined if unknown. */
export function zoneOf(name: string): Zone | undefined {
  const offset = /^UTC(?:([+-])(\d{1,2})(?:\.(\d+))?)?$/.exec(name);
  if (offset) {
    if (!offset[1]) return FixedOffsetZone.utcInstance;
    const hours = Number(`${offset[2]}.${offset[3] ?? 0}`);
    if (hours > 14) return undefined;
    return FixedOffsetZone.instance((offset[1] === '-' ? -1 : 1) * Math.round(hours * 60));
  }
  // Newer ICU versions (Node 24) also accept offsets such as `+05:00` as zone names; WordPress
  // does not, so only names that start with a letter reach the tz database.
  // Stryker disable next-line ConditionalExpression,Regex: only Node 24's ICU accepts such names; on Node 20 and 22 no input tells.
  if (!/^[A-Za-z]/.test(name)) return undefined;
  const zone = IANAZone.create(name);
  return zone.isValid ? zone : undefined;
}

/** An explicit offset or `Z` at the end (`…T10:00:00+02:00`, `…10:00 Z`, `… GMT`): the text names an instant. */
const EXPLICIT_OFFSET = /(?:\d)(?:\s*(?:Z|UTC|GMT)|\s*[+-]\d{2}:?\d{2})$/i;
const TIMESTAMP = /^@?-?\d+(\.\d+)?$/;

const NEXT_WEEKDAY = /\bnext\s+(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?\b/i;

/**
 * locutus's strtotime reads `next wednesday` like `wednesday`, so on a Wednesday it gives that same
 * day; PHP's gives the Wednesday after (only `this wednesday` and `wednesday` may stay on the day).
 * When the weekday left the date where the rest of the phrase puts it, add the week PHP adds.
 * `base` is a wall clock shown as UTC (see below), so whole days are whole multiples of 86400 s.
 */
function strtotimeAsPhp(text: string, base: number): number | false {
  const seconds = strtotime(text, base);
  if (seconds === false || !NEXT_WEEKDAY.test(text)) return seconds;
  // Where the rest of the phrase puts the date (strtotime of empty text is `base`).
  const reference = strtotime(text.replace(NEXT_WEEKDAY, ''), base);
  if (reference === false) return seconds;
  return Math.floor(reference / 86400) === Math.floor(seconds / 86400) ? seconds + 7 * 86400 : seconds;
}

/**
 * Parses a date input of the forms docs/contract.md §2 accepts: `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, ISO 8601
 * with or without an offset, a UNIX timestamp (number, numeric string or `@N`), and the relative
 * phrases of PHP's strtotime (`now`, `tomorrow 9am`, `+5 days 11am`, `next wednesday 4pm`...).
 *
 * Wall-clock text is read in `zone`, relative phrases relative to now in `zone`. Text that carries an
 * offset, and timestamps, name an instant, which is converted into `zone` (the plugin keeps their
 * wall time and mislabels it). Returns the moment in `zone`, or undefined when the input is not a
 * date, names a day or time that does not exist (`2027-02-30`, `24:30`: refused, not rolled over as
 * PHP does), or falls outside years 1000-9999.
 */
export function parseDateInput(input: unknown, zone: Zone, now: Date): DateTime | undefined {
  let result: DateTime | undefined;
  if (typeof input === 'number' || (typeof input === 'string' && TIMESTAMP.test(input.trim()))) {
    // TIMESTAMP allows one `@`, at the start; Number() ignores surrounding spaces.
    const seconds = Number(String(input).replace('@', ''));
    result = Number.isFinite(seconds) ? DateTime.fromMillis(Math.round(seconds * 1000), { zone }) : undefined;
  } else if (typeof input === 'string' && input.trim() !== '' && input.length <= 100 && !namesImpossibleDate(input, DateTime.fromJSDate(now, { zone }).year)) {
    // Stryker disable next-line MethodExpression: untrimmed, an offset at the end is not seen, and strtotime reads the same instant.
    const text = input.trim();
    if (EXPLICIT_OFFSET.test(text)) {
      // Stryker disable next-line all: a shortcut for ISO text; only the instant is used, and strtotime reads it too.
      const iso = DateTime.fromISO(text.replace(' ', 'T'), { setZone: true });
      const seconds = iso.isValid ? iso.toSeconds() : strtotime(text, Math.floor(now.getTime() / 1000));
      // Past the range of JavaScript dates luxon's date is invalid, which is refused below.
      result = seconds === false ? undefined : DateTime.fromSeconds(seconds, { zone });
    } else {
      // Run strtotime on a clock that shows the zone's wall time, then read its answer as wall time in the zone.
      const wallNow = DateTime.fromJSDate(now, { zone });
      const fakeUtcNow = Date.UTC(wallNow.year, wallNow.month - 1, wallNow.day, wallNow.hour, wallNow.minute, wallNow.second) / 1000;
      const seconds = strtotimeAsPhp(text, fakeUtcNow);
      // A phrase can land past the range of JavaScript dates (`now + 10000000 years`): not a date.
      const wall = new Date(seconds === false ? NaN : seconds * 1000);
      if (!Number.isNaN(wall.getTime())) {
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
  // Both the wall time and its UTC time are stored as 'YYYY-MM-DD HH:MM:SS': four-digit years only.
  if (!result?.isValid || !inStorableYears(result) || !inStorableYears(result.toUTC())) return undefined;
  return result.startOf('second');
}

function inStorableYears(moment: DateTime): boolean {
  return moment.year >= 1000 && moment.year <= 9999;
}
