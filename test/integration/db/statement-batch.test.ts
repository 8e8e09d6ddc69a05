import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { engineOf } from '../../../src/db/engine.js';
import { sendTogether, type Statement } from '../../../src/db/statement-batch.js';
import { inTransaction } from '../../../src/db/transactions.js';
import { openTestDatabase, statementsDuring } from '../../helpers/database.js';

/**
 * Statements sent together (src/db/statement-batch.ts): on MySQL in one round trip, as long as they
 * fit, on SQLite one by one; on both, each statement's count comes back in order, and a failure
 * undoes the whole write.
 */
describe('statements sent together (src/db/statement-batch.ts)', () => {
  let db: Knex;
  const tripsOf = (run: () => Promise<unknown>): Promise<string[]> => statementsDuring(db, run);

  beforeEach(async () => {
    ({ db } = await openTestDatabase());
    await db.schema.dropTableIfExists('batch_probe');
    await db.schema.createTable('batch_probe', (table) => {
      table.integer('id').primary();
      table.string('word', 64);
    });
  });
  afterEach(() => db.schema.dropTableIfExists('batch_probe'));

  it('answers each statement’s changed or returned rows, in order, in one round trip on MySQL', async () => {
    const statements: Statement[] = [
      { sql: 'insert into batch_probe (id, word) values (?, ?), (?, ?), (?, ?)', bindings: [1, 'one', 2, 'two; drop table batch_probe', 3, "it's"] },
      { sql: 'update batch_probe set word = ? where id > ?', bindings: ['many', 1] },
      { sql: 'select id from batch_probe where id = ?', bindings: [1] },
      { sql: 'delete from batch_probe where id = ?', bindings: [99] },
    ];
    const trips = await tripsOf(async () => assert.deepEqual(await sendTogether(db, statements), [3, 2, 1, 0]));
    assert.equal(trips.length, engineOf(db) === 'mysql' ? 1 : 4, trips.join(' | '));
    const rows = await db('batch_probe').orderBy('id').select('id', 'word');
    assert.deepEqual(
      rows.map((row) => [Number(row.id), row.word]),
      [
        [1, 'one'],
        [2, 'many'],
        [3, 'many'],
      ],
    );
  });

  it('keeps a value that looks like SQL a value', async () => {
    await sendTogether(db, [{ sql: 'insert into batch_probe (id, word) values (?, ?)', bindings: [1, "x'); delete from batch_probe; --"] }]);
    assert.equal((await db('batch_probe').first('word'))?.word, "x'); delete from batch_probe; --");
  });

  it('splits statements too large for one round trip, keeping their order', async () => {
    const long = 'w'.repeat(60);
    // 40 statements of 2,000 values each: about 3 MB of text, more than 10 round trips on MySQL.
    const statements: Statement[] = Array.from({ length: 40 }, (_, i) => ({
      sql: `insert into batch_probe (id, word) values ${Array.from({ length: 1000 }, () => '(?, ?)').join(', ')}`,
      bindings: Array.from({ length: 1000 }, (_, j) => [i * 1000 + j, long]).flat(),
    }));
    statements.push({ sql: 'update batch_probe set word = ? where id = ?', bindings: ['last', 39_999] });
    const trips = await tripsOf(async () => assert.equal((await sendTogether(db, statements)).length, 41));
    if (engineOf(db) === 'mysql') assert.ok(trips.length > 1 && trips.length <= statements.length / 2, `${trips.length} round trips`);
    assert.equal(Number((await db('batch_probe').count({ n: '*' }).first())?.n), 40_000);
    assert.equal((await db('batch_probe').where('id', 39_999).first('word'))?.word, 'last');
  });

  it('stops at a failing statement: the ones after it do not run, and the connection serves the next statement', async () => {
    await assert.rejects(
      sendTogether(db, [
        { sql: 'insert into batch_probe (id, word) values (?, ?)', bindings: [1, 'before'] },
        { sql: 'insert into batch_probe_missing (id, word) values (?, ?)', bindings: [1, 'nowhere'] },
        { sql: 'insert into batch_probe (id, word) values (?, ?)', bindings: [2, 'after'] },
      ]),
    );
    // Outside a transaction the statement before the failure stays (autocommit); the one after never ran.
    assert.deepEqual((await db('batch_probe').orderBy('id').pluck('id')).map(Number), [1]);
    assert.deepEqual(await sendTogether(db, [{ sql: 'select id from batch_probe where id = ?', bindings: [1] }]), [1]);
  });

  it('undoes the statements before a failing one, with the whole write', async () => {
    await assert.rejects(
      inTransaction(db, (trx) =>
        sendTogether(trx, [
          { sql: 'insert into batch_probe (id, word) values (?, ?)', bindings: [1, 'kept?'] },
          // Not a refusal a new attempt resolves (db/transactions.ts): the write fails at once.
          { sql: 'insert into batch_probe_missing (id, word) values (?, ?)', bindings: [1, 'nowhere'] },
          { sql: 'insert into batch_probe (id, word) values (?, ?)', bindings: [2, 'after'] },
        ]),
      ),
    );
    assert.equal(Number((await db('batch_probe').count({ n: '*' }).first())?.n), 0);
  });
});
