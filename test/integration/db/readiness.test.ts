import assert from 'node:assert/strict';
import request from 'supertest';
import knexFactory, { type Knex } from 'knex';
import { createApp } from '../../../src/http/app.js';
import { createLogger } from '../../../src/core/logger.js';
import { parseDatabaseUrl } from '../../../src/db/knex.js';
import { retryPassingRefusals } from '../../../src/db/statement-retries.js';
import { READINESS_BUDGET_MS } from '../../../src/http/health.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../../helpers/database.js';
import { testConfig } from '../../helpers/app.js';
import { sleep, waitFor } from '../../helpers/wait.js';

/** A refusal the server itself raises, which the statement retries would send again (1205, as a failed `wsrep_sync_wait`). */
const REFUSED = "SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1205, MESSAGE_TEXT = 'Lock wait timeout exceeded; try restarting transaction'";
/** A statement that keeps its connection busy far past the probe's budget, as on a stalled node. */
const STALLED = 'SELECT SLEEP(20) AS name';

/**
 * `/readyz` asks its statement once and holds no pooled connection past its answer (issue #29,
 * src/db/readiness.ts). The probe's statement is swapped, below the statement retries, for one the
 * server refuses or one that stalls; the retries are installed as the service installs them.
 */
describe('the readiness probe asks once and lets go of its connection (src/db/readiness.ts)', () => {
  let db: Knex;
  let sent: string[];
  let swapTo: string | undefined;
  let app: ReturnType<typeof createApp>;

  before(async function () {
    const target = parseDatabaseUrl(TEST_DATABASE_URL);
    if (target.engine !== 'mysql') return this.skip(); // SQLite never refuses for a moment, nor runs a statement past its caller.
    await openTestDatabase(); // migrated
    db = knexFactory(target.knexConfig);
    // The stand-in for a joining node: the probe's statement is swapped before it reaches the server.
    const send = db.client.query.bind(db.client) as (connection: unknown, statement: { sql: string }) => Promise<unknown>;
    db.client.query = (connection: unknown, statement: { sql: string }) => {
      const probe = statement.sql.includes('knex_migrations');
      if (probe) sent.push(statement.sql);
      return send(connection, probe && swapTo ? { ...statement, sql: swapTo } : statement);
    };
    retryPassingRefusals(db.client);
    app = createApp({ config: testConfig(), db, logger: createLogger('silent') });
  });
  beforeEach(() => {
    sent = [];
    swapTo = undefined;
  });
  after(() => db?.destroy());

  const pool = () => db.client.pool as { numUsed(): number; numPendingAcquires(): number };
  const probe = () => request(app).get('/readyz');

  it('is ready on a database that answers, with one statement', async () => {
    const res = await probe();
    assert.deepEqual([res.status, res.body], [200, { status: 'ready' }]);
    assert.equal(sent.length, 1);
    assert.equal(pool().numUsed(), 0);
  });

  it('sends a refused statement once and answers 503 at once, though the retries would send it again for 10 s', async () => {
    swapTo = REFUSED;
    const started = Date.now();
    const res = await probe();
    const took = Date.now() - started;
    assert.equal(res.status, 503);
    assert.equal(res.body.reason, 'database unreachable');
    assert.equal(sent.length, 1, `sent ${sent.length} times`);
    assert.ok(took < 1000, `answered after ${took} ms`);
    // Nothing is sent later either. The pause is the point (kept, issue 49): a stretch of time in which
    // nothing may be sent (the retries would have sent again within it).
    await sleep(500);
    assert.equal(sent.length, 1);
    assert.equal(pool().numUsed(), 0);
  });

  it('answers 503 within its budget when the statement stalls, and its connection is free again when it answers', async () => {
    swapTo = STALLED;
    const started = Date.now();
    const res = await probe();
    const took = Date.now() - started;
    assert.equal(res.status, 503);
    assert.ok(took >= READINESS_BUDGET_MS - 300 && took <= READINESS_BUDGET_MS + 300, `answered after ${took} ms`);
    assert.equal(sent.length, 1);
    assert.deepEqual([pool().numUsed(), pool().numPendingAcquires()], [0, 0]);
    // The server stopped the statement (KILL QUERY): nothing of it is left running.
    swapTo = undefined;
    const running = await db.raw("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO = ? AND COMMAND = 'Query'", [STALLED]);
    assert.equal(Number((running as [Array<{ n: number }>])[0][0].n), 0);
    // The pool still serves: the next probe is ready.
    assert.equal((await probe()).status, 200);
  });

  it('gives back, marked unusable, a connection whose statement outlives the answer because its cancel cannot reach the server', async () => {
    swapTo = STALLED;
    const client = db.client as { cancelQuery(connection: unknown): Promise<unknown> };
    const cancel = client.cancelQuery;
    // A stalled network: the cancel's own connection never opens within the budget (a delay of fixed
    // time is the stand-in for it).
    let lateCancel: Promise<unknown> = Promise.resolve();
    client.cancelQuery = (connection) => (lateCancel = sleep(3000).then(() => cancel.call(client, connection)));
    try {
      const started = Date.now();
      const res = await probe();
      const took = Date.now() - started;
      assert.equal(res.status, 503);
      assert.ok(took <= READINESS_BUDGET_MS + 300, `answered after ${took} ms`);
      assert.equal(pool().numUsed(), 0, 'no connection is held past the answer');
      // The pool throws that connection away rather than handing it out: the next probe is ready.
      swapTo = undefined;
      assert.equal((await probe()).status, 200);
    } finally {
      client.cancelQuery = cancel;
      await lateCancel.catch(() => undefined); // the late cancel lands
    }
  });

  it('gives back a connection that only comes free after its answer, unused', async () => {
    // Every pooled connection taken (10, knex's pool for MySQL) by statements that outlast the budget.
    const holders = Array.from({ length: 10 }, () => Promise.resolve(db.raw('SELECT SLEEP(3)')));
    await waitFor(() => pool().numUsed() === 10, 'the ten statements to hold every connection');
    const started = Date.now();
    const res = await probe();
    const took = Date.now() - started;
    assert.equal(res.status, 503);
    assert.ok(took <= READINESS_BUDGET_MS + 300, `answered after ${took} ms`);
    await Promise.all(holders);
    await waitFor(() => pool().numUsed() === 0 && pool().numPendingAcquires() === 0, 'the late connection to come back to the pool');
    assert.deepEqual([pool().numUsed(), pool().numPendingAcquires(), sent.length], [0, 0, 0], 'the late connection ran no probe statement');
  });
});
