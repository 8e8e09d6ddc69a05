import { DateTime } from 'luxon';
import { invalidParams } from '../../core/errors.js';
import { zoneOf } from '../../dates/parse.js';
import { STORAGE_FORMAT } from '../../dates/storage.js';
import { timeFormsOf, type EventTimes } from '../../dates/event-times.js';
import { expandOccurrences } from '../../dates/recurrence.js';
import { RecurrenceError } from '../../dates/recurrence-lines.js';
import { inZone, naiveMs, naiveText, shiftLocal } from '../../dates/wall-clock.js';
import type { Knex } from 'knex';
import { inWriteTransaction, Repositories } from '../../repositories/registry.js';
import { storedTimesText } from '../../repositories/series.js';
import { loopTurn } from '../../core/loop-turns.js';

/**
 * The occurrences of recurring series (docs/contract.md §14): what the rules give, and the writes
 * that make a series' stored events match it. Every function here runs inside the caller's write
 * transaction (repositories bound to it), so a series edit is one transaction.
 */

/** RECURRENCE_MAX_OCCURRENCES and RECURRENCE_HORIZON_DAYS (config.ts). */
export interface RecurrenceSettings {
  maxOccurrences: number;
  horizonDays: number;
}

/** What a series is expanded from: its rules, zone and first start, and the end of its first event. */
export interface SeriesTemplate {
  id: number;
  lines: string[];
  timezone: string;
  startLocal: string;
  endLocal: string;
}

const naive = (local: string) => DateTime.fromFormat(local, STORAGE_FORMAT, { zone: 'UTC' });

/**
 * The last local start materialised: the end of the day `horizonDays` after today in the event's
 * zone, or after the series' start when that is later (a series that starts in three years gets its
 * first two years).
 */
function horizonFor(startLocal: string, timezone: string, now: Date, horizonDays: number): string {
  const today = DateTime.fromJSDate(now, { zone: zoneOf(timezone) ?? 'UTC' }).toFormat(STORAGE_FORMAT);
  const from = today > startLocal ? today : startLocal;
  return naive(from).plus({ days: horizonDays }).endOf('day').toFormat(STORAGE_FORMAT);
}

/**
 * The local starts of a series up to the horizon, or 400 `rest_invalid_param` on `recurrence`
 * naming the line at fault (dates/recurrence.ts).
 */
export function occurrenceStarts(template: Omit<SeriesTemplate, 'id' | 'endLocal'>, now: Date, settings: RecurrenceSettings): Promise<{ starts: string[]; horizon: string }> {
  return asRecurrenceInput(() => planStarts(template, now, settings));
}

/** `rules` read as the `recurrence` of a write: a RecurrenceError (dates/recurrence-lines.ts) becomes 400 `rest_invalid_param` on `recurrence`. */
export async function asRecurrenceInput<T>(rules: () => T | Promise<T>): Promise<T> {
  try {
    return await rules();
  } catch (err) {
    if (err instanceof RecurrenceError) throw invalidParams({ recurrence: err.message });
    throw err;
  }
}

/** The local starts of a series up to the horizon; throws RecurrenceError naming the line at fault. */
async function planStarts(template: Omit<SeriesTemplate, 'id' | 'endLocal'>, now: Date, settings: RecurrenceSettings): Promise<{ starts: string[]; horizon: string }> {
  const horizon = horizonFor(template.startLocal, template.timezone, now, settings.horizonDays);
  const starts = await expandOccurrences({
    lines: template.lines,
    timezone: template.timezone,
    startLocal: template.startLocal,
    horizonLocal: horizon,
    max: settings.maxOccurrences,
  });
  return { starts, horizon };
}

