import assert from 'node:assert/strict';
import { migrateLatest, migrationsCurrent } from '../../../src/db/migrate.js';
import { openDatabase } from '../../../src/db/knex.js';
import { engineOf } from '../../../src/db/engine.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../../helpers/database.js';

/**
 * Starting is safe when processes start together (src/db/migrate.ts): with nothing pending a process
 * takes no migration lock, so neither a lock held elsewhere nor a conflict on it can stop it.
 */
describe('migrations at start (src/db/migrate.ts)', () => {
  it('runs nothing and takes no lock when nothing is pending, even while another process holds the lock', async () => {
    const { db } = await openTestDatabase();
    assert.equal(await migrationsCurrent(db), true);
    // Another process in the middle of its migration run (on a cluster: on another node, where its
    // row lock does not reach). knex's own `latest` refuses here with "Migration table is already locked".
    await db('knex_migrations_lock').update({ is_locked: 1 });
    try {
      assert.deepEqual(await migrateLatest(db, { waitSeconds: 0 }), []);
    } finally {
      await db('knex_migrations_lock').update({ is_locked: 0 });
    }
  });

  it('five connection pools migrating at once all succeed', async function () {
    const { db } = await openTestDatabase();
    // SQLite's test database lives in this process's memory: one pool is all there is.
    if (engineOf(db) === 'sqlite') return this.skip();
    const pools = Array.from({ length: 5 }, () => openDatabase(TEST_DATABASE_URL).db);
    try {
      const results = await Promise.allSettled(pools.map((pool) => migrateLatest(pool)));
      assert.deepEqual(
        results.map((result) => (result.status === 'fulfilled' ? result.value : String(result.reason))),
        [[], [], [], [], []],
      );
    } finally {
      await Promise.all(pools.map((pool) => pool.destroy()));
    }
  });
});
