import assert from 'node:assert/strict';
import request from 'supertest';
import type { Knex } from 'knex';
import { createApp } from '../../../src/http/app.js';
import { createLogger } from '../../../src/core/logger.js';
import knexFactory from 'knex';
import { parseDatabaseUrl, SESSION_SQL_MODE } from '../../../src/db/knex.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../../helpers/database.js';
import { NS, createUser, testConfig } from '../../helpers/app.js';

const modes = (text: string) => new Set(text.split(',').filter(Boolean));

/**
 * The service works in its own SQL mode on every MySQL connection, whatever the server's default
 * (src/db/knex.ts `SESSION_SQL_MODE`, docs/mysql-and-cluster.md "SQL mode"). Here each connection
 * starts in a hostile mode, as on a server whose default it were, before the service prepares it:
 * backslashes are plain characters (`NO_BACKSLASH_ESCAPES`, which would turn the driver's escaping
 * into broken or different statements), values too long are cut short (no strict mode), double
 * quotes name columns. Only these connections' sessions change; the server's default stays.
 */
describe('the SQL mode of MySQL connections (src/db/knex.ts)', () => {
  let db: Knex | undefined;

  before(async function () {
    const { target } = await openTestDatabase();
    if (target.engine !== 'mysql') return this.skip(); // SQLite has no SQL modes.
    const { knexConfig } = parseDatabaseUrl(TEST_DATABASE_URL);
    type Done = (err: Error | null, conn: unknown) => void;
    type Conn = { query(sql: string, cb: (err: Error | null) => void): void };
    const pool = knexConfig.pool as { afterCreate(conn: Conn, done: Done): void };
    const prepare = pool.afterCreate;
    db = knexFactory({
      ...knexConfig,
      pool: {
        ...pool,
        afterCreate(conn: Conn, done: Done) {
          conn.query("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES,PIPES_AS_CONCAT'", (err) => (err ? done(err, conn) : prepare(conn, done)));
        },
      },
    });
  });

  after(async () => {
    await db?.destroy();
  });

  it('is the service mode on a connection that started in another', async () => {
    const [[row]] = await db!.raw('SELECT @@SESSION.sql_mode AS mode');
    assert.deepEqual(modes(row.mode), modes(SESSION_SQL_MODE));
  });

  it('keeps quotes and backslashes in stored text exactly (the driver escapes with backslashes)', async () => {
    const app = createApp({ config: testConfig(), db: db!, logger: createLogger('silent') });
    const http = () => request(app);
    const editor = await createUser('editor', 'sql-mode-editor');
    const title = String.raw`It's a \"quoted\" back\slash \\ night \' end`;
    const created = await http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send({ title, status: 'publish', start_date: '2031-02-03 19:00:00', end_date: '2031-02-03 21:00:00' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const read = await http().get(`${NS}/events/${created.body.id}`).expect(200);
    assert.equal(read.body.title, created.body.title);
    const stored = await db!('posts').where('id', created.body.id).first('title');
    assert.equal(stored.title, created.body.title);
    assert.ok(stored.title.includes('\\') && stored.title.includes("'"), `stored: ${stored.title}`);
  });

  it('refuses a value too long for its column instead of cutting it short (strict mode)', async () => {
    await db!.transaction(async (trx) => {
      await trx.raw('CREATE TEMPORARY TABLE sql_mode_probe (v VARCHAR(3))');
      await assert.rejects(trx('sql_mode_probe').insert({ v: 'abcd' }), (err: { code?: string }) => err.code === 'ER_DATA_TOO_LONG');
      await trx.raw('DROP TEMPORARY TABLE sql_mode_probe');
    });
  });
});