/** An occurrence's times: its local start and the first event's wall-clock length, in the event's zone. */
export function occurrenceTimes(recurrenceStart: string, template: Pick<SeriesTemplate, 'startLocal' | 'endLocal' | 'timezone'>): EventTimes {
  const zone = zoneOf(template.timezone) ?? zoneOf('UTC')!;
  const start = inZone(recurrenceStart, zone);
  const end = inZone(shiftLocal(template.endLocal, template.startLocal, recurrenceStart), zone);
  const times = { startLocal: start.local, endLocal: end.local, startUtc: start.utc, endUtc: end.utc };
  return { ...times, ...timeFormsOf(times, template.timezone) };
}

/** Makes a new event the first of a series and writes its other occurrences. */
export async function startSeries(repositories: Repositories, template: SeriesTemplate, starts: string[], horizon: string): Promise<void> {
  await repositories.series.create(template.id, template.lines, template.timezone, horizon, template.startLocal);
  const later = starts.filter((start) => start !== template.startLocal);
  await repositories.occurrenceCopies.insertOccurrences(
    template.id,
    later.map((start) => ({ recurrenceStart: start, times: occurrenceTimes(start, template) })),
  );
  // Every new occurrence has the first event's terms and status: its counted terms count them all.
  await repositories.terms.addToCounts(await repositories.events.countedTerms(template.id), later.length);
}

/**
 * Makes a series' stored events match `starts` after its rules or times changed: each occurrence
 * keeps its id when its RECURRENCE-ID (moved by the same wall-clock shift as the first event's start,
 * `previousStart` → the template's start) is still one of the starts; occurrences that follow the
 * series get the new times; exceptions keep their own; the others are deleted, and new starts get
 * new events. The first event (already written) only takes its new RECURRENCE-ID. `kept`: occurrences
 * the writer may not change (series-writes.ts), already marked as exceptions; one that no new start
 * holds leaves the series as a single event instead of being deleted.
 */
export async function syncOccurrences(
  repositories: Repositories,
  template: SeriesTemplate,
  starts: string[],
  previousStart: string,
  modified: { modified: string; modified_utc: string },
  kept: ReadonlySet<number> = new Set(),
): Promise<void> {
  const termsBefore = await repositories.series.termIds(template.id);
  const wanted = new Set(starts);
  const used = new Set<string>();
  const existing = await repositories.series.occurrences(template.id);
  const keyOf = (recurrenceStart: string) => (previousStart === template.startLocal ? recurrenceStart : shiftLocal(recurrenceStart, previousStart, template.startLocal));
  const staying: Array<{ row: (typeof existing)[number]; key: string }> = [];
  const removed: number[] = [];
  const leaving: number[] = [];
  for (const row of existing) {
    const key = row.id === template.id ? template.startLocal : keyOf(row.recurrenceStart);
    if (wanted.has(key) && !used.has(key)) {
      used.add(key);
      staying.push({ row, key });
    } else if (kept.has(row.id)) leaving.push(row.id);
    else removed.push(row.id);
  }
  await repositories.occurrenceWrites.deleteOccurrences(removed);
  await repositories.occurrenceWrites.detachOccurrences(leaving, modified);
  // Every RECURRENCE-ID moves by the same shift: moving them against its direction never lands one
  // on another's current value (they are unique within a series).
  const forward = naiveMs(template.startLocal) > naiveMs(previousStart);
  staying.sort((a, b) => (forward ? b.row.recurrenceStart.localeCompare(a.row.recurrenceStart) : a.row.recurrenceStart.localeCompare(b.row.recurrenceStart)));
  for (const { row, key } of staying) {
    await loopTurn();
    if (row.id === template.id || row.exception) {
      if (key !== row.recurrenceStart) await repositories.occurrenceWrites.moveOccurrence(row.id, key, undefined, undefined);
      continue;
    }
    const times = occurrenceTimes(key, template);
    // The UTC times and forms too: a new zone, already copied to the occurrence, leaves its local times as they were.
    if (key !== row.recurrenceStart || storedTimesText(times) !== row.storedTimes) {
      await repositories.occurrenceWrites.moveOccurrence(row.id, key, times, modified);
    }
  }
  const added = starts.filter((start) => !used.has(start));
  await repositories.occurrenceCopies.insertOccurrences(
    template.id,
    added.map((start) => ({ recurrenceStart: start, times: occurrenceTimes(start, template) })),
  );
  await repositories.terms.recount([...termsBefore, ...(await repositories.series.termIds(template.id))]);
}

