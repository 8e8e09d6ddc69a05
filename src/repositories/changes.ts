import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { CHANGE_TYPES, type ChangeType } from '../db/change-log.js';
import { committedPosition } from '../db/committed-position.js';
import { VersionedCache } from '../db/versioned-cache.js';

/** One row of the change log: a record's latest change (db/change-log.ts). */
export interface ChangeRow {
  type: ChangeType;
  recordId: number;
  seq: number;
  /** A tombstone: the record no longer exists. */
  deleted: boolean;
  changedUtc: string;
}

/** The feed's row: the highest number purged, the cursors' signing secret and their history. */
export interface FeedState {
  purged: number;
  secret: string;
  /** '' for the original history; a restore starts a new one (docs/durability.md "The change feed after a restore"). */
  history: string;
}

/** Every history a restore ended (smallest `upto` first), and the current one (ChangeRepository.histories). */
export interface Histories {
  current: string;
  fences: ReadonlyArray<{ history: string; upto: number }>;
}

/**
 * The history a position was given out in: the earliest history restored from a copy that already
 * held it (the fence with the smallest `upto` at or past it), else the current one. A change keeps
 * its history across restores, so a webhook message about it keeps its id (webhooks/messages.ts).
 */
export function historyAt(histories: Histories, position: number): string {
  return histories.fences.find((fence) => fence.upto >= position)?.history ?? histories.current;
}

/** What cursors are signed with: the secret and the history, which together never change while a service runs. */
export interface CursorKey {
  secret: string;
  history: string;
}

function toChangeRow(row: Record<string, unknown>): ChangeRow {
  return {
    type: row.type as ChangeType,
    recordId: Number(row.record_id),
    seq: Number(row.seq),
    deleted: Boolean(Number(row.deleted)),
    changedUtc: String(row.changed_utc),
  };
}

const COLUMNS = ['type', 'record_id', 'seq', 'deleted', 'changed_utc'];

/** The requests waiting for the committed position to pass theirs, and the one poll they share (records/change-feed.ts). */
export interface PositionWaits {
  waiters: Set<(position: number) => void>;
  timer: NodeJS.Timeout | undefined;
}

/**
 * What a reader of the change feed keeps between its reads (one per app, http/app.ts `createApp`; one
 * per purger and per webhook delivery): the cursors' key, read once, since only a restore changes it
 * and a restore runs while no service does; the committed position last read, kept while the data
 * version says no write has committed since, so that lists do not make writers wait (on MySQL
 * reading the position waits for the writers under way, db/change-log.ts); and the requests waiting
 * for a change, which share one poll of the position.
 */
export class ChangeFeedCache {
  key: CursorKey | undefined;
  readonly position: VersionedCache<number>;
  readonly waits: PositionWaits = { waiters: new Set(), timer: undefined };

  constructor(db: Knex) {
    this.position = new VersionedCache<number>(db, { maxEntries: 1 });
  }
}

/**
 * Reads of the change feed (docs/contract.md §9) and the purge of old tombstones. The changes
 * themselves are written by inTransaction (db/change-log.ts).
 */
export class ChangeRepository {
  /** @param cache what the reader keeps between reads; none: every read asks the database. */
  constructor(
    private readonly db: Knex,
    readonly cache?: ChangeFeedCache,
  ) {}

  async state(): Promise<FeedState> {
    // The migrations write the feed's row (20261123000050-51); it is never missing.
    const row = await this.db('change_sequence').where('id', 1).first('purged', 'secret', 'history');
    return { purged: Number(row.purged), secret: String(row.secret), history: String(row.history ?? '') };
  }

  /**
   * The cursors' signing secret and history: written by the migration and changed only by a restore,
   * which runs while no service does, so a reader with a cache reads them once.
   */
  async cursorKey(): Promise<CursorKey> {
    if (this.cache?.key) return this.cache.key;
    const { secret, history } = await this.state();
    if (this.cache) this.cache.key = { secret, history };
    return { secret, history };
  }

  /**
   * The position up to which cursors of an earlier history stay valid here (the position of the
   * copy this database was restored from), or undefined for a history this database does not
   * descend from.
   */
  async fence(history: string): Promise<number | undefined> {
    const row = await this.db('change_history_fences').where('history', history).first('upto');
    return row ? Number(row.upto) : undefined;
  }

