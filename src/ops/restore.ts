import fs from 'node:fs';
import type { Knex } from 'knex';
import { openDatabase } from '../db/knex.js';
import { migrateLatest } from '../db/migrate.js';
import { liveLeases, LEASE_VALID_MS } from '../db/service-lease.js';
import { clearServiceLeases, summarizeDatabase, type CopySummary } from '../repositories/copies.js';
import { inWriteTransaction } from '../repositories/registry.js';
import { Refusal, sqliteFileOf } from './backup.js';
import { besideTemp, removeIfPresent, replaceAtomically, sideFiles } from './files.js';

/**
 * `cli restore FILE` and `cli restored` (docs/durability.md "Restore"). A restore puts a copy in
 * place of DATABASE_URL's SQLite file while no service runs on it, and starts a new history of the
 * change feed, so that a cursor the replaced database gave out after the copy answers 410.
 */

export interface RestoreResult extends CopySummary {
  /** The history whose cursors stay valid up to `feed.position`. */
  previousHistory: string;
}

/** Refuses while a service holds a fresh lease on the database file (db/service-lease.ts). */
async function refuseWhileServed(file: string): Promise<void> {
  if (!fs.existsSync(file)) return;
  const { db } = openDatabase(`sqlite:${file}`);
  try {
    if (!(await db.schema.hasTable('service_leases'))) return;
    const leases = await liveLeases(db);
    if (leases.length) {
      const holders = leases.map((lease) => lease.holder).join(', ');
      throw new Refusal(
        `a service is running on ${file} (${holders}): stop it first. A service that was killed frees the database ${LEASE_VALID_MS / 1000} s after its last renewal.`,
      );
    }
  } finally {
    await db.destroy();
  }
}

/** Refuses a file that is not a whole database of this service. */
async function checkOurs(db: Knex, file: string): Promise<void> {
  const [{ integrity_check: integrity } = { integrity_check: 'no answer' }] = (await db.raw('PRAGMA integrity_check')) as Array<{ integrity_check: string }>;
  if (integrity !== 'ok') throw new Refusal(`${file} fails PRAGMA integrity_check: ${integrity}`);
  const ours = (await db.schema.hasTable('knex_migrations')) && (await db('knex_migrations').where('name', '20261123000050_create_changes').first('id'));
  if (!ours) throw new Refusal(`${file} is not a database of this service (no migrations table with its migrations)`);
}

/** Brings a database up to date and starts a new feed history; what `restored` does on MySQL. */
export async function markRestored(db: Knex): Promise<RestoreResult> {
  await migrateLatest(db);
  const { previous } = await inWriteTransaction(db, (trx) => trx.changes.startNewHistory());
  await clearServiceLeases(db);
  return { previousHistory: previous, ...(await summarizeDatabase(db)) };
}

export async function restore(databaseUrl: string, copy: string): Promise<RestoreResult> {
  const target = sqliteFileOf(databaseUrl, 'restore');
  if (!fs.existsSync(copy)) throw new Error(`there is no file ${copy}`);
  await refuseWhileServed(target);
  // Prepared beside the database under another name, then renamed over it in one step.
  const temp = besideTemp(target, 'restore');
  try {
    fs.copyFileSync(copy, temp);
    const { db } = openDatabase(`sqlite:${temp}`);
    let result: RestoreResult;
    try {
      await checkOurs(db, copy);
      result = await markRestored(db);
      // Everything into the file itself: the WAL is not part of what gets renamed.
      await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
    } finally {
      await db.destroy();
    }
    // Checked again just before the replacement, to narrow the window for a service starting meanwhile.
    await refuseWhileServed(target);
    // The replaced database's WAL and shared memory would be read as the new file's: remove them first.
    for (const side of sideFiles(target)) removeIfPresent(side);
    replaceAtomically(temp, target);
    return result;
  } finally {
    removeIfPresent(temp);
    for (const side of sideFiles(temp)) removeIfPresent(side);
  }
}

/** `cli restored`: the step after loading a dump into a MySQL database (or after copying a SQLite file by hand). */
export async function restored(databaseUrl: string): Promise<RestoreResult> {
  const { db } = openDatabase(databaseUrl);
  try {
    return await markRestored(db);
  } finally {
    await db.destroy();
  }
}
