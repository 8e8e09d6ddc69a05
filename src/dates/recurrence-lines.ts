import ICAL from 'ical.js';
import { DateTime, type Zone } from 'luxon';
import { zoneOf } from './parse.js';
import { STORAGE_FORMAT } from './storage.js';
import { ruleProblem } from './rrule-parts.js';
import { naiveMs, naiveText } from './wall-clock.js';

/**
 * Reading a series' recurrence lines (docs/contract.md §14): RFC 5545 content lines (`RRULE:…`,
 * `RDATE…:…`, `EXDATE…:…`), as Google Calendar takes them, parsed and checked without expanding them.
 * ical.js parses each line; RRULE parts are checked first (dates/rrule-parts.ts), and dates given in
 * UTC or another zone are converted into the event's zone as local wall-clock strings. Expansion is
 * dates/recurrence.ts; rewriting stored lines is dates/recurrence-rewrites.ts.
 */

/** A line that cannot be accepted: its index in `recurrence`, the line, and why. */
export class RecurrenceError extends Error {
  constructor(
    readonly index: number,
    readonly line: string,
    reason: string,
  ) {
    super(`recurrence[${index}] "${line}": ${reason}`);
  }
}

/** Larger intervals only skip past any horizon, and ical.js's iterator hangs on huge ones. */
const MAX_INTERVAL = 1000;
/** RRULE parts RFC 5545 §3.3.10 defines; anything else is refused. */
const RULE_PARTS = new Set(['FREQ', 'UNTIL', 'COUNT', 'INTERVAL', 'BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYMONTH', 'BYSETPOS', 'WKST']);

/** Longest accepted line and most lines, so a body cannot make the expansion arbitrarily long. */
const MAX_LINE_LENGTH = 2000;
const MAX_LINES = 100;
/**
 * Most RDATE and EXDATE values of a series, all lines together: as many as a series has occurrences
 * (RECURRENCE_MAX_OCCURRENCES' default). Each value is converted into the event's zone, so 100 lines of
 * dates (about 20,000 values) would hold the event loop for most of a second (docs/limits.md).
 */
export const MAX_DATES = 1000;

/** One parsed line. Dates of RDATE/EXDATE are local wall-clock strings in the event's zone. */
export type ParsedLine =
  { kind: 'rrule'; index: number; line: string; recur: ICAL.Recur } | { kind: 'rdate' | 'exdate'; index: number; line: string; dates: Array<{ local: string; dateOnly: boolean }> };

/** A local wall-clock time 'YYYY-MM-DD HH:MM:SS' as a floating (zone-less) ical.js time. */
export function floating(local: string): ICAL.Time {
  return ICAL.Time.fromDateTimeString(local.replace(' ', 'T'));
}

