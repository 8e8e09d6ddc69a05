import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { zoneOf } from './parse.js';
import { STORAGE_FORMAT } from './storage.js';
import { ExpansionBudget } from './recurrence-budget.js';
import { floating, localOf, parseLines } from './recurrence-lines.js';
import { budgetedInstances } from './recurrence.js';

/**
 * Stored recurrence lines rewritten into other lines: the two series of a "this and following" split,
 * the EXDATE that removes one occurrence, and the forms an iCalendar `VEVENT` writes (docs/contract.md
 * §14). Stored lines are read with the `stored` checks (dates/recurrence-lines.ts), so rules stored
 * before a check existed stay readable.
 */

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
      const iterator = budgetedInstances(item, floating(originalStartLocal), budget);
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
