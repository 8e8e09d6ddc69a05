import type { Knex } from 'knex';
import { engineOf } from '../db/engine.js';

/** The wrong guesses of one client on one record within the current window. */
interface GuessWindow {
  failures: number;
  /** When the window ends (milliseconds since the epoch); unknown when the count alone was asked for. */
  windowEnds?: number;
}

/**
 * Wrong record-password guesses per (record, client), shared by every process of the database
 * (migration 20261130000100). Each method is one statement outside any transaction: counting is
 * bookkeeping, not content (no data version to bump), and it must hold even when the read it guards
 * fails afterwards.
 */
export class PasswordGuessRepository {
  constructor(private readonly db: Knex) {}

  /**
   * Counts one wrong guess, in one atomic statement, and returns the window's count with it: a window
   * that ended starts again at 1 and ends `windowMs` from now, otherwise the count grows and the end
   * stays. Concurrent guesses from any process each see a distinct count.
   *
   * SQLite returns the row (`RETURNING`). MySQL has no `RETURNING`: the count comes back through
   * `LAST_INSERT_ID(expr)`, which an `ON DUPLICATE KEY UPDATE` sets for its own connection (MySQL's
   * documented way to read a value an upsert wrote); a fresh row sets nothing, so 0 there means 1.
   * MySQL evaluates the assignments left to right, so `failures` is assigned before `window_ends`
   * changes; the window's end is not returned there.
   */
  async countFailure(recordId: number, client: string, now: number, windowMs: number): Promise<GuessWindow> {
    const ends = now + windowMs;
    if (engineOf(this.db) === 'sqlite') {
      const rows = (await this.db.raw(
        `insert into password_guesses (record_id, client, failures, window_ends) values (?, ?, 1, ?)
         on conflict (record_id, client) do update set
           failures = case when window_ends <= ? then 1 else failures + 1 end,
           window_ends = case when window_ends <= ? then excluded.window_ends else window_ends end
         returning failures, window_ends`,
        [recordId, client, ends, now, now],
      )) as Array<{ failures: number; window_ends: number }>;
      return { failures: Number(rows[0].failures), windowEnds: Number(rows[0].window_ends) };
    }
    const [result] = (await this.db.raw(
      `insert into password_guesses (record_id, client, failures, window_ends) values (?, ?, 1, ?)
       on duplicate key update
         failures = last_insert_id(if(window_ends <= ?, 1, failures + 1)),
         window_ends = if(window_ends <= ?, ?, window_ends)`,
      [recordId, client, ends, now, now, ends],
    )) as [{ insertId: number }];
    return { failures: Math.max(1, Number(result.insertId)) };
  }

  /** The client's window on the record, if one is running at `now`. */
  async window(recordId: number, client: string, now: number): Promise<GuessWindow | undefined> {
    const row = await this.db('password_guesses').where({ record_id: recordId, client }).where('window_ends', '>', now).first('failures', 'window_ends');
    return row ? { failures: Number(row.failures), windowEnds: Number(row.window_ends) } : undefined;
  }

  /** Deletes up to `limit` rows whose window has ended, oldest first, in one statement; returns how many. */
  async prune(now: number, limit: number): Promise<number> {
    if (engineOf(this.db) === 'mysql') {
      const [result] = (await this.db.raw('delete from password_guesses where window_ends <= ? order by window_ends limit ?', [now, limit])) as [{ affectedRows: number }];
      return Number(result.affectedRows);
    }
    // SQLite is built without DELETE … LIMIT; the rowids of the oldest rows say which.
    return this.db('password_guesses')
      .whereIn('rowid', (q) => q.select('rowid').from('password_guesses').where('window_ends', '<=', now).orderBy('window_ends').limit(limit))
      .delete();
  }
}
