import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../../src/db/knex.js';
import { migrateLatest } from '../../../src/db/migrate.js';
import { inTransaction, MAX_WRITE_ATTEMPTS } from '../../../src/db/transactions.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../../helpers/database.js';

/** A write that loses to a concurrent one runs again, up to a bound (src/db/transactions.ts, docs/contract.md §18). */
describe('write transactions run again after a conflict (src/db/transactions.ts)', () => {
  const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });

  it('runs a write again after deadlocks until it succeeds', async () => {
    const { db } = await openTestDatabase();
    let attempts = 0;
    const result = await inTransaction(db, async () => {
      attempts++;
      if (attempts < 4) throw deadlock();
      return 'done';
    });
    assert.deepEqual([result, attempts], ['done', 4]);
  });

  it(`gives up after ${MAX_WRITE_ATTEMPTS} attempts, with the last error`, async function () {
    this.timeout(20_000);
    const { db } = await openTestDatabase();
    let attempts = 0;
    await assert.rejects(
      inTransaction(db, async () => {
        attempts++;
        throw deadlock();
      }),
      { errno: 1213 },
    );
    assert.equal(attempts, MAX_WRITE_ATTEMPTS);
  });

  it('does not run again after an error a new attempt would not resolve', async () => {
    const { db } = await openTestDatabase();
    let attempts = 0;
    await assert.rejects(
      inTransaction(db, async () => {
        attempts++;
        throw new Error('bad input');
      }),
      /bad input/,
    );
    assert.equal(attempts, 1);
  });

  it('runs a write again when another process wrote the same SQLite file since it began reading', async function () {
    if (!TEST_DATABASE_URL.startsWith('sqlite:')) this.skip();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tec-busy-'));
    const first = openDatabase(`sqlite:${path.join(dir, 'events.sqlite')}`).db;
    const second = openDatabase(`sqlite:${path.join(dir, 'events.sqlite')}`).db;
    try {
      await migrateLatest(first);
      let attempts = 0;
      await inTransaction(first, async (trx) => {
        attempts++;
        await trx('service_leases').select();
        // Another process (a `cli` command, a second service) commits between this read and the write below.
        if (attempts === 1) await second('service_leases').insert({ holder: 'other process', renewed_ms: 1 });
        await trx('service_leases').insert({ holder: `this process, attempt ${attempts}`, renewed_ms: 2 });
      });
      assert.equal(attempts, 2, 'the first attempt failed with SQLITE_BUSY and ran again');
      const holders = (await first('service_leases').select('holder').orderBy('holder')).map((row) => row.holder);
      assert.deepEqual(holders, ['other process', 'this process, attempt 2']);
    } finally {
      await first.destroy();
      await second.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
