import type { Knex } from 'knex';
import { formatUtc } from '../dates/storage.js';

/**
 * The change log behind `GET /changes` (docs/contract.md §9). Every repository write method names the
 * records it changes (`noteChange`) on its transaction; `inTransaction` (db/transactions.ts) writes
 * them as the transaction's last statements, so no write can forget its change and a rolled-back
 * write leaves none.
 *
 * Commit order: the numbers come from one counter row, `change_sequence`, taken with
 * `UPDATE … SET value = value + n` right before the commit. The row lock lasts until the commit, so a
 * transaction that takes a number cannot commit before the one that took the previous number has
 * committed (or rolled back, giving its numbers back): sequence order is commit order, and whatever
 * number a reader sees, every smaller number is already visible. Writers still run their main work
 * concurrently; only these few statements and the commit are serialised. SQLite serialises writers
 * anyway.
 *
 * `changes` holds one row per record, updated in place to its latest change (a feed page holds a
 * record at most once; the table stays bounded by the records plus the tombstones of deleted ones).
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
 * Writes a transaction's noted changes: takes as many numbers from the counter as there are records
 * (the row lock, held until the commit, orders the commits) and stores each record's change under its
 * number. Must be the transaction's last statements.
 */
export async function writeChangeLog(trx: Knex.Transaction): Promise<void> {
  const pending = [...(pendingOf.get(trx)?.values() ?? [])];
  pendingOf.delete(trx);
  if (pending.length === 0) return;
  await trx('change_sequence').where('id', 1).increment('value', pending.length);
  const row = await trx('change_sequence').where('id', 1).first('value');
  if (!row) throw new Error('change_sequence has no row (migrations 20261123000050-51)');
  let seq = Number(row.value) - pending.length;
  const changedUtc = formatUtc(new Date());
  const rows = pending.map((change) => ({ type: change.type, record_id: change.id, seq: ++seq, deleted: change.deleted, changed_utc: changedUtc }));
  await trx('changes').insert(rows).onConflict(['type', 'record_id']).merge(['seq', 'deleted', 'changed_utc']);
}

/** Drops a transaction's noted changes (it failed and rolled back). */
export function discardChangeLog(trx: Knex.Transaction): void {
  pendingOf.delete(trx);
}
