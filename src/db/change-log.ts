import { loopTurn } from '../core/loop-turns.js';
import type { Knex } from 'knex';
import { formatUtc } from '../dates/storage.js';
import { engineOf } from './engine.js';
import { isGaleraNode } from './galera.js';

/**
 * The change log behind `GET /changes` (docs/contract.md §9). Every repository write method names the
 * records it changes (`noteChange`) on its transaction; `inTransaction` (db/transactions.ts) writes
 * them as the transaction's last statements, so no write can forget its change and a rolled-back
 * write leaves none.
 *
 * `changes` holds one row per record, replaced at each change (a feed page holds a record at most
 * once; the table stays bounded by the records plus the tombstones of deleted ones). The replacement
 * row takes a new number, `seq`, from the engine's auto-increment: numbers grow in the order writers
 * take them, without a lock that writers wait for, and are never reused.
 *
 * Commit order. Writers commit in any order on MySQL, so a reader that sees number 11 may not yet see
 * number 10 (its writer has not committed). The feed therefore reads only up to a *committed
 * position*: a number such that every smaller number has committed or rolled back. On MySQL writers
 * take a shared lock on the one `change_sequence` row just before taking their numbers, held until
 * their commit (shared locks do not wait for each other, so writers still commit together); a reader
 * of the committed position takes that row's exclusive lock, which waits until every writer holding
 * it has committed, and reads the highest number while no new writer can take one. SQLite runs one
 * writer at a time, so its highest number is always committed.
 *
 * On a Galera cluster row locks hold only on the node that takes them, so the shared lock above would
 * not keep a writer on another node from committing out of order. There every writer instead *writes*
 * the `change_sequence` row just before taking its numbers (`writes` + 1): on its own node the row's
 * lock, held until the commit, makes writers take numbers in commit order; across nodes two writers of
 * that row at once are a certification conflict, and the one certified second is rolled back and runs
 * again (db/transactions.ts), taking new, larger numbers. So numbers become visible in order on every
 * node, and the highest visible number is committed (docs/contract.md §18).
 */

export type ChangeType = 'event' | 'venue' | 'organizer' | 'category' | 'tag';

export const CHANGE_TYPES: readonly ChangeType[] = ['event', 'venue', 'organizer', 'category', 'tag'];

interface PendingChange {
  type: ChangeType;
  id: number;
  deleted: boolean;
}

const pendingOf = new WeakMap<object, Map<string, PendingChange>>();

/** Opens the change list of a transaction (inTransaction, before the work runs). */
export function openChangeLog(trx: Knex.Transaction): void {
  pendingOf.set(trx, new Map());
}

/**
 * Notes that a record changed in this transaction (`deleted`: it no longer exists). The last note of
 * a record wins. `trx` must be a transaction opened by inTransaction.
 */
export function noteChange(trx: Knex, type: ChangeType, id: number, deleted = false): void {
  const pending = pendingOf.get(trx);
  if (!pending) throw new Error('changes are noted inside inTransaction (db/transactions.ts)');
  pending.set(`${type}:${id}`, { type, id, deleted });
}

/**
 * Writes a transaction's noted changes, each record's row replaced by one with a new number. On
 * MySQL it first takes the shared lock that readers of the committed position wait for. Must be the
 * transaction's last statements.
 */
export async function writeChangeLog(trx: Knex.Transaction): Promise<void> {
  const pending = [...(pendingOf.get(trx)?.values() ?? [])];
  if (pending.length === 0) return;
  if (await isGaleraNode(trx)) await trx('change_sequence').where('id', 1).increment('writes', 1);
  else if (engineOf(trx) === 'mysql') await trx('change_sequence').where('id', 1).forShare().first('id');
  const changedUtc = formatUtc(new Date());
  // In parts of 250 rows: one statement for a whole import (cli import, thousands of records) would
  // pass SQLite's limit of 32,766 bound values, and a series write's thousand changes would hold the
  // loop in one stretch (a turn between parts, core/loop-turns.ts).
  for (let i = 0; i < pending.length; i += 250) {
    await loopTurn();
    const part = pending.slice(i, i + 250);
    const values = part.map(() => '(?, ?, ?, ?)').join(', ');
    const bindings = part.flatMap((change) => [change.type, change.id, change.deleted ? 1 : 0, changedUtc]);
    // REPLACE deletes the record's previous row and inserts a new one, which takes the next number.
    await trx.raw(`REPLACE INTO changes (type, record_id, deleted, changed_utc) VALUES ${values}`, bindings);
  }
}

/** Closes a transaction's change list once it has been written or the work failed: a later note is refused. */
export function discardChangeLog(trx: Knex.Transaction): void {
  pendingOf.delete(trx);
}
