import type { Knex } from 'knex';
import { engineOf } from './engine.js';

/** A value bound to a `?`: scalars only (mysql2 would expand an array or an object into SQL). */
export type BoundValue = string | number | boolean | null | Date | Buffer;

/** One SQL statement and its bound values. The text uses `?` placeholders only. */
export interface Statement {
  sql: string;
  bindings: readonly BoundValue[];
}

/**
 * The most characters (SQL text and string values, roughly) sent to MySQL in one round trip. Far
 * below the server's packet limit (`max_allowed_packet`: 16 MiB in MariaDB 10.11, 64 MiB in MySQL 8),
 * and small enough that mysql2 writes each trip's text in a few milliseconds of the event loop.
 */
const MOST_CHARS_PER_TRIP = 256 * 1024;

/**
 * Sends `statements` in order and answers, for each, how many rows it changed (or, for a `SELECT`,
 * returned).
 *
 * On MySQL the statements travel together, joined by `;`, in as few round trips as their size allows
 * (connections are opened with `multipleStatements`, db/knex.ts). Each round trip costs a write more
 * than the statement itself, on the service and on the server (docs/performance.md "What limits it"),
 * and a write's last statements need no answer before the next is sent. Values stay bound: mysql2
 * escapes them into the text, as for every other statement. The server stops at the first statement
 * that fails, and the error rejects the whole call; inside a transaction (where batches are sent) the
 * rollback then undoes the statements before it.
 *
 * On SQLite the statements run one after another: the driver runs in this process, with no round trip
 * to save.
 */
export async function sendTogether(db: Knex, statements: readonly Statement[]): Promise<number[]> {
  const counts: number[] = [];
  if (engineOf(db) === 'sqlite') {
    for (const { sql, bindings } of statements) counts.push(sqliteCount(await db.raw(sql, [...bindings])));
    return counts;
  }
  for (const trip of tripsOf(statements)) {
    const [results] = await db.raw(
      trip.map((s) => s.sql).join(';\n'),
      trip.flatMap((s) => s.bindings),
    );
    // One statement answers its result; several answer one result each.
    const each = trip.length === 1 ? [results] : (results as unknown[]);
    counts.push(...each.map(mysqlCount));
  }
  return counts;
}

/** Consecutive groups of statements, each within MOST_CHARS_PER_TRIP (a larger statement travels alone). */
function tripsOf(statements: readonly Statement[]): Statement[][] {
  const trips: Statement[][] = [];
  let trip: Statement[] = [];
  let chars = 0;
  for (const statement of statements) {
    const size = statement.sql.length + statement.bindings.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 8), 0);
    if (trip.length > 0 && chars + size > MOST_CHARS_PER_TRIP) {
      trips.push(trip);
      trip = [];
      chars = 0;
    }
    trip.push(statement);
    chars += size;
  }
  if (trip.length > 0) trips.push(trip);
  return trips;
}

/** mysql2's answer to one statement: rows (a SELECT) or a result header. */
function mysqlCount(result: unknown): number {
  return Array.isArray(result) ? result.length : Number((result as { affectedRows?: number }).affectedRows ?? 0);
}

/** better-sqlite3's answer through knex: rows (a SELECT) or `{ changes }`. */
function sqliteCount(result: unknown): number {
  return Array.isArray(result) ? result.length : Number((result as { changes?: number }).changes ?? 0);
}
