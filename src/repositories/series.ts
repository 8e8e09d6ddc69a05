import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { engineOf } from '../db/engine.js';
import { StaleVersion } from '../db/errors.js';
import { noteChange } from '../db/change-log.js';
import { chunks, searchedFieldsOf } from './posts.js';
import { indexSearchText } from '../db/search-index.js';
import type { EventTimes } from '../dates/event-times.js';
import { linkTimesOf, movesTimes, refreshLinkTimes } from './term-link-times.js';
import { loopTurn } from '../core/loop-turns.js';

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
  timezone: string;
  status: string;
  authorId: number | null;
  trashedFrom: string | null;
  version: number;
}

/** A new occurrence: the local start the rules give it, and its times. */
export interface NewOccurrence {
  recurrenceStart: string;
  times: EventTimes;
}

/** `posts` columns an occurrence copies from the first event (everything but its identity). */
const COPIED_POST_COLUMNS = ['status', 'author_id', 'title', 'description', 'excerpt', 'password', 'image_id', 'date', 'date_utc', 'modified', 'modified_utc', 'trashed_from'];
/** `events` columns an occurrence copies from the first event (everything but its times and identity). */
const COPIED_EVENT_COLUMNS = [
  'timezone',
  'all_day',
  'cost_raw',
  'cost_values',
  'cost_min',
  'cost_max',
  'currency_symbol',
  'currency_position',
  'currency_code',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'post_status',
  'post_date_utc',
  'post_modified_utc',
];

const LINK_TABLES = [
  { table: 'event_venues', column: 'venue_id', ordered: true },
  { table: 'event_organizers', column: 'organizer_id', ordered: true },
  { table: 'event_terms', column: 'term_id', ordered: false },
] as const;

/** Rows per multi-row INSERT: SQLite limits the bound variables of one statement. */
const INSERT_CHUNK = 100;

/** Rows per bulk UPDATE or DELETE of a series write: each statement stays short, so the loop gets its turns between them. */
const WRITE_CHUNK = 100;

/**
 * The chunks of `items`, in order, with a turn of the event loop before a chunk once the work has held
 * it for a while (loop-turns.ts): a series write over a thousand occurrences keeps the service
 * answering (docs/limits.md).
 */
async function* inTurns<T>(items: T[], size = WRITE_CHUNK): AsyncGenerator<T[]> {
  for (const part of chunks(items, size)) {
    await loopTurn();
    yield part;
  }
}

/**
 * All Knex for recurring series: the series rows, and the bulk writes of their occurrences (each an
 * ordinary event: posts + events rows, links copied from the first event), so that a two-year weekly
 * series is a handful of statements, not hundreds. Every occurrence written is noted for the change
 * feed (db/change-log.ts).
 */
export class SeriesRepository {
  constructor(private readonly db: Knex) {}

