import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { engineOf } from '../../../src/db/engine.js';
import { parseDatabaseUrl } from '../../../src/db/knex.js';
import { REFUSED_THEN_RAN, retryPassingRefusals, STATEMENT_RETRY_WINDOW_MS } from '../../../src/db/statement-retries.js';
import { TEST_DATABASE_URL } from '../../helpers/database.js';

/** A refusal the server itself raises, as a Galera node raises a failed `wsrep_sync_wait` (1205). */
const REFUSED = "SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1205, MESSAGE_TEXT = 'Lock wait timeout exceeded; try restarting transaction'";

/**
 * Statements outside a transaction run again after a passing refusal; statements inside one do not,
 * since the refusal rolled the transaction back (src/db/statement-retries.ts, docs/contract.md §18).
 */
describe('statements outside a transaction run again after a passing refusal (src/db/statement-retries.ts)', () => {
  describe('with a stand-in client', () => {
    const refusal = (errno: number, sqlMessage = 'refused') => Object.assign(new Error(sqlMessage), { errno, sqlMessage });

    function client(failures: unknown[]): { client: Knex.Client; calls: () => number; warnings: string[] } {
      let calls = 0;
      const warnings: string[] = [];
      const fake = {
        query: async () => {
          const failure = failures[calls++];
          if (failure) throw failure;
          return 'rows';
        },
        logger: { warn: (message: string) => warnings.push(message) },
      };
      return { client: fake as unknown as Knex.Client, calls: () => calls, warnings };
    }

    it('runs a refused statement again until it succeeds: sync waits, deadlocks, a node not ready, a commit cut off from the primary component', async () => {
      const notPrimary = refusal(1180, 'Error while appending streaming replication fragment(provider status: Not connected to Primary Component)');
      const stand = client([refusal(1205), refusal(1213), refusal(1047), notPrimary]);
      retryPassingRefusals(stand.client);
      assert.equal(await stand.client.query(undefined, 'select 1'), 'rows');
      assert.equal(stand.calls(), 5);
      assert.deepEqual(stand.warnings, [`statement ran again after 4 refusal(s), the last: 1180 ${notPrimary.sqlMessage}`]);
      assert.ok(stand.warnings[0].startsWith(REFUSED_THEN_RAN), 'the cluster tests count the lines by this beginning');
    });

    it('says nothing of a statement that ran the first time', async () => {
      const stand = client([]);
      retryPassingRefusals(stand.client);
      assert.equal(await stand.client.query(undefined, 'select 1'), 'rows');
      assert.deepEqual([stand.calls(), stand.warnings], [1, []]);
    });

    it('gives up with the last refusal once the window has passed', async () => {
      const stand = client(Array.from({ length: 1000 }, () => refusal(1205)));
      retryPassingRefusals(stand.client, 200);
      const started = Date.now();
      await assert.rejects(stand.client.query(undefined, 'select 1'), { errno: 1205 });
      const elapsed = Date.now() - started;
      assert.ok(elapsed <= 400, `gave up after ${elapsed} ms`);
      assert.ok(stand.calls() > 2 && stand.calls() < 1000, `${stand.calls()} attempts`);
    });

    it('does not run again a statement whose error another attempt would repeat', async () => {
      for (const failure of [refusal(1180, 'Got error 5 during COMMIT'), refusal(1062, 'Duplicate entry'), refusal(1053, 'Server shutdown in progress'), new Error('boom')]) {
        const stand = client([failure]);
        retryPassingRefusals(stand.client);
        await assert.rejects(stand.client.query(undefined, 'select 1'));
        assert.equal(stand.calls(), 1, String(failure));
      }
    });
  });

  describe('on MySQL, through knex', () => {
    let db: Knex;
    let sent: string[];

    before(function () {
      const target = parseDatabaseUrl(TEST_DATABASE_URL);
      if (target.engine !== 'mysql') return this.skip(); // SQLite never refuses for a moment: nothing is wrapped there.
      db = knexFactory(target.knexConfig);
      retryPassingRefusals(db.client, 300);
      db.on('query', (query: { sql: string }) => sent.push(query.sql));
    });
    beforeEach(() => {
      sent = [];
    });
    after(() => db?.destroy());

    it('sends a refused statement outside a transaction again, then fails with the refusal', async () => {
      await assert.rejects(db.raw(REFUSED), { errno: 1205 });
      assert.ok(sent.filter((sql) => sql === REFUSED).length > 1, `sent ${sent.length} times`);
    });

    it('sends a refused statement inside a transaction once: the whole transaction runs again instead', async () => {
      await assert.rejects(
        db.transaction((trx) => trx.raw(REFUSED)),
        { errno: 1205 },
      );
      assert.equal(sent.filter((sql) => sql === REFUSED).length, 1);
    });

    it('is installed on every MySQL database the service opens', async () => {
      const { openDatabase } = await import('../../../src/db/knex.js');
      const opened = openDatabase(TEST_DATABASE_URL).db;
      try {
        assert.equal(engineOf(opened), 'mysql');
        let count = 0;
        opened.on('query', (query: { sql: string }) => (count += query.sql === REFUSED ? 1 : 0));
        await assert.rejects(opened.raw(REFUSED), { errno: 1205 });
        assert.ok(count > 1, `sent ${count} times`);
      } finally {
        await opened.destroy();
      }
    }).timeout(STATEMENT_RETRY_WINDOW_MS + 10_000);
  });
});
