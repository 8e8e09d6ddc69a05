import fs from 'node:fs';
import type { Knex } from 'knex';
import { openDatabase } from '../db/knex.js';
import { migrateLatest } from '../db/migrate.js';
import { migratedSqliteShape, shapeDifferences, sqliteSchemaShape } from '../db/schema-shape.js';
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

/** How many schema differences a refusal lists (the rest are counted). */
const LISTED_DIFFERENCES = 5;

/**
 * Refuses a file that is not a whole database of this service: one that fails SQLite's integrity
 * check, that has no migrations table with its migrations, or whose schema, once migrated, is not
 * the one the migrations create (a table, column or index missing or changed, a trigger or view
 * that is not ours: src/db/schema-shape.ts). Migrates the copy (a copy taken by an older version).
 * Whatever goes wrong reading the copy is a refusal naming the copy (`file`), never the target.
 */
async function checkOurs(db: Knex, file: string): Promise<void> {
  try {
    const [{ integrity_check: integrity } = { integrity_check: 'no answer' }] = (await db.raw('PRAGMA integrity_check')) as Array<{ integrity_check: string }>;
    if (integrity !== 'ok') throw new Refusal(`${file} fails PRAGMA integrity_check: ${integrity}`);
    const ours = (await db.schema.hasTable('knex_migrations')) && (await db('knex_migrations').where('name', '20261123000050_create_changes').first('id'));
    if (!ours) throw new Refusal(`${file} is not a database of this service (no migrations table with its migrations)`);
    await migrateLatest(db);
  } catch (err) {
    if (err instanceof Refusal) throw err;
    // The driver's words without the statement Knex puts before them (`… - SQLITE_NOTADB: …`).
    const words = String((err as Error).message ?? err)
      .split('\n')[0]
      .split(' - ')
      .pop();
    throw new Refusal(`${file} is not a database this service can restore: ${words}`);
  }
  const differences = shapeDifferences(await sqliteSchemaShape(db), await migratedSqliteShape());
  if (differences.length) {
    const more = differences.length > LISTED_DIFFERENCES ? `; and ${differences.length - LISTED_DIFFERENCES} more` : '';
    throw new Refusal(`${file} does not have the schema the migrations create: ${differences.slice(0, LISTED_DIFFERENCES).join('; ')}${more}`);
  }
}

/** Brings a database up to date and starts a new feed history; what `restored` does on MySQL. */
async function markRestored(db: Knex): Promise<RestoreResult> {
  await migrateLatest(db);
  const { previous } = await inWriteTransaction(db, (trx) => trx.changes.startNewHistory());
  await clearServiceLeases(db);
  return { previousHistory: previous, ...(await summarizeDatabase(db)) };
}

export async function restore(databaseUrl: string, copy: string): Promise<RestoreResult> {
  const target = sqliteFileOf(databaseUrl, 'restore');
  if (!fs.existsSync(copy)) throw new Refusal(`there is no file ${copy}`);
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

/**
 * On MySQL the migrations create no trigger, view, routine or event: a dump that brings one brings
 * code that would run inside the service's writes (the recipe's `--routines --triggers --events`
 * load whatever the dump holds). Refused before anything is written, naming the database.
 */
async function refuseForeignCode(db: Knex): Promise<void> {
  const [rows] = (await db.raw(
    `SELECT 'trigger' AS kind, TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()
     UNION ALL SELECT 'view', TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()
     UNION ALL SELECT LOWER(ROUTINE_TYPE), ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()
     UNION ALL SELECT 'event', EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()`,
  )) as [Array<{ kind: string; name: string }>];
  if (rows.length === 0) return;
  const [{ name: database }] = ((await db.raw('SELECT DATABASE() AS name')) as [Array<{ name: string }>])[0];
  throw new Refusal(
    `${database} holds code the migrations do not create: ${rows.map((row) => `${row.kind} ${row.name}`).join(', ')} (drop it, or load a dump of this service's database)`,
  );
}

/** `cli restored`: the step after loading a dump into a MySQL database (or after copying a SQLite file by hand). */
export async function restored(databaseUrl: string): Promise<RestoreResult> {
  const { db, target } = openDatabase(databaseUrl);
  try {
    if (target.engine === 'mysql') await refuseForeignCode(db);
    return await markRestored(db);
  } finally {
    await db.destroy();
  }
}
