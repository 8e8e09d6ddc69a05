import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { engineOf } from '../db/engine.js';
import { noteChange } from '../db/change-log.js';
import { chunks } from './posts.js';
import type { EventTimes } from '../dates/event-times.js';
import { TIME_FORM_COLUMNS, timeFormsIn } from './event-rows.js';

/** A recurring series (docs/contract.md §14), named by its first event. */
export interface SeriesRow {
  id: number;
  /** RFC 5545 content lines, as stored. */
  rules: string[];
  timezone: string;
  /** Occurrences exist up to this local start (inclusive). */
  materialisedUntil: string;
}

/** What the series writes need of each of its events (the facts of the post rules included: policies/posts.ts). */
export interface OccurrenceRow {
  id: number;
  type: 'event';
  recurrenceStart: string;
  exception: boolean;
  startLocal: string;
  endLocal: string;
  /**
   * Its stored times and their forms as one text (`JSON.stringify` of an `EventTimes`, NULL forms as
   * null), to compare with the times a series' rules give it: a zone changed by a copy of the
   * series' columns leaves the local times alone but not the UTC ones nor the forms.
   */
  storedTimes: string;
  timezone: string;
  status: string;
  authorId: number | null;
  trashedFrom: string | null;
  version: number;
}

/** `OccurrenceRow.storedTimes` of some times: the same text for the same times and forms. */
export function storedTimesText(times: { [K in keyof EventTimes]: unknown }): string {
  return JSON.stringify(
    [times.startLocal, times.endLocal, times.startUtc, times.endUtc, times.zoneAbbr, times.startIso, times.endIso, times.startDay, times.endDay].map((value) => value ?? null),
  );
}

/**
 * The rows of recurring series (`event_series`): creating, changing and ending a series, the
 * bookkeeping of the rolling horizon, and what is read of a series' events as a whole. The writes of
 * its occurrences are occurrence-copies.ts (materialising them from the first event) and
 * occurrence-writes.ts (changing them in bulk).
 */
function seriesRowOf(row: Record<string, unknown>): SeriesRow {
  return { id: Number(row.id), rules: JSON.parse(String(row.rules)), timezone: String(row.timezone), materialisedUntil: String(row.materialised_until) };
}

export class SeriesRepository {
  constructor(private readonly db: Knex) {}

