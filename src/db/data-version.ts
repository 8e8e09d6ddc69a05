import type { Knex } from 'knex';

/**
 * The data version: a number that grows after every committed content write (db/transactions.ts).
 * Whatever was computed from the data while the version read N is still right while it reads N.
 *
 * The bump runs after the write's commit, as its own statement. So a reader that reads the version
 * first and the data second never files a result older than the version it read: a write its read
 * missed bumps the version afterwards. (Bumping inside the write's transaction would hold a lock on
 * this one row until every write commits, serialising all writers on MySQL.)
 */
export async function readDataVersion(db: Knex): Promise<number> {
  const row = await db('data_version').where('id', 1).first('version');
  return row ? Number(row.version) : 0;
}

export async function bumpDataVersion(db: Knex): Promise<void> {
  await db('data_version').where('id', 1).increment('version', 1);
}
