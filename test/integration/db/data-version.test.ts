import assert from 'node:assert/strict';
import { bumpDataVersion, DATA_VERSION_SLOTS, readDataVersion } from '../../../src/db/data-version.js';
import { noteChange } from '../../../src/db/change-log.js';
import { inTransaction } from '../../../src/db/transactions.js';
import { openTestDatabase, statementsDuring } from '../../helpers/database.js';

/**
 * The data version is the sum of several rows, one bumped by each process (src/db/data-version.ts,
 * docs/contract.md §18): it must grow with every bump, whichever row a process bumps, and never go back.
 */
describe('the data version over several rows (src/db/data-version.ts)', () => {
  it('has one row per slot, and the version is their sum', async () => {
    const { db } = await openTestDatabase();
    const rows = await db('data_version').orderBy('id').select('id', 'version');
    assert.deepEqual(
      rows.map((row) => Number(row.id)),
      Array.from({ length: DATA_VERSION_SLOTS }, (_, i) => i + 1),
    );
    assert.equal(
      await readDataVersion(db),
      rows.reduce((sum, row) => sum + Number(row.version), 0),
    );
  });

  it('grows by one with each bump, also when another process bumps another row', async () => {
    const { db } = await openTestDatabase();
    const before = await readDataVersion(db);
    await bumpDataVersion(db);
    assert.equal(await readDataVersion(db), before + 1);
    // Another process's row (whichever this process did not pick, it is one of the slots).
    await db('data_version').where('id', DATA_VERSION_SLOTS).increment('version', 1);
    await db('data_version').where('id', 1).increment('version', 1);
    assert.equal(await readDataVersion(db), before + 3);
  });

  it('grows with a write, inside its transaction: one commit, and nothing when the write fails', async () => {
    const { db } = await openTestDatabase();
    const before = await readDataVersion(db);
    const statements = await statementsDuring(db, () => inTransaction(db, async (trx) => trx('change_sequence').where('id', 1).first('id')));
    assert.equal(await readDataVersion(db), before + 1);
    const bump = statements.findIndex((sql) => /update\W+data_version\W/i.test(sql));
    const commit = statements.findIndex((sql) => /^commit/i.test(sql));
    assert.ok(bump >= 0 && commit === bump + 1, `the bump is the last statement before the commit: ${statements.join(' | ')}`);
    assert.equal(statements.filter((sql) => /^commit/i.test(sql)).length, 1);
    await assert.rejects(
      inTransaction(db, async () => {
        throw new Error('bad input');
      }),
      /bad input/,
    );
    assert.equal(await readDataVersion(db), before + 1);
  });

  it('bumps row 1 when the drawn row does not exist yet (a migration older than the slots bumps)', async () => {
    const { db } = await openTestDatabase();
    const saved = await db('data_version').where('id', '>', 1).select('id', 'version');
    try {
      await db('data_version').where('id', '>', 1).delete();
      const before = await readDataVersion(db);
      await bumpDataVersion(db);
      assert.equal(await readDataVersion(db), before + 1);
      // A write's bump, after its change log (db/transactions.ts), too.
      for (let i = 0; i < 4; i++) await inTransaction(db, async (trx) => noteChange(trx, 'event', 900_100 + i));
      assert.equal(await readDataVersion(db), before + 5);
    } finally {
      await db('data_version').where('id', '>', 1).delete();
      await db('data_version').insert(saved);
    }
  });
});