  async find(id: number): Promise<SeriesRow | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.db('event_series').where('id', id).first();
    return row ? seriesRowOf(row) : undefined;
  }

  /** Where a series starts: its zone and its first event's RECURRENCE-ID (what its rules are expanded from), for the public pages. */
  async origin(id: number): Promise<{ timezone: string; startLocal: string } | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.db('event_series as s').join('events as x', 'x.post_id', 's.id').where('s.id', id).first('s.timezone', 'x.recurrence_start');
    return row && row.recurrence_start !== null ? { timezone: String(row.timezone), startLocal: String(row.recurrence_start) } : undefined;
  }

  /** The series row as committed now, locked until the commit on MySQL (SQLite write transactions are serial already). */
  async findLocked(id: number): Promise<SeriesRow | undefined> {
    const trx = requireTransaction(this.db);
    const query = trx('event_series').where('id', id);
    const row = await (engineOf(trx) === 'mysql' ? query.forUpdate() : query).first();
    return row ? seriesRowOf(row) : undefined;
  }

  /** Makes an event the first of a new series (its own RECURRENCE-ID is its start). */
  async create(firstId: number, rules: string[], timezone: string, materialisedUntil: string, firstStartLocal: string): Promise<void> {
    const trx = requireTransaction(this.db);
    await trx('event_series').insert({ id: firstId, rules: JSON.stringify(rules), timezone, materialised_until: materialisedUntil });
    await trx('events').where('post_id', firstId).update({ series_id: firstId, recurrence_start: firstStartLocal, exception: false, post_parent: null });
    noteChange(trx, 'event', firstId);
  }

  async update(id: number, changes: Partial<Pick<SeriesRow, 'rules' | 'timezone' | 'materialisedUntil'>>): Promise<void> {
    const trx = requireTransaction(this.db);
    const columns: Record<string, unknown> = {};
    if (changes.rules) columns.rules = JSON.stringify(changes.rules);
    if (changes.timezone) columns.timezone = changes.timezone;
    if (changes.materialisedUntil) columns.materialised_until = changes.materialisedUntil;
    // A write of the rules or the horizon gives the rolling horizon another try (markUnextendable).
    if (Object.keys(columns).length)
      await trx('event_series')
        .where('id', id)
        .update({ ...columns, horizon_error: null });
  }

  /** Ends a series: its first event becomes a single event (the other occurrences are deleted by the caller). */
  async dissolve(id: number): Promise<void> {
    const trx = requireTransaction(this.db);
    await trx('event_series').where('id', id).delete();
    await trx('events').where('post_id', id).update({ series_id: null, recurrence_start: null, exception: false });
    noteChange(trx, 'event', id);
  }

  /** Forgets a series whose first event was deleted for good (its occurrences are gone or detached). */
  async forget(id: number): Promise<void> {
    await requireTransaction(this.db)('event_series').where('id', id).delete();
  }

  /** Every event of a series (the first included), by RECURRENCE-ID. */
  async occurrences(seriesId: number): Promise<OccurrenceRow[]> {
    const rows = await this.db('events as x')
      .join('posts as p', 'p.id', 'x.post_id')
      .where('x.series_id', seriesId)
      .orderBy('x.recurrence_start')
      .select(
        'x.post_id',
        'x.recurrence_start',
        'x.exception',
        'x.start_local',
        'x.end_local',
        'x.start_utc',
        'x.end_utc',
        ...Object.values(TIME_FORM_COLUMNS).map((column) => `x.${column}`),
        'x.timezone',
        'p.status',
        'p.author_id',
        'p.trashed_from',
        'p.version',
      );
    return rows.map((row: Record<string, unknown>) => ({
      id: Number(row.post_id),
      type: 'event' as const,
      recurrenceStart: String(row.recurrence_start),
      exception: Boolean(Number(row.exception)),
      startLocal: String(row.start_local),
      endLocal: String(row.end_local),
      storedTimes: storedTimesText({
        startLocal: String(row.start_local),
        endLocal: String(row.end_local),
        startUtc: String(row.start_utc),
        endUtc: String(row.end_utc),
        ...timeFormsIn(row),
      }),
      timezone: String(row.timezone),
      status: String(row.status),
      authorId: row.author_id === null ? null : Number(row.author_id),
      trashedFrom: row.trashed_from === null ? null : String(row.trashed_from),
      version: Number(row.version),
    }));
  }

  /** How many exceptions (occurrences after the first changed on their own) each of some series has; series without any are left out. */
  async exceptionCounts(seriesIds: number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for (const part of chunks([...new Set(seriesIds)])) {
      const rows = await this.exceptionsOf(part).groupBy('series_id').select('series_id', this.db.raw('count(*) as n'));
      for (const row of rows) counts.set(Number(row.series_id), Number(row.n));
    }
    return counts;
  }

  /**
   * The exceptions of some series (their RECURRENCE-ID overrides in iCalendar, docs/contract.md §14)
   * as `[seriesId, eventId]`, each series' by RECURRENCE-ID. The caller bounds them (exceptionCounts).
   */
  async exceptionIds(seriesIds: number[]): Promise<Array<[number, number]>> {
    const out: Array<[number, number]> = [];
    for (const part of chunks([...new Set(seriesIds)])) {
      const rows = await this.exceptionsOf(part).orderBy(['series_id', 'recurrence_start']).select('series_id', 'post_id');
      for (const row of rows) out.push([Number(row.series_id), Number(row.post_id)]);
    }
    return out;
  }

  private exceptionsOf(seriesIds: number[]) {
    return this.db('events').whereIn('series_id', seriesIds).where('exception', true).whereRaw('post_id <> series_id');
  }

  /** The end (UTC) of the last stored occurrence of each series. */
  async lastEndUtc(seriesIds: number[]): Promise<Map<number, string>> {
    const ends = new Map<number, string>();
    for (const part of chunks([...new Set(seriesIds)])) {
      for (const row of await this.db('events').whereIn('series_id', part).groupBy('series_id').select('series_id', this.db.raw('max(end_utc) as last_end'))) {
        ends.set(Number(row.series_id), String(row.last_end));
      }
    }
    return ends;
  }

  /** The terms of every event of a series (for recounting them after a series write). */
  async termIds(seriesId: number): Promise<number[]> {
    const rows = await this.db('event_terms as et').join('events as x', 'x.post_id', 'et.event_id').where('x.series_id', seriesId).distinct('et.term_id');
    return rows.map((row: Record<string, unknown>) => Number(row.term_id));
  }

  /**
   * Series furthest behind the rolling horizon (materialised before `before`), at most `limit`;
   * not those the extension could not extend (markUnextendable) until they are written again.
   */
  async behind(before: string, limit: number): Promise<SeriesRow[]> {
    const rows = await this.db('event_series').where('materialised_until', '<', before).whereNull('horizon_error').orderBy('materialised_until').limit(limit);
    return rows.map(seriesRowOf);
  }

  /**
   * Records why the rolling horizon cannot extend a series, unless the series was written since it
   * was read as `series` (then the next run tries its new rules).
   */
  async markUnextendable(series: SeriesRow, reason: string): Promise<void> {
    const trx = requireTransaction(this.db);
    const marked = await trx('event_series')
      .where({ id: series.id, materialised_until: series.materialisedUntil, rules: JSON.stringify(series.rules) })
      .whereNull('horizon_error')
      .update({ horizon_error: reason });
    if (!marked) return;
    // The first event's record now shows it (recurrence_horizon_error): a new version, a change in the feed.
    await trx('posts')
      .where('id', series.id)
      .update({ version: trx.raw('version + 1') });
    noteChange(trx, 'event', series.id);
  }
}
