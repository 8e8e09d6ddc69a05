import fs from 'node:fs';
import { openDatabase, parseDatabaseUrl } from '../db/knex.js';
import { summarizeDatabase, type CopySummary } from '../repositories/copies.js';
import { besideTemp, removeIfPresent, replaceAtomically, sideFiles } from './files.js';

/**
 * `cli backup FILE [--force] [--json]` (docs/durability.md "Backup"): a consistent copy of the live
 * SQLite database, taken with SQLite's online backup API while the service goes on serving writes.
 */

/** A refusal: the command did nothing, for a reason the message gives (exit status 2). */
export class Refusal extends Error {}

/** Where the MySQL recipe is, for the refusals on MySQL. */
const MYSQL_RECIPE = 'docs/durability.md "MySQL and MariaDB" (mariadb-dump --single-transaction, then `npm run cli -- restored`)';

/** The SQLite file DATABASE_URL names; a refusal for MySQL and for an in-memory database. */
export function sqliteFileOf(databaseUrl: string, command: string): string {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.engine !== 'sqlite') throw new Refusal(`${command} copies SQLite files; ${target.description} is MySQL/MariaDB: use the recipe in ${MYSQL_RECIPE}`);
  const file = databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:') throw new Refusal(`${command} needs a database file; DATABASE_URL is sqlite::memory:`);
  return file;
}

interface SqliteConnection {
  backup(file: string, options: { progress(info: { totalPages: number; remainingPages: number }): number }): Promise<unknown>;
}

interface BackupResult extends CopySummary {
  file: string;
  bytes: number;
}

// The pages copied per step of the backup API: all of them. One step is one read transaction of the
// source, so the copy is the database as of one instant; WAL mode lets the service write meanwhile
// (smaller steps would restart from the beginning whenever the service commits between two of them).
const ALL_PAGES = 0x7fffffff;

export async function backup(databaseUrl: string, file: string, { force }: { force: boolean }): Promise<BackupResult> {
  const source = sqliteFileOf(databaseUrl, 'backup');
  if (!fs.existsSync(source)) throw new Error(`there is no database at ${source}`);
  if (fs.existsSync(file) && !force) throw new Refusal(`${file} exists: pass --force to replace it`);
  // Written beside FILE and renamed over it at the end: a failed backup leaves an older FILE whole.
  const temp = besideTemp(file, 'backup');
  try {
    // better-sqlite3's own connection, as knex opens it (busy timeout, WAL): its backup() drives the API.
    const { db } = openDatabase(databaseUrl);
    try {
      const connection = (await db.client.acquireConnection()) as SqliteConnection;
      try {
        await connection.backup(temp, { progress: () => ALL_PAGES });
      } finally {
        await db.client.releaseConnection(connection);
      }
    } finally {
      await db.destroy();
    }
    const summary = await summarizeCopy(temp);
    for (const side of sideFiles(file)) removeIfPresent(side);
    replaceAtomically(temp, file);
    return { file, bytes: fs.statSync(file).size, ...summary };
  } finally {
    removeIfPresent(temp);
    for (const side of sideFiles(temp)) removeIfPresent(side);
  }
}

/** What a copy holds, read from the copy itself (so it is exactly what was copied). */
async function summarizeCopy(file: string): Promise<CopySummary> {
  const { db } = openDatabase(`sqlite:${file}`);
  try {
    return await summarizeDatabase(db);
  } finally {
    await db.destroy();
  }
}

/** The lines `cli backup` prints without --json. */
export function describeBackup(result: BackupResult): string {
  return `copied to ${result.file} (${result.bytes} bytes): ${describeRecords(result)}; change feed position ${result.feed.position}`;
}

export function describeRecords({ records }: CopySummary): string {
  return Object.entries(records)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
}
