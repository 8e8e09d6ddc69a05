import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Engine } from './engine.js';
import { GALERA_READ_SETTING, saysWsrepOn, WSREP_ON_QUERY, type WsrepRows } from './galera.js';
import { retryPassingRefusals } from './statement-retries.js';
import { registerSqliteFunctions, type SqliteFunctions } from './sql-functions.js';

/** Where a DATABASE_URL points, parsed once. */
export interface DatabaseTarget {
  engine: Engine;
  /** A human description for logs: the file, or host/database (never the password). */
  description: string;
  knexConfig: Knex.Config;
}

interface DatabaseOptions {
  /**
   * Connecting to the server, or waiting for a free pooled connection, fails after this many
   * milliseconds (DB_TIMEOUT): an unreachable database then answers 503 instead of hanging requests.
   */
  timeoutMs?: number;
  /** Where knex's own warnings go (e.g. failed connection attempts); the console by default. */
  log?: { warn(message: string): void; error(message: string): void };
  /**
   * SQLite's `synchronous` setting (SQLITE_SYNCHRONOUS): `full`, the default, syncs the write-ahead
   * log to the disk at every commit, so an acknowledged write survives a power loss or an operating
   * system crash; `normal` syncs only at checkpoints, faster, and a machine crash may then roll back
   * the last commits (never corrupt the file). See docs/settings.md "Commit durability".
   */
  sqliteSynchronous?: SqliteSynchronous;
  /**
   * SQLite: the connection leaves checkpoints of the write-ahead log to a thread of its own
   * (db/wal-checkpointer.ts), which the caller starts: a commit never copies the log into the file.
   */
  checkpointsElsewhere?: boolean;
}

export type SqliteSynchronous = 'full' | 'normal';

/**
 * Parses DATABASE_URL: `sqlite:PATH`, `sqlite::memory:` or `mysql://user:pass@host:port/db`.
 * All per-engine tuning lives here so both engines return the same values to the repositories.
 */