  async find(id: number): Promise<SeriesRow | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.db('event_series').where('id', id).first();
    return row ? { id: Number(row.id), rules: JSON.parse(row.rules), timezone: String(row.timezone), materialisedUntil: String(row.materialised_until) } : undefined;
  }

  /** The series row as committed now, locked until the commit on MySQL (SQLite write transactions are serial already). */
  async findLocked(id: number): Promise<SeriesRow | undefined> {
    const trx = requireTransaction(this.db);
    const query = trx('event_series').where('id', id);
    const row = await (engineOf(trx) === 'mysql' ? query.forUpdate() : query).first();
    return row ? { id: Number(row.id), rules: JSON.parse(row.rules), timezone: String(row.timezone), materialisedUntil: String(row.materialised_until) } : undefined;
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

  /** Every event of a series (the first included), by RECURRENCE-ID. */
  async occurrences(seriesId: number): Promise<OccurrenceRow[]> {
    const rows = await this.db('events as x')
      .join('posts as p', 'p.id', 'x.post_id')
      .where('x.series_id', seriesId)
      .orderBy('x.recurrence_start')
      .select('x.post_id', 'x.recurrence_start', 'x.exception', 'x.start_local', 'x.end_local', 'x.timezone', 'p.status', 'p.author_id', 'p.trashed_from', 'p.version');
    return rows.map((row: Record<string, unknown>) => ({
      id: Number(row.post_id),
      type: 'event' as const,
      recurrenceStart: String(row.recurrence_start),
      exception: Boolean(Number(row.exception)),
      startLocal: String(row.start_local),
      endLocal: String(row.end_local),
      timezone: String(row.timezone),
      status: String(row.status),
      authorId: row.author_id === null ? null : Number(row.author_id),
      trashedFrom: row.trashed_from === null ? null : String(row.trashed_from),
      version: Number(row.version),
    }));
  }

  /**
   * Inserts occurrences of a series as copies of its first event (content, flags, venues, organizers,
   * terms) with their own times and slugs (`{first slug}-{date}`, made unique among events). Returns
   * the new ids in the order given. Term counts are the caller's (TermRepository.recount).
   */
  async insertOccurrences(firstId: number, occurrences: NewOccurrence[]): Promise<number[]> {
    if (occurrences.length === 0) return [];
    const trx = requireTransaction(this.db);
    const post = await trx('posts')
      .where('id', firstId)
      .first(['slug', ...COPIED_POST_COLUMNS]);
    const event = await trx('events').where('post_id', firstId).first(COPIED_EVENT_COLUMNS);
    const slugs = await this.freeSlugs(
      String(post.slug),
      occurrences.map((o) => o.recurrenceStart),
    );
    const postColumns = Object.fromEntries(COPIED_POST_COLUMNS.map((c) => [c, post[c]]));
    const ids = new Map<string, number>();
    for await (const part of inTurns(
      occurrences.map((o, i) => ({ ...postColumns, type: 'event', slug: slugs[i] })),
      INSERT_CHUNK,
    )) {
      await trx('posts').insert(part);
      const found = await trx('posts')
        .where('type', 'event')
        .whereIn(
          'slug',
          part.map((row) => row.slug),
        )
        .select('id', 'slug');
      for (const row of found) ids.set(String(row.slug), Number(row.id));
    }
    const newIds = slugs.map((slug) => ids.get(slug)!);
    const eventRows = occurrences.map((o, i) => ({
      ...event,
      post_id: newIds[i],
      start_local: o.times.startLocal,
      end_local: o.times.endLocal,
      start_utc: o.times.startUtc,
      end_utc: o.times.endUtc,
      series_id: firstId,
      recurrence_start: o.recurrenceStart,
      exception: false,
      post_parent: firstId,
    }));
    for await (const part of inTurns(eventRows, INSERT_CHUNK)) await trx('events').insert(part);
    await indexSearchText(trx, newIds, searchedFieldsOf(post), true);
    await this.copyLinks(firstId, newIds, true);
    for (const id of newIds) noteChange(trx, 'event', id);
    return newIds;
  }

  /**
   * Replaces the venue, organizer and term links of `targetIds` with the first event's (`isNew`: they
   * have none yet).
   */
  async copyLinks(firstId: number, targetIds: number[], isNew = false): Promise<void> {
    if (targetIds.length === 0) return;
    const trx = requireTransaction(this.db);
    for (const { table, column, ordered } of LINK_TABLES) {
      if (!isNew) for await (const part of inTurns(targetIds)) await trx(table).whereIn('event_id', part).delete();
      const links = await trx(table)
        .where('event_id', firstId)
        .select(ordered ? [column, 'position'] : [column]);
      if (links.length === 0) continue;
      // Term links carry their own event's times (term-link-times.ts), not the first event's.
      const rows = targetIds.flatMap((id) => links.map((link: Record<string, unknown>) => ({ ...link, event_id: id, ...(table === 'event_terms' ? linkTimesOf(trx, id) : {}) })));
      for await (const part of inTurns(rows, INSERT_CHUNK * 2)) await trx(table).insert(part);
    }
    for (const id of targetIds) noteChange(trx, 'event', id);
  }

  /**
   * Writes `posts` and `events` columns to several occurrences at once (a change of the whole
   * series), growing each one's version; the events' copies of the post columns follow.
   */
  async copyColumns(targetIds: number[], postColumns: Record<string, unknown>, eventColumns: Record<string, unknown>): Promise<void> {
    if (targetIds.length === 0) return;
    const trx = requireTransaction(this.db);
    const copies: Record<string, unknown> = {};
    if (postColumns.status !== undefined) copies.post_status = postColumns.status;
    if (postColumns.date_utc !== undefined) copies.post_date_utc = postColumns.date_utc;
    if (postColumns.modified_utc !== undefined) copies.post_modified_utc = postColumns.modified_utc;
    for await (const part of inTurns(targetIds)) {
      await trx('posts')
        .whereIn('id', part)
        .update({ ...postColumns, version: trx.raw('version + 1') });
      await indexSearchText(trx, part, searchedFieldsOf(postColumns));
      if (Object.keys({ ...eventColumns, ...copies }).length)
        await trx('events')
          .whereIn('post_id', part)
          .update({ ...eventColumns, ...copies });
      if (movesTimes(eventColumns)) await refreshLinkTimes(trx, part);
    }
    for (const id of targetIds) noteChange(trx, 'event', id);
  }

  /** Gives an occurrence a new RECURRENCE-ID and, unless it keeps its own, new times. */
  async moveOccurrence(id: number, recurrenceStart: string, times: EventTimes | undefined, modified: { modified: string; modified_utc: string } | undefined): Promise<void> {
    const trx = requireTransaction(this.db);
    const columns: Record<string, unknown> = { recurrence_start: recurrenceStart };
    if (times) Object.assign(columns, { start_local: times.startLocal, end_local: times.endLocal, start_utc: times.startUtc, end_utc: times.endUtc });
    if (modified) columns.post_modified_utc = modified.modified_utc;
    await trx('events').where('post_id', id).update(columns);
    if (times) await refreshLinkTimes(trx, [id]);
    if (modified)
      await trx('posts')
        .where('id', id)
        .update({ ...modified, version: trx.raw('version + 1') });
    noteChange(trx, 'event', id);
  }

  /** Marks an occurrence as edited on its own (an exception) or not. */
  async markException(id: number, exception: boolean): Promise<void> {
    await this.markExceptions([id], exception);
  }

  /** Marks occurrences as edited on their own (exceptions) or not. */
  async markExceptions(ids: number[], exception: boolean): Promise<void> {
    const trx = requireTransaction(this.db);
    for await (const part of inTurns(ids)) await trx('events').whereIn('post_id', part).update({ exception });
  }

  /**
   * Takes occurrences out of their series, as they are otherwise: each becomes a single event (no
   * series, RECURRENCE-ID or parent), with a new version and `modified` (its record's `series_id` and
   * `recurrence` change).
   */
  async detachOccurrences(ids: number[], modified: { modified: string; modified_utc: string }): Promise<void> {
    if (ids.length === 0) return;
    const trx = requireTransaction(this.db);
    for await (const part of inTurns(ids)) {
      await trx('events')
        .whereIn('post_id', part)
        .update({ series_id: null, recurrence_start: null, exception: false, post_parent: null, post_modified_utc: modified.modified_utc });
      await trx('posts')
        .whereIn('id', part)
        .update({ ...modified, version: trx.raw('version + 1') });
    }
    for (const id of ids) noteChange(trx, 'event', id);
  }

  /** Forgets a series whose first event was deleted for good (its occurrences are gone or detached). */
  async forget(id: number): Promise<void> {
    await requireTransaction(this.db)('event_series').where('id', id).delete();
  }

  /** Moves occurrences into another series (a split): new series id, parent, RECURRENCE-IDs kept. */
  async moveToSeries(ids: number[], seriesId: number): Promise<void> {
    const trx = requireTransaction(this.db);
    for await (const part of inTurns(ids)) {
      await trx('events')
        .whereIn('post_id', part)
        .update({ series_id: seriesId, post_parent: trx.raw('case when post_id = ? then null else ? end', [seriesId, seriesId]) });
    }
    for (const id of ids) noteChange(trx, 'event', id);
  }

  /** Deletes occurrences for good (their links go with them), leaving tombstones in the change feed. */
  async deleteOccurrences(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const trx = requireTransaction(this.db);
    for await (const part of inTurns(ids)) await trx('posts').whereIn('id', part).delete();
    for (const id of ids) noteChange(trx, 'event', id, true);
  }

  /** Moves occurrences to the trash, remembering each one's status. */
  async trashOccurrences(ids: number[], modified: { modified: string; modified_utc: string }): Promise<void> {
    if (ids.length === 0) return;
    const trx = requireTransaction(this.db);
    for await (const part of inTurns(ids)) {
      await trx('posts')
        .whereIn('id', part)
        .whereNot('status', 'trash')
        .update({ ...modified, trashed_from: trx.ref('status'), status: 'trash', version: trx.raw('version + 1') });
      await trx('events').whereIn('post_id', part).update({ post_status: 'trash', post_modified_utc: modified.modified_utc });
    }
    for (const id of ids) noteChange(trx, 'event', id);
  }

  /**
   * Marks every event of a series as modified now (a new version, a later `modified_utc`, a change in
   * the feed): their records show the series' rules, which changed.
   */
  async touchAll(seriesId: number, modified: { modified: string; modified_utc: string }): Promise<void> {
    const trx = requireTransaction(this.db);
    const ids = (await trx('events').where('series_id', seriesId).pluck('post_id')).map(Number);
    for await (const part of inTurns(ids)) {
      await trx('posts')
        .whereIn('id', part)
        .update({ ...modified, version: trx.raw('version + 1') });
      await trx('events').whereIn('post_id', part).update({ post_modified_utc: modified.modified_utc });
    }
    for (const id of ids) noteChange(trx, 'event', id);
  }

  /**
   * Fails with StaleVersion unless the event is still at `expected` (an If-Match on a write that
   * changes it among others; docs/contract.md §10). On MySQL the read locks the row until the commit.
   */
  async expectVersion(id: number, expected: number | undefined): Promise<void> {
    if (expected === undefined) return;
    const trx = requireTransaction(this.db);
    const query = trx('posts').where('id', id);
    const row = await (engineOf(trx) === 'mysql' ? query.forUpdate() : query).first('version');
    if (!row || Number(row.version) !== expected) throw new StaleVersion(id);
  }

  /** Takes an event out of its series: it becomes a single event. */
  async detach(id: number): Promise<void> {
    const trx = requireTransaction(this.db);
    await trx('events').where('post_id', id).update({ series_id: null, recurrence_start: null, exception: false, post_parent: null });
    noteChange(trx, 'event', id);
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
    return rows.map((row: Record<string, unknown>) => ({
      id: Number(row.id),
      rules: JSON.parse(String(row.rules)),
      timezone: String(row.timezone),
      materialisedUntil: String(row.materialised_until),
    }));
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

  /**
   * Slugs for new occurrences: `{base}-{YYYY-MM-DD}` (with `-HHMMSS` when the series has several
   * occurrences that day), then `-2`, `-3`, … where an event already has it. A concurrent create
   * taking one first makes the insert fail on the unique slug, and the transaction runs again.
   */
  private async freeSlugs(base: string, starts: string[]): Promise<string[]> {
    const perDay = new Map<string, number>();
    for (const start of starts) perDay.set(start.slice(0, 10), (perDay.get(start.slice(0, 10)) ?? 0) + 1);
    const wanted = starts.map((start) => `${base}-${start.slice(0, 10)}${perDay.get(start.slice(0, 10))! > 1 ? `-${start.slice(11).replace(/:/g, '')}` : ''}`.slice(0, 200));
    const taken = new Set<string>();
    for (const part of chunks(wanted)) for (const slug of await this.db('posts').where('type', 'event').whereIn('slug', part).pluck('slug')) taken.add(String(slug));
    const out: string[] = [];
    for (const slug of wanted) {
      let candidate = slug;
      for (let n = 2; taken.has(candidate); n++) {
        candidate = `${slug}-${n}`;
        if (!taken.has(candidate) && (await this.db('posts').where({ type: 'event', slug: candidate }).first('id'))) taken.add(candidate);
      }
      taken.add(candidate);
      out.push(candidate);
    }
    return out;
  }
}
