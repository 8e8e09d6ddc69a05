import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { engineOf } from '../db/engine.js';
import { StaleVersion } from '../db/errors.js';
import { noteChange } from '../db/change-log.js';
import type { EventTimes } from '../dates/event-times.js';
import { timeColumnsOf } from './event-rows.js';
import { refreshLinkTimes } from './term-link-times.js';
import { inTurns } from './write-chunks.js';
import { unindexSearchText } from '../db/search-index.js';
import { namedRenderedTexts, releaseRenderedTexts } from '../db/rendered-texts.js';

/**
 * Changes to the events of a series in bulk: their RECURRENCE-IDs and exceptions, taking them out of
 * their series or into another, trashing and deleting them, new versions when the series' rules
 * change, and the If-Match check of a series write. Each statement covers a chunk of occurrences
 * (write-chunks.ts); every event written is noted for the change feed (db/change-log.ts).
 */
export class OccurrenceWriteRepository {
  constructor(private readonly db: Knex) {}

  /** Gives an occurrence a new RECURRENCE-ID and, unless it keeps its own, new times. */
  async moveOccurrence(id: number, recurrenceStart: string, times: EventTimes | undefined, modified: { modified: string; modified_utc: string } | undefined): Promise<void> {
    const trx = requireTransaction(this.db);
    const columns: Record<string, unknown> = { recurrence_start: recurrenceStart };
    if (times) Object.assign(columns, timeColumnsOf(times));
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
    // MySQL's search texts no other event names go with them (db/search-index.ts).
    await unindexSearchText(trx, ids);
    // Their rendered texts no other post names go with them too (db/rendered-texts.ts).
    const texts = await namedRenderedTexts(trx, 'posts', ids);
    for await (const part of inTurns(ids)) await trx('posts').whereIn('id', part).delete();
    await releaseRenderedTexts(trx, 'posts', texts);
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
}