/** A floating ical.js time as a local wall-clock time 'YYYY-MM-DD HH:MM:SS'. */
export function localOf(time: ICAL.Time): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)} ${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`;
}

/**
 * A DATE or DATE-TIME value as local wall time in `zone`: a UTC value (`…Z`) or one with a `TZID`
 * names an instant and is converted; a floating value is already wall time in the event's zone.
 */
function toLocal(time: ICAL.Time, sourceZone: Zone | undefined, zone: Zone): string {
  const wall = localOf(time);
  if (time.isDate || !sourceZone) return wall;
  return DateTime.fromFormat(wall, STORAGE_FORMAT, { zone: sourceZone }).setZone(zone).toFormat(STORAGE_FORMAT);
}

/**
 * Which checks a line gets: `expanded` lines (every expansion: a write, the rolling horizon) get
 * every check of RFC 5545 §3.3.10 (dates/rrule-parts.ts); `stored` lines are only read back (a feed,
 * a split's rewrite), so rules stored before a check existed stay readable.
 */
type Checks = 'expanded' | 'stored';

function parseRule(value: string, index: number, line: string, zone: Zone, checks: Checks): ICAL.Recur {
  const parts = value.split(';').filter((part) => part !== '');
  const names = new Map<string, string>();
  for (const part of parts) {
    const [name, partValue, extra] = part.split('=');
    const upper = (name ?? '').toUpperCase();
    if (!RULE_PARTS.has(upper) || partValue === undefined || partValue === '' || extra !== undefined) throw new RecurrenceError(index, line, `"${part}" is not an RRULE part.`);
    if (names.has(upper)) throw new RecurrenceError(index, line, `${upper} appears twice.`);
    names.set(upper, partValue);
    // ical.js reads numbers with parseInt ("1e3" is 1), INTERVAL=0 as 1, and loops for ever on an enormous INTERVAL.
    if (upper === 'COUNT' && !/^[1-9][0-9]*$/.test(partValue)) throw new RecurrenceError(index, line, 'COUNT must be a positive whole number.');
    if (upper === 'INTERVAL' && !/^[1-9][0-9]{0,2}$|^1000$/.test(partValue)) throw new RecurrenceError(index, line, `INTERVAL must be a whole number from 1 to ${MAX_INTERVAL}.`);
  }
  if (!names.has('FREQ')) throw new RecurrenceError(index, line, 'an RRULE needs FREQ.');
  if (names.has('COUNT') && names.has('UNTIL')) throw new RecurrenceError(index, line, 'an RRULE takes COUNT or UNTIL, not both.');
  const problem = checks === 'expanded' ? ruleProblem(names) : undefined;
  if (problem) throw new RecurrenceError(index, line, problem);
  let recur: ICAL.Recur;
  try {
    recur = ICAL.Recur.fromString(value);
  } catch (err) {
    throw new RecurrenceError(index, line, (err as Error).message);
  }
  if (names.has('COUNT') && !(Number.isInteger(recur.count) && (recur.count ?? 0) > 0)) throw new RecurrenceError(index, line, 'COUNT must be a positive whole number.');
  if (names.has('INTERVAL') && !(Number.isInteger(recur.interval) && recur.interval > 0)) throw new RecurrenceError(index, line, 'INTERVAL must be a positive whole number.');
  if (recur.until) {
    // Compared with floating wall-clock instances: a UTC UNTIL becomes the event zone's wall time,
    // a date-only UNTIL includes its whole day.
    if (recur.until.isDate) recur.until = floating(`${localOf(recur.until).slice(0, 10)} 23:59:59`);
    else if (recur.until.zone === ICAL.Timezone.utcTimezone) recur.until = floating(toLocal(recur.until, zoneOf('UTC'), zone));
  }
  return recur;
}

export /** Parses and checks the lines (without expanding them); throws RecurrenceError naming the first bad line. */
function parseLines(lines: string[], zone: Zone, checks: Checks): ParsedLine[] {
  if (lines.length > MAX_LINES) throw new RecurrenceError(MAX_LINES, lines[MAX_LINES], `at most ${MAX_LINES} lines.`);
  let dateCount = 0;
  return lines.map((line, index): ParsedLine => {
    if (line.length > MAX_LINE_LENGTH) throw new RecurrenceError(index, line.slice(0, 40), `a line has at most ${MAX_LINE_LENGTH} characters.`);
    // A line break or other control character would smuggle a second line past the parser, which reads only the first.
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f\x7f]/.test(line)) throw new RecurrenceError(index, line, 'a line has no control characters (one line per array item, unfolded).');
    // An RRULE's parts are checked here before ical.js reads them (its messages for a bad value are
    // hard to read: `BYHOUR: invalid value "24" must be < 0`).
    if (/^RRULE:/i.test(line)) return { kind: 'rrule', index, line, recur: parseRule(line.slice(6), index, line, zone, checks) };
    let property: ICAL.Property;
    try {
      property = ICAL.Property.fromString(line);
    } catch (err) {
      throw new RecurrenceError(index, line, `not an iCalendar content line (${(err as Error).message}).`);
    }
    const name = property.name;
    if (name === 'rrule') {
      const value = line.slice(line.indexOf(':') + 1);
      if (line.slice(0, line.indexOf(':')).includes(';')) throw new RecurrenceError(index, line, 'RRULE takes no parameters.');
      return { kind: 'rrule', index, line, recur: parseRule(value, index, line, zone, checks) };
    }
    if (name !== 'rdate' && name !== 'exdate') throw new RecurrenceError(index, line, `unknown property ${name.toUpperCase()}: only RRULE, RDATE and EXDATE are accepted.`);
    const valueType = property.type.toUpperCase();
    if (valueType !== 'DATE-TIME' && valueType !== 'DATE') throw new RecurrenceError(index, line, `VALUE=${valueType} is not supported: use DATE-TIME or DATE.`);
    const tzid = property.getFirstParameter('tzid');
    let sourceZone: Zone | undefined;
    if (tzid !== null && tzid !== undefined) {
      sourceZone = zoneOf(String(tzid));
      if (!sourceZone) throw new RecurrenceError(index, line, `TZID ${tzid} is not a known time zone.`);
    }
    let values: ICAL.Time[];
    try {
      values = property.getValues() as ICAL.Time[];
    } catch (err) {
      throw new RecurrenceError(index, line, (err as Error).message);
    }
    const dates = values.map((value) => {
      // A calendar check by naive arithmetic: luxon's parser costs far more per value (docs/limits.md).
      if (!(value instanceof ICAL.Time) || !value.toJSDate || Number.isNaN(value.year) || naiveText(naiveMs(localOf(value))) !== localOf(value))
        throw new RecurrenceError(index, line, 'a value is not a date.');
      const zoneOfValue = value.zone === ICAL.Timezone.utcTimezone ? zoneOf('UTC') : sourceZone;
      return { local: toLocal(value, zoneOfValue, zone), dateOnly: value.isDate };
    });
    if (dates.length === 0) throw new RecurrenceError(index, line, 'no date given.');
    dateCount += dates.length;
    if (checks === 'expanded' && dateCount > MAX_DATES) throw new RecurrenceError(index, line, `at most ${MAX_DATES} RDATE and EXDATE values in all.`);
    return { kind: name, index, line, dates };
  });
}