export function parseDatabaseUrl(databaseUrl: string, { timeoutMs = 5000, sqliteSynchronous = 'full', checkpointsElsewhere = false }: DatabaseOptions = {}): DatabaseTarget {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    if (filename === '') throw new Error('DATABASE_URL sqlite: needs a path or :memory:');
    return {
      engine: 'sqlite',
      description: `sqlite ${filename}`,
      knexConfig: {
        client: 'better-sqlite3',
        connection: { filename },
        useNullAsDefault: true,
        // better-sqlite3 is synchronous: one connection serialises writes without SQLITE_BUSY, and an
        // in-memory database must stay on a single connection to stay the same database.
        pool: {
          min: 1,
          max: 1,
          afterCreate(conn: SqliteFunctions & { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
            registerSqliteFunctions(conn);
            if (filename !== ':memory:') conn.pragma('journal_mode = WAL');
            conn.pragma('foreign_keys = ON');
            conn.pragma('busy_timeout = 5000');
            // Durable by default (docs/settings.md "Commit durability"): in WAL mode FULL syncs the log
            // at each commit, so a 201 the service sent is on the disk whatever happens next.
            conn.pragma(`synchronous = ${sqliteSynchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
            // 4 MB of page cache (better-sqlite3 builds SQLite with 16 MB), which also bounds the
            // memory a sort takes before it spills to a temporary file: the resident peak of a whole
            // benchmark run fell by about 10 MB (docs/performance.md "Memory"); pages not cached here
            // are read from the operating system's file cache.
            conn.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
            if (checkpointsElsewhere) conn.pragma('wal_autocheckpoint = 0');
            reusePreparedStatements(conn as unknown as PreparingConnection);
            done(null, conn);
          },
        },
      },
    };
  }
  if (databaseUrl.startsWith('mysql://') || databaseUrl.startsWith('mariadb://')) {
    const url = new URL(databaseUrl.replace(/^mariadb:/, 'mysql:'));
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (database === '') throw new Error('DATABASE_URL mysql:// needs a database name');
    return {
      engine: 'mysql',
      description: `mysql ${url.hostname}:${url.port || 3306}/${database}`,
      knexConfig: {
        client: 'mysql2',
        connection: {
          host: url.hostname,
          port: Number(url.port || 3306),
          user: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          database,
          charset: 'utf8mb4',
          // Dates travel as 'YYYY-MM-DD HH:MM:SS' strings in UTC, decimals as numbers: the same values
          // SQLite returns.
          timezone: 'Z',
          dateStrings: true,
          decimalNumbers: true,
          supportBigNumbers: true,
          connectTimeout: timeoutMs,
        },
        pool: {
          min: 0,
          max: 10,
          afterCreate(conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) {
            prepareMysqlConnection(conn).then(
              () => done(null, conn),
              (err: Error) => done(err, conn),
            );
          },
        },
        acquireConnectionTimeout: timeoutMs,
      },
    };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or mysql://, got "${databaseUrl.split(':')[0]}:..."`);
}

interface MysqlConnection {
  query(sql: string, cb: (err: Error | null, rows?: unknown) => void): void;
}

/**
 * The SQL mode every connection of the service works in, whatever the server's default
 * (docs/mysql-and-cluster.md "SQL mode"). Strict: a value too long for its column is refused (a 400
 * naming the field), never cut short. No `NO_BACKSLASH_ESCAPES`: the driver escapes the values it
 * writes into statements with backslashes, which that mode would read as plain characters. No
 * `ANSI_QUOTES`, `PIPES_AS_CONCAT` or `ONLY_FULL_GROUP_BY`: the statements are written and tested
 * without them. Every mode named here exists on MySQL 5.7 and 8 and on MariaDB.
 */
export const SESSION_SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/**
 * Every MySQL connection works in UTC and in the service's SQL mode (one statement). On a Galera
 * node it also waits, before each read, until the node has applied every commit the cluster
 * certified before the read (docs/contract.md §18): a write answered through one node is then seen
 * through every other right after.
 */
async function prepareMysqlConnection(conn: MysqlConnection): Promise<void> {
  const query = (sql: string) => new Promise<unknown>((resolve, reject) => conn.query(sql, (err, rows) => (err ? reject(err) : resolve(rows))));
  // optimizer_search_depth 0: the server picks how deep to search join orders. Its default (62) tries
  // every order, and a search of several words joins about 20 tables (db/search-index.ts): MariaDB
  // then spent longer than a request's timeout choosing a plan for a 4-word search.
  await query(`SET time_zone = '+00:00', sql_mode = '${SESSION_SQL_MODE}', optimizer_search_depth = 0`);
  if (saysWsrepOn((await query(WSREP_ON_QUERY)) as WsrepRows)) await query(GALERA_READ_SETTING);
}

/** SQLite's page cache per connection, in KiB (see afterCreate above). */
const SQLITE_CACHE_KIB = 4000;

interface PreparingConnection {
  prepare(sql: string): unknown;
}

/** Prepared statements kept per SQLite connection (most recently used last). */
const STATEMENTS_KEPT = 256;

/**
 * Characters of SQL the kept statements may have in all. SQLite holds each prepared statement's
 * program outside V8's heap, about 30 bytes per character of its SQL (130 KB for a 2,900-character
 * event read): 128 Ki characters is about 4 MB. The statements the service sends again and again take
 * about 105 Ki characters. Reads by a list of ids send one text whatever the list's length
 * (db/id-lists.ts `whereIdIn`); with one placeholder per id, 256 lengths took the resident peak up by
 * about 10 MB (docs/performance.md "Memory").
 */
const STATEMENT_CHARS_KEPT = 131_072;

/**
 * Knex asks better-sqlite3 to prepare every statement anew, and preparing costs as much as running
 * a primary-key lookup. The service sends the same few hundred statements (with different bindings)
 * again and again, so the connection keeps the prepared ones and hands them back, the least recently
 * used going first past `STATEMENTS_KEPT` statements or `STATEMENT_CHARS_KEPT` characters of SQL.
 * knex only ever runs a statement to completion (`all`/`run`) before the next one starts, so sharing
 * is safe.
 */
export function reusePreparedStatements(conn: PreparingConnection, limits = { statements: STATEMENTS_KEPT, chars: STATEMENT_CHARS_KEPT }): void {
  const prepare = conn.prepare.bind(conn);
  // Weighed by the length of their SQL; one longer than the whole budget is prepared each time.
  const kept = new LRUCache<string, object>({ max: limits.statements, maxSize: limits.chars, sizeCalculation: (_statement, sql) => Math.max(1, sql.length) });
  conn.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement === undefined) {
      statement = prepare(sql) as object;
      kept.set(sql, statement);
    }
    return statement;
  };
}

/** Opens the database (creating the folder of a SQLite file on first start). */
export function openDatabase(databaseUrl: string, options: DatabaseOptions = {}): { db: Knex; target: DatabaseTarget } {
  const target = parseDatabaseUrl(databaseUrl, options);
  if (target.engine === 'sqlite') {
    const filename = (target.knexConfig.connection as { filename: string }).filename;
    if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  }
  const log = options.log && {
    warn: (message: unknown) => options.log?.warn(String(message)),
    error: (message: unknown) => options.log?.error(String(message)),
    deprecate: (message: unknown) => options.log?.warn(String(message)),
    debug: () => undefined,
  };
  const db = knexFactory({ ...target.knexConfig, ...(log && { log }) });
  // SQLite never refuses a statement for a moment; a MySQL server (above all a Galera node) may.
  if (target.engine === 'mysql') retryPassingRefusals(db.client);
  return { db, target };
}
