import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { openDatabase, type SqliteSynchronous } from '../../../src/db/knex.js';
import { openDeliveryDatabase } from '../../../src/webhooks/delivery-database.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../../helpers/database.js';

interface SqliteConnection {
  pragma(sql: string, options: { simple: true }): unknown;
}

/** `PRAGMA synchronous` as the pooled connection itself reads it: 2 is FULL, 1 is NORMAL. */
async function synchronousOf(db: Knex): Promise<{ level: unknown; connection: unknown }> {
  const client = db.client as { acquireConnection(): Promise<SqliteConnection>; releaseConnection(conn: unknown): Promise<void> };
  const connection = await client.acquireConnection();
  try {
    return { level: connection.pragma('synchronous', { simple: true }), connection };
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Durable commits (issue #29, docs/settings.md "Commit durability"): SQLite syncs each commit to the
 * disk unless told otherwise; MySQL/MariaDB leave it to the server's InnoDB setting, which the test
 * reads and requires.
 */
describe('commit durability (src/db/knex.ts)', function () {
  this.timeout(30_000);
  const sqlite = !TEST_DATABASE_URL.startsWith('mysql:') && !TEST_DATABASE_URL.startsWith('mariadb:');
  let folder: string;

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tec-synchronous-'));
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  const levels: Array<[SqliteSynchronous | undefined, number, string]> = [
    [undefined, 2, 'FULL by default'],
    ['full', 2, 'FULL when asked'],
    ['normal', 1, 'NORMAL with SQLITE_SYNCHRONOUS=normal'],
  ];
  for (const [setting, expected, title] of levels) {
    it(`SQLite: every pooled connection commits with ${title}, in WAL mode`, async function () {
      if (!sqlite) this.skip();
      const file = path.join(folder, `${setting ?? 'default'}.sqlite`);
      const { db } = openDatabase(`sqlite:${file}`, setting ? { sqliteSynchronous: setting } : {});
      try {
        const first = await synchronousOf(db);
        assert.equal(first.level, expected);
        assert.equal((await db.raw('PRAGMA journal_mode'))[0].journal_mode, 'wal');
        // A connection the pool makes later (after the first one is gone) is set the same way.
        await db.destroy();
        db.initialize();
        const second = await synchronousOf(db);
        assert.notEqual(second.connection, first.connection, 'the pool made a new connection');
        assert.equal(second.level, expected);
      } finally {
        await db.destroy();
      }
    });
  }

  it("SQLite: the webhook delivery thread's connection commits with NORMAL, even under SQLITE_SYNCHRONOUS=full", async function () {
    if (!sqlite) this.skip();
    const file = path.join(folder, 'delivery.sqlite');
    // The request thread's connection of the same database, as the service opens it: FULL.
    const service = openDatabase(`sqlite:${file}`, { sqliteSynchronous: 'full' }).db;
    const delivery = openDeliveryDatabase({ databaseUrl: `sqlite:${file}`, dbTimeoutSeconds: 5 }).db;
    try {
      assert.equal((await synchronousOf(service)).level, 2);
      assert.equal((await synchronousOf(delivery)).level, 1);
      assert.equal((await delivery.raw('PRAGMA journal_mode'))[0].journal_mode, 'wal');
    } finally {
      await Promise.all([service.destroy(), delivery.destroy()]);
    }
  });

  it('MySQL/MariaDB: InnoDB writes and flushes its log at every commit (innodb_flush_log_at_trx_commit = 1)', async function () {
    if (sqlite) this.skip();
    const { db } = await openTestDatabase();
    // 1 (the server's default) is the only value with which a committed write survives a machine
    // crash; 0 and 2 may lose about a second of commits. The service cannot set it (a global of the
    // server): docs/settings.md "Commit durability" asks for it, and this test fails on a server that runs without it.
    const [rows] = (await db.raw('SELECT @@GLOBAL.innodb_flush_log_at_trx_commit AS flush')) as [Array<{ flush: number | string }>];
    assert.equal(Number(rows[0].flush), 1);
  });
});
