import ICAL from 'ical.js';
import { DateTime, type Zone } from 'luxon';
import { zoneOf } from './parse.js';
import { STORAGE_FORMAT } from './storage.js';
import { budgetedIterator, ExpansionBudget, ExpansionBudgetExceeded, IteratorRefused } from './recurrence-budget.js';
import { ruleProblem } from './rrule-parts.js';
import { loopTurn } from '../core/loop-turns.js';

/**
 * Recurrence rules as RFC 5545 content lines (`RRULE:…`, `RDATE…:…`, `EXDATE…:…`), as Google
 * Calendar takes them, and their expansion into the local wall-clock starts of a series
 * (docs/contract.md §14). ical.js parses the lines and iterates each rule; this module only
 * composes the set RFC 5545 §3.8.5 defines (the start, plus every rule's instances and every RDATE,
 * minus every EXDATE) and converts dates given in UTC or another zone into the event's zone.
 *
 * Expansion runs in floating (zone-less) wall-clock time, so an occurrence keeps its local time
 * across DST changes (10:00 in Europe/Paris stays 10:00; its UTC time moves): the zone is applied
 * afterwards, per occurrence, by the same conversion every event time goes through.
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

/** RRULE parts RFC 5545 §3.3.10 defines; anything else is refused. */
/** Larger intervals only skip past any horizon, and ical.js's iterator hangs on huge ones. */
const MAX_INTERVAL = 1000;
const RULE_PARTS = new Set(['FREQ', 'UNTIL', 'COUNT', 'INTERVAL', 'BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO', 'BYMONTH', 'BYSETPOS', 'WKST']);

/** Longest accepted line and most lines, so a body cannot make the expansion arbitrarily long. */
export const MAX_LINE_LENGTH = 2000;
export const MAX_LINES = 100;
/**
 * Most RDATE and EXDATE values of a series, all lines together: as many as a series has occurrences
 * (RECURRENCE_MAX_OCCURRENCES' default). Each value is converted into the event's zone, so 100 lines of
 * dates (about 20,000 values) would hold the event loop for most of a second (docs/limits.md).
 */
export const MAX_DATES = 1000;

/** One parsed line. Dates of RDATE/EXDATE are local wall-clock strings in the event's zone. */
type ParsedLine =
  { kind: 'rrule'; index: number; line: string; recur: ICAL.Recur } | { kind: 'rdate' | 'exdate'; index: number; line: string; dates: Array<{ local: string; dateOnly: boolean }> };

/** What a series' occurrences are computed from. */
export interface ExpansionInput {
  /** The content lines, as stored. */
  lines: string[];
  /** The event's zone (IANA name or `UTC±N`). */
  timezone: string;
  /** Local start of the first occurrence (the first event's start), 'YYYY-MM-DD HH:MM:SS'. */
  startLocal: string;
  /** Last local start materialised (inclusive), 'YYYY-MM-DD HH:MM:SS'. */
  horizonLocal: string;
  /** Most occurrences accepted up to the horizon; more is an error naming the line that makes them. */
  max: number;
}

function floating(local: string): ICAL.Time {
  return ICAL.Time.fromDateTimeString(local.replace(' ', 'T'));
}

