import type { Knex } from 'knex';
import { bumpDataVersion } from './data-version.js';
import { discardChangeLog, openChangeLog, writeChangeLog } from './change-log.js';
import { signalCommitted } from './commit-signal.js';
import { isPassingRefusal, isUniqueViolation } from './errors.js';

/** Errors after which the whole transaction was rolled back and may simply run again. */
function isRetryable(err: unknown): boolean {
  // A unique violation that no code path resolved is a concurrent writer that committed first: a new
  // attempt reads a fresh snapshot and sees its row.
  return isPassingRefusal(err) || isUniqueViolation(err);
}

/**
 * How often a write runs at most. On a Galera cluster writes through different nodes at once
 * conflict (docs/contract.md §18), and under load one write can lose several times in a row: eight
 * attempts answered 500 to 5 of 480 creates spread over three nodes (docs/mysql-and-cluster.md "Cluster figures").
 */
export const MAX_WRITE_ATTEMPTS = 20;

/**
 * The pause before attempt `attempt + 1`: random, up to a bound that doubles from 10 ms to 250 ms.
 * Also the pause between attempts of a statement outside a transaction (db/statement-retries.ts).
 */
export function pauseBefore(attempt: number): number {
  return Math.random() * Math.min(250, 5 * 2 ** attempt);
}

/**
 * Runs `work` in a transaction, again (up to MAX_WRITE_ATTEMPTS, after a growing random pause) when a
 * concurrent writer made it fail in a way a new attempt resolves. Every multi-table write goes
 * through here, so a failure half-way leaves nothing behind and concurrent writes never answer 500.
 * The records the work changed are written to the change log (change-log.ts, docs/contract.md §9),
 * then the data version grows (data-version.ts) as the transaction's last statement, so cached
 * lists and replies are recomputed from the commit on; one commit per write.
 */
export async function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await db.transaction(async (trx) => {
        openChangeLog(trx);
        try {
          const value = await work(trx);
          await writeChangeLog(trx);
          // Last: the row's lock is held for the commit only (data-version.ts).
          await bumpDataVersion(trx);
          return value;
        } finally {
          discardChangeLog(trx);
        }
      });
      // Committed: listeners in this process (the cache purger) look at the change feed now.
      signalCommitted(db);
      return value;
    } catch (err) {
      if (attempt >= MAX_WRITE_ATTEMPTS || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseBefore(attempt)));
    }
  }
}

/**
 * Runs `work` in a transaction, retried like `inTransaction`, for state that no cached reply and
 * no change feed shows (webhooks and their delivery log, docs/webhooks.md): no change log is written
 * and the data version does not move, so delivering a message never makes the service recompute the
 * calendar's replies. Also for reads that lock (db/committed-position.ts), which a deadlock may roll back.
 */
export async function inStateTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (err) {
      if (attempt >= MAX_WRITE_ATTEMPTS || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseBefore(attempt)));
    }
  }
}

/**
 * The handle a write runs on, which must be a transaction opened by `inTransaction`: repositories call
 * this in every write method, so no write can bypass the transaction and its data-version bump.
 */
export function requireTransaction(db: Knex): Knex.Transaction {
  if (!(db as Knex.Transaction).isTransaction) throw new Error('writes run inside inTransaction (db/transactions.ts)');
  return db as Knex.Transaction;
}
