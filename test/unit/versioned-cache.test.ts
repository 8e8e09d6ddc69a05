import assert from 'node:assert/strict';
import { createTotalsCache, listTotal, VersionedCache, type Moving } from '../../src/db/versioned-cache.js';
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

  it('never keeps a failure', async () => {
    const { db } = await openTestDatabase();
    const cache = new VersionedCache<number>(db, { maxEntries: 10 });
    await assert.rejects(cache.get('bad', async () => Promise.reject(new Error('lost connection'))));
    assert.equal(await cache.get('bad', async () => 1), 1);
  });

  it('files a value computed while a write committed under the version read before it, so the next read computes again', async () => {
    const { db } = await openTestDatabase();
    const cache = new VersionedCache<string>(db, { maxEntries: 10 });
    // The write commits after the version was read and before the value is computed.
    await cache.get('k', async () => (await bumpDataVersion(db), 'during'));
    let computed = 0;
    assert.equal(await cache.get('k', async () => (computed++, 'after')), 'after');
    assert.equal(computed, 1);
    assert.equal(await cache.get('k', async () => (computed++, 'again')), 'after');
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

  /** Runs `body` with `Date.now` answering the value `clock.now` holds. */
  async function withClock(body: (clock: { now: number }) => Promise<void>): Promise<void> {
    const realNow = Date.now;
    const clock = { now: realNow() };
    Date.now = () => clock.now;
    try {
      await body(clock);
    } finally {
      Date.now = realNow;
    }
  }

  it('computes a value again once it is a minute old, even without a write', async () => {
    await withClock(async (clock) => {
      const { get, calls } = await counted({ maxEntries: 10 });
      await get('a');
      clock.now += 59_999;
      await get('a');
      assert.deepEqual(calls, ['a'], 'still fresh just under a minute');
      clock.now += 1;
      await get('a');
      assert.deepEqual(calls, ['a', 'a'], 'computed again at a minute');
    });
  });

  it("counts a list total once per data version with the app's totals cache, every time without one (a transaction's reads)", async () => {
    const { db } = await openTestDatabase();
    let counts = 0;
    const count = async () => ++counts;
    const totals = createTotalsCache(db);
    assert.equal(await listTotal(totals, 'events x', count), 1);
    assert.equal(await listTotal(totals, 'events x', count), 1);
    await bumpDataVersion(db);
    assert.equal(await listTotal(totals, 'events x', count), 2);
    assert.equal(await listTotal(undefined, 'events x', count), 3);
    assert.equal(await listTotal(undefined, 'events x', count), 4);
  });

  describe('values that depend on the time (Moving)', () => {
    /** A moving bound at `moment` whose `unchangedBetween` answers `unchanged` and records its calls. */
    function movingAt(moment: string, unchanged: boolean, asked: string[][]): Moving {
      return {
        moment,
        async unchangedBetween(earlier, later) {
          asked.push([earlier, later]);
          return unchanged;
        },
      };
    }

    async function movingCache() {
      const { db } = await openTestDatabase();
      const cache = new VersionedCache<string>(db, { maxEntries: 10 });
      const calls: string[] = [];
      const get = (moving: Moving | undefined) =>
        cache.get(
          'k',
          async () => {
            calls.push(moving?.moment ?? 'none');
            return 'v';
          },
          moving,
        );
      return { get, calls };
    }

    it('reuses a value at the same moment without asking, at a later one when nothing crossed the bound', async () => {
      const { get, calls } = await movingCache();
      const asked: string[][] = [];
      await get(movingAt('2026-01-01 10:00:00', true, asked));
      await get(movingAt('2026-01-01 10:00:00', true, asked));
      assert.deepEqual(asked, [], 'same moment: nothing to check');
      await get(movingAt('2026-01-01 10:05:00', true, asked));
      assert.deepEqual(asked, [['2026-01-01 10:00:00', '2026-01-01 10:05:00']]);
      // The entry now stands for the later moment: checking from there, not from the first.
      await get(movingAt('2026-01-01 10:05:00', true, asked));
      assert.equal(asked.length, 1);
      await get(movingAt('2026-01-01 10:07:00', true, asked));
      assert.deepEqual(asked[1], ['2026-01-01 10:05:00', '2026-01-01 10:07:00']);
      assert.deepEqual(calls, ['2026-01-01 10:00:00']);
    });

    it('computes again when a row crossed the bound, for an earlier moment, and for a value stored without one', async () => {
      const asked: string[][] = [];
      {
        const { get, calls } = await movingCache();
        await get(movingAt('2026-01-01 10:00:00', true, asked));
        await get(movingAt('2026-01-01 10:05:00', false, asked));
        assert.deepEqual(calls, ['2026-01-01 10:00:00', '2026-01-01 10:05:00'], 'a row crossed the bound');
        await get(movingAt('2026-01-01 09:00:00', true, asked));
        assert.deepEqual(calls.at(-1), '2026-01-01 09:00:00', 'an earlier moment');
      }
      {
        const { get, calls } = await movingCache();
        await get(undefined);
        await get(undefined);
        assert.deepEqual(calls, ['none'], 'not moving: reused');
        await get(movingAt('2026-01-01 10:00:00', true, asked));
        assert.deepEqual(calls, ['none', '2026-01-01 10:00:00'], 'stored without a moment');
      }
    });
  });
});
