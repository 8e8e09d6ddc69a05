import assert from 'node:assert/strict';
import { engineOf } from '../../../src/db/engine.js';
import { whereIdIn } from '../../../src/db/id-lists.js';
import { createEvent, database, reads } from '../repositories/fixtures.js';

/** Reads by a list of ids (src/db/id-lists.ts, docs/performance.md "Memory"). */
describe('lists of ids (src/db/id-lists.ts)', () => {
  it('finds exactly the listed rows, none for an empty list, and on SQLite sends one statement text whatever the length', async () => {
    const db = await database();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createEvent(db, { title: `Listed ${i}` }));
    const found = async (list: number[]) => (await whereIdIn(db('posts'), db, 'posts.id', list).pluck('id')).map(Number).sort((a, b) => a - b);
    assert.deepEqual(await found([ids[3], ids[1], 999_999]), [ids[1], ids[3]]);
    assert.deepEqual(await found([]), []);

    const texts = new Set<string>();
    const listener = (query: { sql: string }) => texts.add(query.sql);
    db.on('query', listener);
    try {
      for (const length of [1, 2, 5]) assert.equal((await reads(db).events.findByIds(ids.slice(0, length))).length, length);
    } finally {
      db.removeListener('query', listener);
    }
    // MySQL statements are not prepared: there each length keeps its own `IN` list.
    assert.equal(texts.size, engineOf(db) === 'sqlite' ? 1 : 3);
  });
});
