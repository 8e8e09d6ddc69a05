import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The data version: a number that grows with every committed content write (db/transactions.ts).
 * Whatever was computed from the data while the version read N is still right while it reads N.
 *
 * The bump is the last statement of the write's transaction, so the new version and the new data
 * become visible at once, at the commit (one commit per write: on SQLite one synced commit, not two).
 * A reader that reads the version first and the data second never files a result older than the
 * version it read: if its version read saw the write, so does its data read, which comes later; if
 * not, the result is filed under the older version, which the commit has already left behind.
 *
 * The version is the sum of the `DATA_VERSION_SLOTS` rows (ids 1 to 16, migration 20261127000002),
 * and each write bumps one row chosen at random. The sum grows with every bump, as one row would.
 * The bump holds that row's lock until the commit, and being the transaction's last statement it
 * holds it only for the commit itself: concurrent writers wait on one another only when they draw the
 * same row (1 in 16), and on a Galera cluster writes through two nodes rarely write the same row at
 * once (two writes of one row from two nodes are a certification conflict, docs/contract.md §18;
 * the loser's whole transaction runs again, as after any conflict).
 */
export const DATA_VERSION_SLOTS = 16;

export async function readDataVersion(db: Knex): Promise<number> {
  const row = await db('data_version').sum({ version: 'version' }).first();
  return Number(row?.version ?? 0);
}

const pendingReads = new WeakMap<Knex, Promise<number>>();

/**
 * `readDataVersion` for reads that check what they remember (db/versioned-cache.ts): the requests
 * that ask in the same turn of the event loop share one statement. Under load a turn starts several
 * reads (http/read-turns.ts), and a remembered read costs little more than this statement, on the
 * service and on the database; each would otherwise send its own.
 *
 * Still exact: the statement is sent after the turn, when every request that joined it has arrived;
 * any write committed before any of them arrived is in its answer (a request joins only a statement
 * not yet sent). A transaction reads its own (it sees its uncommitted writes).
 */
export function sharedDataVersion(db: Knex): Promise<number> {
  if (db.isTransaction) return readDataVersion(db);
  let read = pendingReads.get(db);
  if (!read) {
    read = new Promise<number>((resolve, reject) =>
      setImmediate(() => {
        // Sent now: whoever asks from here on waits for the next one.
        pendingReads.delete(db);
        readDataVersion(db).then(resolve, reject);
      }),
    );
    pendingReads.set(db, read);
  }
  return read;
}

/**
 * Bumps one row, chosen at random. Writes call it as their transaction's last statement
 * (db/transactions.ts); migrations and tests that change rows behind the service's back call it alone.
 */
export async function bumpDataVersion(db: Knex): Promise<void> {
  // Stryker disable next-line all: any row in range gives the same sums; the spread only avoids waits and conflicts.
  const slot = crypto.randomInt(1, DATA_VERSION_SLOTS + 1);
  const bumped = await db('data_version').where('id', slot).increment('version', 1);
  // Before migration 20261127000002 (a migration that bumps) only row 1 exists.
  if (Number(bumped) === 0) await db('data_version').where('id', 1).increment('version', 1);
}
