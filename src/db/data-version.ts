import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The data version: a number that grows after every committed content write (db/transactions.ts).
 * Whatever was computed from the data while the version read N is still right while it reads N.
 *
 * The bump runs after the write's commit, as its own statement. So a reader that reads the version
 * first and the data second never files a result older than the version it read: a write its read
 * missed bumps the version afterwards. (Bumping inside the write's transaction would hold a lock on
 * the row until every write commits, serialising all writers on MySQL.)
 *
 * The version is the sum of the `DATA_VERSION_SLOTS` rows (ids 1 to 16, migration 20261127000002), and each process bumps one row of its own
 * choosing. The sum grows with every bump, as one row would, but processes on different nodes of a
 * Galera cluster rarely write the same row at once: two writes of one row from two nodes are a
 * certification conflict (docs/contract.md §18). On one server the choice changes nothing.
 */
export const DATA_VERSION_SLOTS = 16;

/** This process's row: chosen at random, so processes started at once spread over the rows. */
// Stryker disable next-line all: any row in range gives the same sums; the spread only avoids conflicts.
const OWN_SLOT = crypto.randomInt(1, DATA_VERSION_SLOTS + 1);

export async function readDataVersion(db: Knex): Promise<number> {
  const row = await db('data_version').sum({ version: 'version' }).first();
  return Number(row?.version ?? 0);
}

/**
 * Bumps this process's row. It runs outside the write's transaction, so on MySQL a bump lost to a
 * conflict or a deadlock is run again by the statement retries (db/statement-retries.ts).
 */
export async function bumpDataVersion(db: Knex): Promise<void> {
  const bumped = await db('data_version').where('id', OWN_SLOT).increment('version', 1);
  // Before migration 20261127000002 (a migration that bumps) only row 1 exists.
  if (Number(bumped) === 0) await db('data_version').where('id', 1).increment('version', 1);
}
