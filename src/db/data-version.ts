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

/** The rows a transaction holds as write locks (db/write-locks.ts), smallest first. */
const heldSlots = new WeakMap<Knex, number[]>();

/**
 * Bumps these rows (ids 1 to DATA_VERSION_SLOTS) in id order, and keeps their locks until the
 * transaction ends: the write locks of db/write-locks.ts. A row this transaction already holds is not
 * written again. Each bump grows the sum like any other, so the version stays exact.
 */
export async function lockDataVersionSlots(trx: Knex.Transaction, slots: readonly number[]): Promise<void> {
  const held = heldSlots.get(trx) ?? [];
  const wanted = [...new Set(slots)].filter((slot) => !held.includes(slot)).sort((a, b) => a - b);
  // In id order, so two writes wanting the same rows wait for each other instead of deadlocking.
  for (const slot of wanted) await trx('data_version').where('id', slot).increment('version', 1);
  heldSlots.set(
    trx,
    [...held, ...wanted].sort((a, b) => a - b),
  );
}

/**
 * Bumps one row, chosen at random (or, in a transaction holding write locks, the first row it holds:
 * no other row's lock is taken then, which could wait on another lock holder). Writes call it as their
 * transaction's last statement (db/transactions.ts); migrations and tests that change rows behind the
 * service's back call it alone.
 */
export async function bumpDataVersion(db: Knex): Promise<void> {
  // Stryker disable next-line all: any row in range gives the same sums; the spread only avoids waits and conflicts.
  const slot = heldSlots.get(db)?.[0] ?? crypto.randomInt(1, DATA_VERSION_SLOTS + 1);
  const bumped = await db('data_version').where('id', slot).increment('version', 1);
  // Before migration 20261127000002 (a migration that bumps) only row 1 exists.
  if (Number(bumped) === 0) await db('data_version').where('id', 1).increment('version', 1);
}
