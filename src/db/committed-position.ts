import type { Knex } from 'knex';
import { engineOf } from './engine.js';
import { isGaleraNode } from './galera.js';
import { inStateTransaction } from './transactions.js';

/**
 * The committed position: the highest change number such that every smaller one has committed or
 * rolled back (the commit order is explained at the top of db/change-log.ts), never below the purge
 * mark (the newest change may have been a purged tombstone). On MySQL it briefly holds writers back:
 * it waits for those that have taken numbers and delays new ones until it has read.
 *
 * On MySQL the read can be chosen as a deadlock's victim: a writer holding a write lock
 * (db/write-locks.ts) waits for its shared lock behind this read's exclusive one, while this read
 * waits for another writer that waits for that write lock. The read wrote nothing, so it simply runs
 * again (inStateTransaction), as a write would; inside a caller's transaction the caller's own
 * retries do that.
 */
export async function committedPosition(db: Knex): Promise<number> {
  // SQLite, and a Galera node (where numbers become visible in commit order).
  if (engineOf(db) !== 'mysql' || (await isGaleraNode(db))) return highest(db, await db('change_sequence').where('id', 1).first('purged'));
  const lockedRead = async (trx: Knex) => highest(trx, await trx('change_sequence').where('id', 1).forUpdate().first('purged'));
  if ((db as Knex.Transaction).isTransaction) return lockedRead(db);
  // A read-only transaction: it writes nothing, so it needs neither the change log nor a data-version bump.
  return inStateTransaction(db, lockedRead);
}

async function highest(handle: Knex, gate: { purged?: unknown } | undefined): Promise<number> {
  const row = await handle('changes').max({ top: 'seq' }).first();
  return Math.max(Number(row?.top ?? 0), Number(gate?.purged ?? 0));
}
