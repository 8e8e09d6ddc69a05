import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { openDatabase } from '../../../src/db/knex.js';
import { migrateLatest } from '../../../src/db/migrate.js';
import { migratedSqliteShape, shapeDifferences, sqliteSchemaShape } from '../../../src/db/schema-shape.js';

/**
 * What `cli restore` compares a copy with (src/db/schema-shape.ts, docs/durability.md "Restore"):
 * tables, columns, indexes and foreign keys, and triggers and views, each difference named. SQLite
 * only (a restore copies SQLite files), whatever engine the run uses.
 */
describe('the schema a copy must have to be restored (src/db/schema-shape.ts)', () => {
  let db: Knex;

  beforeEach(async () => {
    ({ db } = openDatabase('sqlite::memory:'));
    await migrateLatest(db);
  });
  afterEach(() => db.destroy());

  const differences = async () => shapeDifferences(await sqliteSchemaShape(db), await migratedSqliteShape());

  it('a migrated database has it, our search triggers included', async () => {
    assert.deepEqual(await differences(), []);
    assert.ok((await migratedSqliteShape()).has('trigger posts_search_insert'));
  });

  it('names every kind of difference', async () => {
    await db.raw('DROP INDEX posts_author_id_index');
    await db.raw('ALTER TABLE users ADD COLUMN backdoor TEXT');
    await db.raw('CREATE VIEW everyone AS SELECT * FROM users');
    await db.raw('DROP TRIGGER posts_search_delete');
    await db.raw("CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN UPDATE users SET role = 'administrator'; END");
    await db.raw('DROP TABLE password_guesses');
    const found = await differences();
    for (const expected of [
      /^index posts\.posts_author_id_index is missing$/,
      /^column users\.backdoor is not ours/,
      /^view everyone is not ours/,
      /^trigger posts_search_delete differs/,
      /^table password_guesses is missing$/,
      /^column password_guesses\.\w+ is missing$/,
    ]) {
      assert.ok(
        found.some((line) => expected.test(line)),
        `${expected} in ${JSON.stringify(found)}`,
      );
    }
  });
});
