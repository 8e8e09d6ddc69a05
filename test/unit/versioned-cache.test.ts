import assert from 'node:assert/strict';
import { totalsOf, VersionChecked, VersionedCache, type Moving } from '../../src/db/versioned-cache.js';
import { bumpDataVersion, readDataVersion, sharedDataVersion } from '../../src/db/data-version.js';
import { openTestDatabase } from '../helpers/database.js';

/** One turn of the event loop. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

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

  it('drops the least recently used entry beyond maxEntries, weights aside', async () => {
    const { get, calls } = await counted({ maxEntries: 2 });
    await get('a');
    await get('b');
    await get('c');
    calls.length = 0;
    await get('b');
    await get('c');
    assert.deepEqual(calls, []);
    await get('a');
    assert.deepEqual(calls, ['a']);
  });

  it('keeps a single entry heavier than maxWeight (nothing else to drop), and counts a replaced entry once', async () => {
    const { db, get, calls } = await counted({ maxEntries: 10, maxWeight: 10, weigh: (value) => value.length });
    await get('big', 'b'.repeat(12));
    await get('big', 'b'.repeat(12));
    assert.deepEqual(calls, ['big'], 'the only entry stays');
    calls.length = 0;
    // Recomputed after writes: the old value's weight goes with it, so a and b still fit beside each other.
    for (let i = 0; i < 3; i++) {
      await bumpDataVersion(db);
      await get('a', 'aaaa');
    }
    await get('b', 'bbbb');
    calls.length = 0;
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    assert.deepEqual(calls, []);
  });

  it('keeps entries whose weights add up to exactly maxWeight', async () => {
    const { get, calls } = await counted({ maxEntries: 10, maxWeight: 8, weigh: (value) => value.length });
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    calls.length = 0;
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    assert.deepEqual(calls, []);
  });

  it('lets a computation that was replaced meanwhile neither weigh nor remove the newer entry', async () => {
    const { db } = await openTestDatabase();
    const cache = new VersionedCache<string>(db, { maxEntries: 10, maxWeight: 10, weigh: (value) => value.length });
    let calls = 0;
    const get = (key: string, value: string) => cache.get(key, async () => (calls++, value));
    // A slow computation, replaced after a write by a newer one, then finishing with a heavy value.
    // The bump must come after the old computation has read its version (compute runs after that read):
    // on MySQL both run on separate connections, and a bump that won the race would file the old one
    // under the newer version, where the next read would wait for it.
    let finishOld: ((value: string) => void) | undefined;
    const old = cache.get('a', () => new Promise<string>((resolve) => (finishOld = resolve)));
    while (!finishOld) await turn();
    await bumpDataVersion(db);
    await get('a', 'aaaa');
    finishOld('o'.repeat(8));
    await old;
    await get('b', 'bbbb');
    calls = 0;
    await get('a', 'aaaa');
    await get('b', 'bbbb');
    assert.equal(calls, 0, 'the replaced value did not count: 4 + 4 fit in 10');
    // A slow computation, replaced after a write, then failing: the newer entry stays.
    let failOld: ((err: Error) => void) | undefined;
    const failing = cache.get('c', () => new Promise<string>((_resolve, reject) => (failOld = reject)));
    while (!failOld) await turn();
    await bumpDataVersion(db);
    assert.equal(await get('c', 'cc'), 'cc');
    failOld(new Error('lost connection'));
    await assert.rejects(failing);
    calls = 0;
    assert.equal(await get('c', 'cc'), 'cc');
    assert.equal(calls, 0, 'the newer entry was kept');
  });

  it('keeps one totals cache per database handle', async () => {
    const { db } = await openTestDatabase();
    assert.equal(totalsOf(db), totalsOf(db));
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

describe('VersionChecked (values read with the data version they are of)', () => {
  it('reads a key again only when the version moved, keeps at most maxEntries, and never a failure', async () => {
    const { db } = await openTestDatabase();
    const checked = new VersionChecked<{ dataVersion: number; key: string }>(db, 2);
    const reads: string[] = [];
    const get = (key: string) =>
      checked.get(key, async () => {
        reads.push(key);
        return { dataVersion: await readDataVersion(db), key };
      });
    await get('a');
    await get('a');
    assert.deepEqual(reads, ['a'], 'the same version: the remembered value');
    await bumpDataVersion(db);
    await get('a');
    await get('a');
    assert.deepEqual(reads, ['a', 'a'], 'read once more after a write');
    await get('b');
    await get('c');
    await get('a');
    assert.deepEqual(reads, ['a', 'a', 'b', 'c', 'a'], 'two entries kept: a, the least recently used, went');
    await assert.rejects(checked.get('d', async () => Promise.reject(new Error('lost connection'))));
    await get('d');
    assert.deepEqual(reads.at(-1), 'd', 'a failure is not remembered');
  });
});

describe('sharedDataVersion (one statement for the requests of a turn)', () => {
  /** The statement that reads the data version (db/data-version.ts). */
  const isVersionRead = (sql: string) => sql.includes('data_version') && /sum/i.test(sql);

  /** The data version statements the handle sends, counted as they are sent. */
  async function counting() {
    const { db } = await openTestDatabase();
    const sent: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (isVersionRead(query.sql)) sent.push(query.sql);
    };
    db.on('query', onQuery);
    return { db, sent, stop: () => db.removeListener('query', onQuery) };
  }

  it('sends one statement for every request that asks in the same turn', async () => {
    const { db, sent, stop } = await counting();
    try {
      const expected = await readDataVersion(db);
      sent.length = 0;
      const versions = await Promise.all([sharedDataVersion(db), sharedDataVersion(db), sharedDataVersion(db)]);
      assert.deepEqual(versions, [expected, expected, expected]);
      assert.equal(sent.length, 1);
      // The next turn's requests get their own.
      await sharedDataVersion(db);
      assert.equal(sent.length, 2);
    } finally {
      stop();
    }
  });

  it('never lets a request join a statement already sent: it may not see a write committed before the request arrived', async () => {
    const { db, sent, stop } = await counting();
    /** Runs `then` once, when the next data version statement is on its way. */
    const whenSent = (then: () => void) => {
      const listener = (query: { sql: string }) => {
        if (!isVersionRead(query.sql)) return;
        db.removeListener('query', listener);
        then();
      };
      db.on('query', listener);
    };
    try {
      const before = await readDataVersion(db);
      sent.length = 0;
      // Asked while the first statement is on its way (its answer may not hold what commits in
      // between): the request sends a statement of its own.
      let later: Promise<number> | undefined;
      whenSent(() => void (later = sharedDataVersion(db)));
      assert.equal(await sharedDataVersion(db), before);
      assert.ok(later);
      assert.equal(await later, before);
      assert.equal(sent.length, 2, 'the later request sent a statement of its own');
      // A write commits once a statement is on its way, then a request asks: whether or not that
      // statement has answered by then, the request sees the write.
      let asked: Promise<number> | undefined;
      whenSent(() => void (asked = bumpDataVersion(db).then(() => sharedDataVersion(db))));
      const first = await sharedDataVersion(db);
      // The write is sent after that statement, on MySQL over another connection: either order.
      assert.ok(first === before || first === before + 1, `the statement on its way read ${first}`);
      assert.ok(asked);
      assert.equal(await asked, before + 1);
      assert.equal(sent.length, 4);
    } finally {
      stop();
    }
  });

  it('reads a transaction its own version (with its uncommitted writes)', async () => {
    const { db } = await openTestDatabase();
    const before = await readDataVersion(db);
    await db
      .transaction(async (trx) => {
        await bumpDataVersion(trx);
        assert.equal(await sharedDataVersion(trx), before + 1);
        await trx.rollback();
      })
      .catch(() => undefined);
    assert.equal(await readDataVersion(db), before);
  });
});