  /**
   * The fences and the current history, read once for many positions (`historyAt`): they change only
   * with the history, at a restore, so a reader that holds them may keep them while the feed's
   * history (FeedState.history) stays the one they carry.
   */
  async histories(): Promise<Histories> {
    const fences = await this.db('change_history_fences').orderBy('upto').select('history', 'upto');
    return { current: (await this.state()).history, fences: fences.map((row) => ({ history: String(row.history), upto: Number(row.upto) })) };
  }

  /**
   * Starts a new history after a restore: cursors of the history so far stay valid up to the
   * committed position of the restored data (given out before the copy), later ones answer 410, and
   * new cursors carry the new history. Returns the fence and the new history.
   */
  async startNewHistory(): Promise<{ previous: string; upto: number; history: string }> {
    const trx = requireTransaction(this.db);
    const state = await trx('change_sequence').where('id', 1).forUpdate().first('history');
    const previous = String(state.history ?? '');
    const upto = await committedPosition(trx);
    await trx('change_history_fences').insert({ history: previous, upto }).onConflict('history').merge();
    // 12 base-36 characters, about 62 random bits: histories never collide.
    const history = BigInt(`0x${crypto.randomBytes(8).toString('hex')}`)
      .toString(36)
      .padStart(13, '0')
      .slice(-12);
    await trx('change_sequence').where('id', 1).update({ history });
    return { previous, upto, history };
  }

  /** The committed position now: every change up to it has committed (db/change-log.ts). */
  async position(): Promise<number> {
    return committedPosition(this.db);
  }

  /**
   * A committed position for the cursor a list sends: the one last read, while the data version says
   * no write has committed since (an older position is still a correct cursor, only a less recent
   * one), so lists do not make writers wait (db/change-log.ts).
   */
  async cachedPosition(): Promise<number> {
    if (!this.cache) return this.position();
    // Stryker disable next-line StringLiteral: the cache holds this one entry; any name does.
    return this.cache.position.get('position', () => this.position());
  }

  /**
   * Up to `limit` changes after `after` and up to `upTo` (a committed position), in sequence order,
   * read from an index: the `seq` index for every type, otherwise one `(type, seq)` range per type
   * asked for, merged.
   */
  async page(after: number, upTo: number, types: readonly ChangeType[], limit: number): Promise<ChangeRow[]> {
    const wanted = CHANGE_TYPES.filter((type) => types.includes(type));
    // Every type: one range of the `seq` index.
    if (wanted.length === CHANGE_TYPES.length) {
      return (await this.db('changes').where('seq', '>', after).where('seq', '<=', upTo).orderBy('seq').limit(limit).select(COLUMNS)).map(toChangeRow);
    }
    const rows: ChangeRow[] = [];
    for (const type of wanted) {
      const range = this.db('changes').where('type', type).where('seq', '>', after).where('seq', '<=', upTo);
      rows.push(...(await range.orderBy('seq').limit(limit).select(COLUMNS)).map(toChangeRow));
    }
    return rows.sort((a, b) => a.seq - b.seq).slice(0, limit);
  }

  /** The oldest tombstone not yet purged, if any. */
  async oldestTombstone(purged: number): Promise<ChangeRow | undefined> {
    const row = await this.db('changes').where('deleted', true).where('seq', '>', purged).orderBy('seq').first(COLUMNS);
    return row ? toChangeRow(row) : undefined;
  }

  /**
   * Forgets up to `batch` tombstones recorded before `cutoffUtc`, oldest first, and remembers the
   * highest number forgotten (cursors below it answer 410). Locks the feed's row first, as writers do
   * (db/change-log.ts), so it never deadlocks with them. Returns the new purge mark.
   */
  async purge(cutoffUtc: string, batch: number): Promise<number> {
    const trx = requireTransaction(this.db);
    const state = await trx('change_sequence').where('id', 1).forUpdate().first('purged');
    const purged = Number(state.purged);
    const candidates = await trx('changes').where('deleted', true).where('seq', '>', purged).orderBy('seq').limit(batch);
    let mark = purged;
    for (const row of candidates) {
      if (String(row.changed_utc) >= cutoffUtc) break;
      mark = Number(row.seq);
    }
    await trx('changes').where('deleted', true).where('seq', '>', purged).where('seq', '<=', mark).delete();
    await trx('change_sequence').where('id', 1).update({ purged: mark });
    return mark;
  }
}