function localOf(time: ICAL.Time): string {
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

/** Parses and checks the lines (without expanding them); throws RecurrenceError naming the first bad line. */
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

/**
 * Whether an instance ical.js gave really satisfies the rule's BYMONTH and BYMONTHDAY: ical.js 2.2.1
 * rolls an impossible day over into the next month (`BYMONTH=2;BYMONTHDAY=30` gives 2 March),
 * which RFC 5545 says to skip.
 */
function satisfiesDayParts(recur: ICAL.Recur, time: ICAL.Time): boolean {
  const months = recur.parts.BYMONTH as number[] | undefined;
  if (months?.length && !months.includes(time.month)) return false;
  const days = recur.parts.BYMONTHDAY as number[] | undefined;
  if (days?.length) {
    const length = ICAL.Time.daysInMonth(time.month, time.year);
    if (!days.some((day) => (day > 0 ? day === time.day : length + day + 1 === time.day))) return false;
  }
  return true;
}

/**
 * A rule's instances from `dtstart`, within the expansion's budget (dates/recurrence-budget.ts): past
 * it, or when ical.js refuses the rule, a RecurrenceError naming the line. The event loop gets a turn
 * between two searches for an instance once it has been held TURN_BUDGET_MS (loop-turns.ts), so a
 * long expansion holds it at most that plus one search's bound.
 */
function budgeted(item: ParsedLine & { kind: 'rrule' }, dtstart: ICAL.Time, budget: ExpansionBudget): { next(): Promise<ICAL.Time | null> } {
  const named = (err: unknown): never => {
    if (err instanceof ExpansionBudgetExceeded) throw new RecurrenceError(item.index, item.line, err.message);
    if (err instanceof IteratorRefused) throw new RecurrenceError(item.index, item.line, `ical.js cannot iterate this rule (${err.message}).`);
    throw err;
  };
  let iterator: { next(): ICAL.Time | null };
  try {
    iterator = budgetedIterator(item.recur, dtstart, budget);
  } catch (err) {
    return named(err);
  }
  return {
    async next() {
      await loopTurn();
      try {
        return iterator.next();
      } catch (err) {
        return named(err);
      }
    },
  };
}

/**
 * The local starts of a series' occurrences up to the horizon, sorted, the first event's start
 * first. Throws RecurrenceError naming the line when a line is malformed or unknown, when a rule
 * yields no occurrence or does not start on the first event's start, when an RDATE precedes it or an
 * EXDATE removes it, and when more than `max` occurrences fall up to the horizon.
 */
export async function expandOccurrences(input: ExpansionInput): Promise<string[]> {
  const zone = zoneOf(input.timezone) ?? zoneOf('UTC')!;
  const parsed = parseLines(input.lines, zone, 'expanded');
  const start = input.startLocal;
  const dtstart = floating(start);
  const horizon = floating(input.horizonLocal);
  const starts = new Set<string>([start]);
  const tooMany = (item: ParsedLine) =>
    new RecurrenceError(item.index, item.line, `more than ${input.max} occurrences up to ${input.horizonLocal.slice(0, 10)} (RECURRENCE_MAX_OCCURRENCES).`);

  const budget = new ExpansionBudget();
  for (const item of parsed) {
    if (item.kind !== 'rrule') continue;
    const iterator = budgeted(item, dtstart, budget);
    let first = true;
    for (let next = await iterator.next(); next; next = await iterator.next()) {
      if (next.compare(horizon) > 0) break;
      if (!satisfiesDayParts(item.recur, next)) continue;
      const local = localOf(next);
      if (first && local !== start)
        throw new RecurrenceError(item.index, item.line, `its first occurrence is ${local}, not the event's start ${start}: start the event on the rule's first occurrence.`);
      first = false;
      starts.add(local);
      if (starts.size > input.max) throw tooMany(item);
    }
    if (first) throw new RecurrenceError(item.index, item.line, 'the rule yields no occurrence.');
  }

  const time = start.slice(11);
  for (const item of parsed) {
    if (item.kind !== 'rdate') continue;
    for (const { local, dateOnly } of item.dates) {
      // A DATE adds the day at the series' time of day.
      const at = dateOnly ? `${local.slice(0, 10)} ${time}` : local;
      if (at < start) throw new RecurrenceError(item.index, item.line, `${at} is before the event's start ${start}, which is the first occurrence.`);
      if (at <= input.horizonLocal) starts.add(at);
      if (starts.size > input.max) throw tooMany(item);
    }
  }

  // The starts of each day, for date-only EXDATEs (a scan of every start per EXDATE value would make
  // 100 lines of dates cost a second; docs/limits.md).
  const startsOfDay = new Map<string, string[]>();
  for (const s of starts) startsOfDay.set(s.slice(0, 10), [...(startsOfDay.get(s.slice(0, 10)) ?? []), s]);
  for (const item of parsed) {
    if (item.kind !== 'exdate') continue;
    for (const { local, dateOnly } of item.dates) {
      // A DATE removes every occurrence of that day (as ical.js compares a DATE with a DATE-TIME).
      const removed = dateOnly ? (startsOfDay.get(local.slice(0, 10)) ?? []).filter((s) => starts.has(s)) : starts.has(local) ? [local] : [];
      if (removed.includes(start))
        throw new RecurrenceError(item.index, item.line, `it removes the first occurrence (${start}): move the event's start instead, or delete the first event.`);
      for (const s of removed) starts.delete(s);
    }
  }
  return [...starts].sort();
}

/** Whether every line only names known properties and parses (for checks that need no expansion). */
export function checkLines(lines: string[], timezone: string): void {
  parseLines(lines, zoneOf(timezone) ?? zoneOf('UTC')!, 'expanded');
}

/**
 * The lines of a series ended before `beforeLocal` (a "this and following" split): every RRULE gets
 * an UNTIL one second before it, in UTC as RFC 5545 asks when the start has a zone (its COUNT, if
 * any, is replaced); RDATEs and EXDATEs from then on are dropped.
 */
export function endBefore(lines: string[], timezone: string, beforeLocal: string): string[] {
  const zone = zoneOf(timezone) ?? zoneOf('UTC')!;
  const lastLocal = DateTime.fromFormat(beforeLocal, STORAGE_FORMAT, { zone: 'UTC' }).minus({ seconds: 1 }).toFormat(STORAGE_FORMAT);
  const untilUtc = DateTime.fromFormat(lastLocal, STORAGE_FORMAT, { zone }).toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'");
  return parseLines(lines, zone, 'stored').flatMap((item): string[] => {
    if (item.kind === 'rrule') {
      const recur = item.recur.clone();
      recur.count = null;
      const existingUntil = recur.until ? localOf(recur.until) : undefined;
      if (existingUntil !== undefined && existingUntil < lastLocal) return [item.line];
      recur.until = ICAL.Time.fromDateTimeString(
        `${untilUtc.slice(0, 4)}-${untilUtc.slice(4, 6)}-${untilUtc.slice(6, 8)}T${untilUtc.slice(9, 11)}:${untilUtc.slice(11, 13)}:${untilUtc.slice(13, 15)}Z`,
      );
      return [`RRULE:${recur.toString()}`];
    }
    const kept = item.dates.filter((d) => d.local < beforeLocal);
    if (kept.length === item.dates.length) return [item.line];
    return kept.length ? [lineOf(item.kind, kept)] : [];
  });
}

/**
 * The lines of a series that starts at `fromLocal`, cut from a series whose occurrences before it
 * were `earlier` (a "this and following" split): a COUNT shrinks by the rule's instances before the
 * cut; RDATEs and EXDATEs before it are dropped.
 */
export async function startFrom(lines: string[], timezone: string, originalStartLocal: string, fromLocal: string): Promise<string[]> {
  const zone = zoneOf(timezone) ?? zoneOf('UTC')!;
  const budget = new ExpansionBudget();
  const result: string[] = [];
  for (const item of parseLines(lines, zone, 'stored')) {
    if (item.kind === 'rrule') {
      if (!item.recur.count) {
        result.push(item.line);
        continue;
      }
      const iterator = budgeted(item, floating(originalStartLocal), budget);
      let before = 0;
      for (let next = await iterator.next(); next && localOf(next) < fromLocal; next = await iterator.next()) before++;
      const recur = item.recur.clone();
      recur.count = Math.max(1, (recur.count ?? 1) - before);
      result.push(`RRULE:${recur.toString()}`);
      continue;
    }
    const kept = item.dates.filter((d) => d.local >= fromLocal);
    if (kept.length === item.dates.length) result.push(item.line);
    else if (kept.length) result.push(lineOf(item.kind, kept));
  }
  return result;
}

/** An RDATE or EXDATE line of local wall-clock dates (floating: read in the event's zone). */
function lineOf(kind: 'rdate' | 'exdate', dates: Array<{ local: string; dateOnly: boolean }>): string {
  const name = kind.toUpperCase();
  const compact = (local: string, dateOnly: boolean) => (dateOnly ? local.slice(0, 10).replace(/-/g, '') : local.replace(/[-:]/g, '').replace(' ', 'T'));
  const dateOnly = dates.every((d) => d.dateOnly);
  return `${name}${dateOnly ? ';VALUE=DATE' : ''}:${dates.map((d) => compact(d.local, dateOnly && d.dateOnly)).join(',')}`;
}

/** An EXDATE line removing one occurrence, as the event's zone reads it (`EXDATE;TZID=…:…`). */
export function exdateLine(timezone: string, local: string): string {
  const value = local.replace(/[-:]/g, '').replace(' ', 'T');
  return /^UTC[+-]/.test(timezone) || timezone === 'UTC' ? `EXDATE:${utcValue(timezone, local)}` : `EXDATE;TZID=${timezone}:${value}`;
}

function utcValue(timezone: string, local: string): string {
  return DateTime.fromFormat(local, STORAGE_FORMAT, { zone: zoneOf(timezone) ?? 'UTC' })
    .toUTC()
    .toFormat("yyyyMMdd'T'HHmmss'Z'");
}

/**
 * A stored local time as milliseconds of a naive (zone-less) clock, and back. Series expand to
 * hundreds of occurrences per write; luxon's parsing costs about 0.1 ms per call, this arithmetic
 * almost nothing.
 */
export function naiveMs(local: string): number {
  return Date.UTC(+local.slice(0, 4), +local.slice(5, 7) - 1, +local.slice(8, 10), +local.slice(11, 13), +local.slice(14, 16), +local.slice(17, 19));
}

export function naiveText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** `local` moved by the wall-clock difference between two local times (`to - from`), as naive dates. */
export function shiftLocal(local: string, from: string, to: string): string {
  return naiveText(naiveMs(local) + naiveMs(to) - naiveMs(from));
}

/**
 * A local wall-clock time in a zone as stored: its local form and UTC, as RFC 5545 §3.3.5 reads a
 * DATE-TIME with a TZID. A time that occurs twice (clocks going back) is the first of the two; a time
 * in a gap (clocks going forward) takes the offset before the gap, so it moves forward by the gap
 * (as every other event time does: luxon's rule for gaps is the same).
 */
export function inZone(local: string, zone: Zone): { local: string; utc: string } {
  const naive = naiveMs(local);
  // The offsets around: at most one change within half a day either side.
  const before = zone.offset(naive - 43_200_000);
  const after = zone.offset(naive + 43_200_000);
  let utc: number | undefined;
  for (const offset of before >= after ? [before, after] : [after, before]) {
    const candidate = naive - offset * 60_000;
    if (zone.offset(candidate) === offset) {
      utc = candidate;
      break;
    }
  }
  utc ??= naive - before * 60_000;
  return { local: naiveText(utc + zone.offset(utc) * 60_000), utc: naiveText(utc) };
}

/**
 * A series' lines as its iCalendar `VEVENT` writes them next to `DTSTART;TZID={timezone}` (or a DATE
 * for an all-day series), in the forms RFC 5545 asks for there: an `UNTIL` in UTC (a DATE for an
 * all-day series), every `RDATE`/`EXDATE` value in the event's zone (`TZID`), or a DATE for all-day
 * series and for date-only `EXDATE`s; a date-only `RDATE` of a timed series at the series' time of day.
 * One line per date.
 */
export function calendarLines(lines: string[], timezone: string, startLocal: string, allDay: boolean): string[] {
  const zone = zoneOf(timezone) ?? zoneOf('UTC')!;
  const basic = (local: string) => local.replace(/[-:]/g, '').replace(' ', 'T');
  return parseLines(lines, zone, 'stored').flatMap((item): string[] => {
    if (item.kind === 'rrule') {
      const recur = item.recur.clone();
      if (recur.until) {
        const local = localOf(recur.until);
        recur.until = allDay
          ? ICAL.Time.fromDateString(local.slice(0, 10))
          : ICAL.Time.fromDateTimeString(`${DateTime.fromFormat(local, STORAGE_FORMAT, { zone }).toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss")}Z`);
      }
      return [`RRULE:${recur.toString()}`];
    }
    const name = item.kind.toUpperCase();
    return item.dates.map(({ local, dateOnly }) => {
      if (allDay || (dateOnly && item.kind === 'exdate')) return `${name};VALUE=DATE:${local.slice(0, 10).replace(/-/g, '')}`;
      const at = dateOnly ? `${local.slice(0, 10)} ${startLocal.slice(11)}` : local;
      return `${name};TZID=${timezone}:${basic(at)}`;
    });
  });
}

/**
 * Expands a few common rules once, so that ical.js's iterator is compiled before a client's first
 * recurring write: a cold process expands "the last weekday of each month" four times slower
 * (docs/limits.md "Recurrence rules"), which the client would otherwise wait for.
 */
export async function warmUpExpansion(): Promise<void> {
  const rules = [
    'RRULE:FREQ=DAILY;COUNT=400',
    'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=200',
    'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12',
    'RRULE:FREQ=YEARLY;COUNT=5',
  ];
  for (let round = 0; round < 3; round++) {
    for (const rule of rules) {
      // A cold process may pass a search's time bound here (that is what the warm-up is for): the
      // refusal is expected and harmless, the compiled code is what counts.
      await expandOccurrences({ lines: [rule], timezone: 'Europe/Paris', startLocal: '2027-01-29 10:00:00', horizonLocal: '2037-01-01 00:00:00', max: 1000 }).catch(
        (err: unknown) => {
          if (!(err instanceof RecurrenceError)) throw err;
        },
      );
    }
  }
}
