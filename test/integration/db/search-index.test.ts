import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { engineOf } from '../../../src/db/engine.js';
import { MIGRATION_TOOLS } from '../../../src/db/migrate.js';
import { fillSearchTexts } from '../../../src/db/migrations/20261204000101_fill_search_texts.js';
import { indexSearchText, textHash, unindexSearchText, whereSearchCandidates } from '../../../src/db/search-index.js';
import { narrowingTrigrams, spreadTrigrams, trigramsOf } from '../../../src/text/trigrams.js';
import { createEvent, database } from '../repositories/fixtures.js';
import { waitFor } from '../../helpers/wait.js';

/** The search index's pieces (docs/contract.md §15); the property test checks the whole. */
describe('search index (src/db/search-index.ts)', () => {
  it('cuts texts into distinct trigrams of code points, and says which terms it cannot narrow', () => {
    assert.deepEqual(trigramsOf('jazz'), ['jaz', 'azz']);
    assert.deepEqual(trigramsOf('aaaa'), ['aaa']);
    assert.deepEqual(trigramsOf('🎷ab'), ['🎷ab']);
    assert.deepEqual(trigramsOf('ab'), []);
    assert.equal(narrowingTrigrams('ab'), undefined);
    assert.equal(narrowingTrigrams('🎷🎷'), undefined);
    assert.equal(narrowingTrigrams('ab\u0000cd'), undefined);
    assert.deepEqual(narrowingTrigrams('a_%'), ['a_%']);
    assert.deepEqual(spreadTrigrams(['a', 'b', 'c', 'd', 'e', 'f', 'g'], 4), ['a', 'c', 'e', 'g']);
    assert.deepEqual(spreadTrigrams(['a', 'b'], 4), ['a', 'b']);
  });

  it('MySQL: lower() keeps every character equal to itself in the text columns’ collation, one character for one', async function () {
    this.timeout(120_000);
    const db = await database();
    if (engineOf(db) !== 'mysql') return this.skip();
    // Every code point but the surrogates, as `n` = a + 16 b + 256 c + 4096 d + 65536 e.
    const digits = (most: number) => `(${Array.from({ length: most + 1 }, (_, i) => `select ${i} as d`).join(' union all ')})`;
    const points = `select a.d + 16 * b.d + 256 * c.d + 4096 * d.d + 65536 * e.d as n from ${digits(15)} a, ${digits(15)} b, ${digits(15)} c, ${digits(15)} d, ${digits(16)} e`;
    const character = 'convert(char(n using utf32) using utf8mb4) collate utf8mb4_unicode_ci';
    const [rows] = (await db.raw(
      `select count(*) as checked, sum(case when ${character} = lower(${character}) and char_length(lower(${character})) = 1 then 0 else 1 end) as differing
       from (${points}) p where n < 55296 or n > 57343`,
    )) as unknown as [Array<{ checked: number; differing: number }>];
    assert.equal(Number(rows[0].checked), 0x110000 - 2048);
    assert.equal(Number(rows[0].differing), 0);
  });

  it('MySQL: an event’s fields name their texts, whose trigrams are written once; a text no event names goes', async function () {
    const db = await database();
    if (engineOf(db) !== 'mysql') return this.skip();
    const id = await createEvent(db, { title: 'Jazz', description: 'aaaa', excerpt: '' });
    const other = await createEvent(db, { title: 'Jazz', description: 'Blues' });
    const texts = async (post: number) =>
      (await db('post_search_texts').where('post_id', post).orderBy('field').select('field', 'text_hash')).map((r: { field: number; text_hash: string }) => [
        Number(r.field),
        r.text_hash,
      ]);
    assert.deepEqual(await texts(id), [
      [0, textHash('Jazz')],
      [1, textHash('aaaa')],
    ]);
    const grams = async (text: string) =>
      (await db('search_text_grams').where('text_hash', textHash(text)).orderBy('n').select('n', 'gram')).map((r: { n: number; gram: string }) => [Number(r.n), r.gram]);
    assert.deepEqual(await grams('Jazz'), [
      [0, 'Jaz'],
      [1, 'azz'],
    ]);
    assert.deepEqual(await grams('aaaa'), [[0, 'aaa']]);
    // Both events name one `Jazz`; an update of one leaves it to the other, then the last one's update deletes it.
    await db.transaction((trx) => indexSearchText(trx, [id], { title: 'Polka' }));
    assert.equal((await grams('Jazz')).length, 2);
    await db.transaction((trx) => indexSearchText(trx, [other], { title: 'Polka' }));
    assert.deepEqual(await grams('Jazz'), []);
    assert.deepEqual(await db('search_texts').where('text_hash', textHash('Jazz')).pluck('text_hash'), []);
    // Deleted: the mappings go (foreign key), and unindexSearchText first deletes the texts no one else names.
    await db.transaction((trx) => unindexSearchText(trx, [id]));
    assert.deepEqual(await grams('aaaa'), []);
    assert.equal((await grams('Polka')).length, 3, 'still named by the other event');
    await db('posts').where('id', id).delete();
    assert.deepEqual(await texts(id), []);
  });

  it('MySQL: the fill migration indexes every event from scratch, each text once', async function () {
    const db = await database();
    if (engineOf(db) !== 'mysql') return this.skip();
    const ids = [await createEvent(db, { title: 'Jazz', description: 'Same text' }), await createEvent(db, { title: 'Jazz', description: 'Same text' })];
    const before = await db('post_search_texts').whereIn('post_id', ids).orderBy(['post_id', 'field']).select('post_id', 'field', 'text_hash');
    await db('post_search_texts').delete();
    await db('search_texts').insert({ text_hash: textHash('stale') });
    await db('search_text_grams').insert({ text_hash: textHash('stale'), n: 0, gram: 'sta' });
    await fillSearchTexts(db, MIGRATION_TOOLS);
    assert.deepEqual(await db('post_search_texts').whereIn('post_id', ids).orderBy(['post_id', 'field']).select('post_id', 'field', 'text_hash'), before);
    assert.equal(Number((await db('search_text_grams').where('text_hash', textHash('Same text')).count({ n: '*' }))[0].n), trigramsOf('Same text').length);
    assert.equal(Number((await db('search_text_grams').where('text_hash', textHash('stale')).count({ n: '*' }))[0].n), 0);
  });

  it('MySQL: a write mapping an event to a text and one deleting the text as unused never leave the event without its trigrams, in either order', async function () {
    const db = await database();
    if (engineOf(db) !== 'mysql') return this.skip();
    const shared = 'A shared description';
    const grams = async () => Number((await db('search_text_grams').where('text_hash', textHash(shared)).count({ n: '*' }))[0].n);
    // InnoDB refreshes information_schema.innodb_trx only when it was last read over 100 ms ago, and
    // every read counts: a faster poll sees the first answer for ever (this test once spun on it
    // until CI's time ran out). 150 ms between reads, so that each one is fresh.
    const INNODB_TRX_REFRESH_MS = 150;
    // The connection's thread id, to ask the server whether that transaction waits for a lock.
    const threadOf = async (trx: Knex.Transaction) => Number((await trx.raw('select connection_id() as id'))[0][0].id);
    const waitsForLock = async (thread: number) =>
      Number((await db.raw("select count(*) as n from information_schema.innodb_trx where trx_mysql_thread_id = ? and trx_state = 'LOCK WAIT'", [thread]))[0][0].n) > 0;
    // Until the second write waits for the first's lock, or has ended without waiting (its result is
    // then judged below); bounded, so that a write that never blocks fails this test instead of
    // spinning past it and holding both transactions' locks for the tests after it.
    const untilBlockedOrDone = async (thread: number, write: Promise<unknown>) => {
      let done = false;
      write.then(
        () => (done = true),
        () => (done = true),
      );
      await waitFor(async () => done || (await waitsForLock(thread)), 'the second write to wait for the first one’s lock or finish', 10_000, INNODB_TRX_REFRESH_MS);
    };
    for (const cleanerFirst of [false, true]) {
      const leaving = await createEvent(db, { title: 'Leaving', description: shared });
      const joining = await createEvent(db, { title: 'Joining', description: 'Something else' });
      const join = (trx: Knex.Transaction) => indexSearchText(trx, [joining], { description: shared });
      const leave = (trx: Knex.Transaction) => indexSearchText(trx, [leaving], { description: 'Moved on' });
      const [firstWrite, secondWrite] = cleanerFirst ? [leave, join] : [join, leave];
      const first = await db.transaction();
      const second = await db.transaction();
      try {
        // Each reads first, as a write loads its event: their snapshots predate the other's commit.
        for (const trx of [first, second]) await trx('posts').where('id', leaving).first('id');
        const secondThread = await threadOf(second);
        await firstWrite(first);
        const blocked = secondWrite(second);
        await untilBlockedOrDone(secondThread, blocked);
        await first.commit();
        await blocked;
        await second.commit();
      } finally {
        for (const trx of [first, second]) if (!trx.isCompleted()) await trx.rollback().catch(() => undefined);
      }
      assert.equal(await grams(), trigramsOf(shared).length, `cleaner first: ${cleanerFirst}`);
      assert.deepEqual(await db('post_search_texts').where('text_hash', textHash(shared)).pluck('post_id'), [joining]);
      await db('posts').whereIn('id', [leaving, joining]).delete();
    }
  });

  it('SQLite: the FTS table holds lower() of each event’s fields, for events only', async function () {
    const db = await database();
    if (engineOf(db) !== 'sqlite') return this.skip();
    const id = await createEvent(db, { title: 'İstanbul JAZZ', description: 'Ünïcode', excerpt: '' });
    // The index keeps no positions (migration 20261206000100): a text is asked for by its trigrams.
    const match = async (text: string) =>
      (
        await db.raw('select rowid from post_search where post_search match ?', [
          trigramsOf(text)
            .map((gram) => `"${gram}"`)
            .join(' AND '),
        ])
      ).map((r: { rowid: number }) => Number(r.rowid));
    assert.deepEqual(await match('i̇stanbul'), [id]);
    assert.deepEqual(await match('jazz'), [id]);
    assert.deepEqual(await match('ünïcode'), [id]);
    await db('posts').where('id', id).update({ title: 'Blues' });
    assert.deepEqual(await match('jazz'), []);
    await db('posts').where('id', id).delete();
    assert.deepEqual(await match('blues'), []);
  });
});

