import assert from 'node:assert/strict';
import { VersionedCache } from '../../src/db/versioned-cache.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { openTestDatabase } from '../helpers/database.js';

describe('VersionedCache', () => {
  /** A cache whose computations are counted per key. */
  async function counted(limits: ConstructorParameters<typeof VersionedCache<string>>[1]) {
    const { db } = await openTestDatabase();
    const cache = new VersionedCache<string>(db, limits);
    const calls: string[] = [];
    const get = (key: string, value = key) =>
      cache.get(key, async () => {
        calls.push(key);
        return value;
      });
    return { db, get, calls };
  }

  it('computes once per key and data version, and again after a write', async () => {
    const { db, get, calls } = await counted({ maxEntries: 10 });
    assert.equal(await get('a'), 'a');
    assert.equal(await get('a'), 'a');
    assert.deepEqual(calls, ['a']);
    await bumpDataVersion(db);
    await get('a');
    assert.deepEqual(calls, ['a', 'a']);
  });

  it('shares one computation between concurrent requests and never keeps a failure', async () => {
    const { db } = await openTestDatabase();
    const cache = new VersionedCache<number>(db, { maxEntries: 10 });
    let runs = 0;
    const slow = () => cache.get('k', async () => (runs++, await new Promise<number>((resolve) => setTimeout(() => resolve(7), 20))));
    assert.deepEqual(await Promise.all([slow(), slow(), slow()]), [7, 7, 7]);
    assert.equal(runs, 1);
    await assert.rejects(cache.get('bad', async () => Promise.reject(new Error('lost connection'))));
    assert.equal(await cache.get('bad', async () => 1), 1);
  });

  it('drops the least recently used entries beyond the entry and weight limits', async () => {
    const { get, calls } = await counted({ maxEntries: 3, maxWeight: 10, weigh: (value) => value.length });
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    await get('a', 'aaaa'); // a is now the most recently used
    await get('c', 'cccc'); // 12 > 10: b goes
    calls.length = 0;
    await get('a', 'aaaa');
    await get('c', 'cccc');
    assert.deepEqual(calls, []);
    await get('b', 'bbbb');
    assert.deepEqual(calls, ['b']);
  });

  it('does not remember a value heavier than maxEntryWeight, so it cannot push the others out', async () => {
    const { get, calls } = await counted({ maxEntries: 10, maxWeight: 10, maxEntryWeight: 4, weigh: (value) => value.length });
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    await get('huge', 'h'.repeat(50));
    calls.length = 0;
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    assert.deepEqual(calls, []);
    await get('huge', 'h'.repeat(50));
    assert.deepEqual(calls, ['huge']);
  });
});
