import type { Knex } from 'knex';
import type { Statement } from './statement-batch.js';

/**
 * Statements a write sends for their effect alone, held until the end of its transaction: inTransaction
 * (db/transactions.ts) sends them with the change log and the data-version bump, in one round trip on
 * MySQL (db/statement-batch.ts). Only for rows that nothing in the same transaction reads or writes
 * afterwards but through this queue (which keeps their order): the search index's trigram rows
 * (db/search-index.ts).
 */
const tails = new WeakMap<object, Statement[]>();

/** Opens a transaction's tail (inTransaction, before the work runs). */
export function openCommitTail(trx: Knex.Transaction): void {
  tails.set(trx, []);
}

/** Adds statements to the tail of `trx`, which must be a transaction opened by inTransaction. */
export function sendAtCommit(trx: Knex, statements: readonly Statement[]): void {
  const tail = tails.get(trx);
  if (!tail) throw new Error('statements are held for the commit inside inTransaction (db/transactions.ts)');
  tail.push(...statements);
}

/** The statements held so far; the tail is then closed (a later `sendAtCommit` is refused). */
export function closeCommitTail(trx: Knex.Transaction): Statement[] {
  const tail = tails.get(trx) ?? [];
  tails.delete(trx);
  return tail;
}
