import ICAL from 'ical.js';
import { zoneOf } from './parse.js';
import { budgetedIterator, ExpansionBudget, ExpansionBudgetExceeded, IteratorRefused } from './recurrence-budget.js';
import { floating, localOf, parseLines, RecurrenceError, type ParsedLine } from './recurrence-lines.js';
import { loopTurn } from '../core/loop-turns.js';

/**
 * The expansion of a series' recurrence lines (read by dates/recurrence-lines.ts) into the local
 * wall-clock starts of its occurrences (docs/contract.md §14). ical.js iterates each rule; this module
 * only composes the set RFC 5545 §3.8.5 defines (the start, plus every rule's instances and every
 * RDATE, minus every EXDATE), within the budget of dates/recurrence-budget.ts.
 *
 * Expansion runs in floating (zone-less) wall-clock time, so an occurrence keeps its local time
 * across DST changes (10:00 in Europe/Paris stays 10:00; its UTC time moves): the zone is applied
 * afterwards, per occurrence, by the same conversion every event time goes through.
 */

/** What a series' occurrences are computed from. */
interface ExpansionInput {
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

/**
 * Whether an instance ical.js gave really satisfies the rule's BYMONTH and BYMONTHDAY: ical.js 2.2.1
 * rolls an impossible day over into the next month (`BYMONTH=2;BYMONTHDAY=30` gives 2 March),
 * which RFC 5545 says to skip.
 */
export function satisfiesDayParts(recur: ICAL.Recur, time: ICAL.Time): boolean {
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
export function budgetedInstances(item: ParsedLine & { kind: 'rrule' }, dtstart: ICAL.Time, budget: ExpansionBudget): { next(): Promise<ICAL.Time | null> } {
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
    const iterator = budgetedInstances(item, dtstart, budget);
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

/**
 * Expands a few common rules once, so that ical.js's iterator is compiled before a client's first
 * recurring write: a cold process expands "the last weekday of each month" four times slower, and
 * its first search that reaches the step bound took up to 130 ms instead of 10–31 ms
 * (docs/limits.md "Recurrence rules"), which the client and every other request would wait for.
 */
export async function warmUpExpansion(): Promise<void> {
  const rules = [
    'RRULE:FREQ=DAILY;COUNT=400',
    'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=200',
    'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12',
    'RRULE:FREQ=YEARLY;COUNT=5',
  ];
  // Rules that spend a search's whole step bound and are refused, from starts where they do: their
  // loops are compiled too, since a cold first search that reaches the bound took up to 130 ms of
  // processor time instead of 10–31 ms (docs/limits.md "Recurrence rules").
  const refused: Array<[string, string]> = [
    ['RRULE:FREQ=SECONDLY;COUNT=2;BYMONTH=1,5', '2027-01-31 23:59:59'],
    ['RRULE:FREQ=MINUTELY;BYMONTH=2;BYDAY=SU', '2027-02-28 23:59:00'],
    ['RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1MO;BYMONTHDAY=15,16,17,18,19,20,21', '2027-01-04 10:00:00'],
  ];
  for (let round = 0; round < 3; round++) {
    for (const rule of rules) {
      await expandOccurrences({ lines: [rule], timezone: 'Europe/Paris', startLocal: '2027-01-29 10:00:00', horizonLocal: '2037-01-01 00:00:00', max: 1000 });
    }
    for (const [rule, startLocal] of refused) {
      await expandOccurrences({ lines: [rule], timezone: 'UTC', startLocal, horizonLocal: '2029-01-01 00:00:00', max: 1000 }).then(
        () => {
          throw new Error(`the warm-up expected ${rule} to be refused`);
        },
        (err: unknown) => {
          if (!(err instanceof RecurrenceError) || !err.message.includes('too much work')) throw err;
        },
      );
    }
  }
}
