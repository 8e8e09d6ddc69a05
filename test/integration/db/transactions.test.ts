import assert from 'node:assert/strict';
import { inTransaction, MAX_WRITE_ATTEMPTS } from '../../../src/db/transactions.js';
import { openTestDatabase } from '../../helpers/database.js';

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
});