/** Series extended per run of the rolling horizon: a small batch, so no run holds the database long. */
const EXTEND_BATCH = 20;

/**
 * The rolling horizon (docs/contract.md §14): stores the occurrences of the series furthest behind
 * (at most `EXTEND_BATCH` of them, each in its own transaction) up to today's horizon. Runs in the
 * background (main.ts, on a timer), so no request pays for it. A series whose rules would now exceed
 * RECURRENCE_MAX_OCCURRENCES beyond what it already has, or the expansion budget
 * (dates/recurrence-budget.ts), is left as it is and marked (SeriesRepository.markUnextendable), so
 * that later runs skip it until it is written again. Returns how many series grew.
 */
export async function extendHorizons(db: Knex, now: Date, settings: RecurrenceSettings): Promise<number> {
  const reader = new Repositories(db);
  // A day of slack: a series is extended about once a day, not on every run.
  const cutoff = naiveText(naiveMs(DateTime.fromJSDate(now, { zone: 'UTC' }).toFormat(STORAGE_FORMAT)) + (settings.horizonDays - 1) * 86_400_000);
  let extended = 0;
  for (const series of await reader.series.behind(cutoff, EXTEND_BATCH)) {
    const first = await reader.events.findById(series.id);
    if (!first) continue;
    const template: SeriesTemplate = { id: first.id, lines: series.rules, timezone: first.timezone, startLocal: first.startLocal, endLocal: first.endLocal };
    const stored = (await reader.series.occurrences(series.id)).length;
    let plan: { starts: string[]; horizon: string };
    try {
      plan = await planStarts(template, now, { ...settings, maxOccurrences: settings.maxOccurrences + stored });
    } catch (err) {
      if (!(err instanceof RecurrenceError)) throw err;
      // Past the expansion budget or RECURRENCE_MAX_OCCURRENCES, the same rules fail the same way on
      // every run: the series keeps what it has and is marked, and skipped until it is written again.
      await inWriteTransaction(db, (repositories) => repositories.series.markUnextendable(series, err.message));
      continue;
    }
    if (plan.horizon <= series.materialisedUntil) continue;
    await inWriteTransaction(db, async (repositories) => {
      // The plan was made outside the transaction: a series write (or another process extending it)
      // may have changed the series since. Then leave it to the next run rather than add the old
      // rules' occurrences.
      const current = await repositories.series.findLocked(series.id);
      const firstNow = await repositories.events.findById(series.id);
      const unchanged =
        current &&
        firstNow &&
        current.materialisedUntil === series.materialisedUntil &&
        current.timezone === series.timezone &&
        JSON.stringify(current.rules) === JSON.stringify(series.rules) &&
        firstNow.startLocal === first.startLocal &&
        firstNow.endLocal === first.endLocal &&
        firstNow.timezone === first.timezone;
      if (!unchanged) return;
      // Only what lies past what is stored: earlier occurrences (and their exceptions) stay as they are.
      const later = plan.starts.filter((start) => start > series.materialisedUntil);
      const known = new Set((await repositories.series.occurrences(series.id)).map((o) => o.recurrenceStart));
      const added = later.filter((start) => !known.has(start));
      await repositories.occurrenceCopies.insertOccurrences(
        series.id,
        added.map((start) => ({ recurrenceStart: start, times: occurrenceTimes(start, template) })),
      );
      await repositories.series.update(series.id, { materialisedUntil: plan.horizon });
      await repositories.terms.addToCounts(await repositories.events.countedTerms(series.id), added.length);
    });
    extended++;
  }
  return extended;
}
