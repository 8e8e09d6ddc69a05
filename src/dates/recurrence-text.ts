import type ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { zoneOf } from './parse.js';
import { ExpansionBudget } from './recurrence-budget.js';
import { floating, localOf, parseLines, RecurrenceError, type ParsedLine } from './recurrence-lines.js';
import { budgetedInstances, satisfiesDayParts } from './recurrence.js';

/**
 * A series' rule in words, for the public page of its events (docs/contract.md §13): "Every week on
 * Monday and Wednesday, 6 times, until 9 July 2027". Pure. Only a series with exactly one RRULE whose
 * parts are FREQ, INTERVAL, COUNT or UNTIL, BYDAY, BYMONTHDAY, BYMONTH (and WKST) is phrased; any
 * other gives undefined, and the page says only "Recurring event". RDATE lines add "and on other
 * dates"; EXDATE lines are left out (the rule is described, not each date).
 */

/**
 * Steps of ical.js's iterator (dates/recurrence-budget.ts) the last date of a COUNT rule may take:
 * past it, the page gives the count without the date (docs/limits.md "Recurrence rules").
 */
const DESCRIBE_STEP_BUDGET = 5_000;

/** Where a series starts: its first event's RECURRENCE-ID (local wall time) and the series' zone. */
interface SeriesOrigin {
  timezone: string;
  startLocal: string;
}

const UNITS: Record<string, string> = { SECONDLY: 'second', MINUTELY: 'minute', HOURLY: 'hour', DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' };
const WEEKDAYS: Record<string, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const ORDINAL_WORDS = ['', 'first', 'second', 'third', 'fourth', 'fifth'];
/** The parts this module puts into words (WKST changes no date a phrase names). */
const PHRASED = new Set(['BYDAY', 'BYMONTHDAY', 'BYMONTH', 'WKST']);

/** "a", "a and b", "a, b and c". */
function listText(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st. */
function ordinalNumber(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** first … fifth, then 6th…; a negative ordinal counts from the end: last, second-last, 6th-last. */
function ordinalWord(n: number): string {
  const word = (k: number) => ORDINAL_WORDS[k] ?? ordinalNumber(k);
  if (n === -1) return 'last';
  return n < 0 ? `${word(-n)}-last` : word(n);
}

/**
 * `BYDAY` in words: plain weekdays ("Monday and Wednesday", in week order, `weekday` for Monday to
 * Friday) or ordinal ones ("the first Monday and the last Friday"); undefined for a mix of both.
 */
function weekdaysText(values: string[]): { plain: boolean; text: string } | undefined {
  const items = values.map((value) => /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(value.toUpperCase()));
  if (items.some((item) => !item || !WEEKDAYS[item[2]])) return undefined;
  const matches = items as RegExpExecArray[];
  if (matches.every((m) => m[1] === undefined)) {
    const codes = Object.keys(WEEKDAYS).filter((code) => matches.some((m) => m[2] === code));
    return { plain: true, text: codes.join() === 'MO,TU,WE,TH,FR' ? 'weekday' : listText(codes.map((code) => WEEKDAYS[code]!)) };
  }
  if (matches.some((m) => m[1] === undefined)) return undefined;
  return { plain: false, text: listText(matches.map((m) => `the ${ordinalWord(Number(m[1]))} ${WEEKDAYS[m[2]]}`)) };
}

/** `BYMONTHDAY` in words: "the 1st and 15th", "the 4th and the last day". */
function monthDaysText(values: number[]): string {
  if (values.every((day) => day > 0)) return `the ${listText(values.map(ordinalNumber))}`;
  return listText(values.map((day) => `the ${day > 0 ? ordinalNumber(day) : `${ordinalWord(day)} day`}`));
}

function dateText(local: string): string {
  return DateTime.fromISO(local.slice(0, 10), { zone: 'UTC', locale: 'en-GB' }).toFormat('d LLLL yyyy');
}

/** The rule's parts in words, without its end; undefined when a part has no phrase here. */
function ruleText(recur: ICAL.Recur): string | undefined {
  const unit = UNITS[String(recur.freq).toUpperCase()];
  if (!unit) return undefined;
  const parts = recur.parts as Record<string, Array<string | number> | undefined>;
  if (Object.entries(parts).some(([name, value]) => value?.length && !PHRASED.has(name))) return undefined;
  const every = recur.interval > 1 ? `Every ${recur.interval} ${unit}s` : `Every ${unit}`;
  const byDay = parts.BYDAY?.length ? weekdaysText(parts.BYDAY.map(String)) : null;
  const byMonthDay = parts.BYMONTHDAY?.length ? monthDaysText(parts.BYMONTHDAY.map(Number)) : '';
  if (byDay === undefined || (byDay && byMonthDay)) return undefined;
  const months = parts.BYMONTH?.length ? listText(parts.BYMONTH.map((month) => MONTHS[Number(month) - 1] ?? '?')) : '';
  // "the 15th of March", "the last Sunday in October", "Every year in March".
  const monthText = months ? `${byMonthDay ? ' of' : ' in'} ${months}` : '';
  // A daily rule on some weekdays: "Every weekday", "Every Saturday and Sunday".
  if (byDay?.plain && recur.interval <= 1 && unit === 'day') return `Every ${byDay.text}${monthText}`;
  const day = byDay ? (byDay.text === 'weekday' ? 'weekdays' : byDay.text) : byMonthDay;
  return `${every}${day ? ` on ${day}` : ''}${monthText}`;
}

/** The local start of a COUNT rule's last instance from `origin`, within DESCRIBE_STEP_BUDGET; undefined past it. */
async function lastInstance(item: ParsedLine & { kind: 'rrule' }, origin: SeriesOrigin): Promise<string | undefined> {
  const iterator = budgetedInstances(item, floating(origin.startLocal), new ExpansionBudget(DESCRIBE_STEP_BUDGET));
  let last: string | undefined;
  try {
    for (let next = await iterator.next(); next; next = await iterator.next()) if (satisfiesDayParts(item.recur, next)) last = localOf(next);
  } catch (err) {
    if (err instanceof RecurrenceError) return undefined;
    throw err;
  }
  return last;
}

/** The series' rule in words, or undefined when it cannot be put into words (the page then says only "Recurring event"). */
export async function describeRecurrence(lines: string[], origin: SeriesOrigin): Promise<string | undefined> {
  const rules = lines.filter((line) => /^RRULE[:;]/i.test(line));
  if (rules.length !== 1) return undefined;
  let item: ParsedLine;
  try {
    [item] = parseLines(rules, zoneOf(origin.timezone) ?? zoneOf('UTC')!, 'stored') as [ParsedLine];
  } catch (err) {
    if (err instanceof RecurrenceError) return undefined;
    throw err;
  }
  if (item.kind !== 'rrule') return undefined;
  const text = ruleText(item.recur);
  if (text === undefined) return undefined;
  const { count, until } = item.recur;
  let end = '';
  if (count) {
    const last = await lastInstance(item, origin);
    const times = count === 1 ? 'once' : count === 2 ? 'twice' : `${count.toLocaleString('en-GB')} times`;
    end = `, ${times}${last && count > 1 ? `, until ${dateText(last)}` : ''}`;
  } else if (until) end = `, until ${dateText(localOf(until))}`;
  const others = lines.some((line) => /^RDATE[:;]/i.test(line)) ? ', and on other dates' : '';
  return `${text}${end}${others}`;
}