describe('search index: candidates listed or as a filter', () => {
  it('finds the same events whether the matches are listed one by one or left as a filter (both engines)', async function () {
    const db = await database();
    const ids: number[] = [];
    for (const [i, title] of ['Jazz night', 'jazz brunch', 'Blues night', 'Late JAZZ'].entries()) ids.push(await createEvent(db, { title, start: `2026-06-0${i + 1} 10:00:00` }));
    for (const listedAtMost of [0, 1, 2, 1000]) {
      for (const [terms, expected] of [
        [['jazz'], [ids[0], ids[1], ids[3]]],
        [['jazz', 'night'], [ids[0]]],
        [['polka'], []],
      ] as Array<[string[], number[]]>) {
        // listFirst (MySQL): false leaves each term a subquery, as beside a category with few links.
        for (const listFirst of [true, false]) {
          const query = db('events as x');
          assert.equal(await whereSearchCandidates(db, query, 'x.post_id', terms, { listedAtMost, listFirst: async () => listFirst }), true);
          assert.deepEqual((await query.orderBy('x.post_id').pluck('x.post_id')).map(Number), expected, `${terms} listing at most ${listedAtMost}, listFirst ${listFirst}`);
        }
      }
    }
  });

  it('adds nothing when the matches are too many to list and the caller declines the filter (the LIKE judges alone; SQLite)', async function () {
    const db = await database();
    if (engineOf(db) !== 'sqlite') return this.skip();
    const ids: number[] = [];
    for (const [i, title] of ['Jazz night', 'Blues night'].entries()) ids.push(await createEvent(db, { title, start: `2026-06-0${i + 1} 10:00:00` }));
    const declined = db('events as x');
    assert.equal(await whereSearchCandidates(db, declined, 'x.post_id', ['jazz'], { listedAtMost: 0, filterWhenMany: async () => false }), false);
    assert.deepEqual((await declined.orderBy('x.post_id').pluck('x.post_id')).map(Number), ids);
    const listed = db('events as x');
    let asked = false;
    const filterWhenMany = async () => (asked = true);
    assert.equal(await whereSearchCandidates(db, listed, 'x.post_id', ['jazz'], { listedAtMost: 1, filterWhenMany }), true);
    assert.equal(asked, false, 'a listed match never asks');
    assert.deepEqual((await listed.pluck('x.post_id')).map(Number), [ids[0]]);
  });
});
