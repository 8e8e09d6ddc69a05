import assert from 'node:assert/strict';
import knexFactory from 'knex';
import { withUniqueSlug } from '../../src/posts/unique-slugs.js';

/** A unique violation on the slug, as the drivers report it. */
function slugTaken(): Error {
  return Object.assign(new Error("Duplicate entry 'x' for key 'posts_type_slug_unique'"), { code: 'ER_DUP_ENTRY' });
}

describe('unique slugs under concurrent writes in one process', () => {
  // A knex instance that is not a transaction: claims end when the write returns.
  const db = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  after(() => db.destroy());

  it('lets writes in flight try different candidates, then frees the slugs they did not keep', async () => {
    let finishFirst!: () => void;
    const first = withUniqueSlug(
      db,
      'gig',
      async () => [],
      (slug) => new Promise<string>((resolve) => (finishFirst = () => resolve(slug))),
      'test:a',
    );
    await new Promise((resolve) => setImmediate(resolve));
    // While the first write of `gig` is unfinished, a second one tries `gig-2` rather than wait for it.
    const second = await withUniqueSlug(
      db,
      'gig',
      async () => [],
      async (slug) => slug,
      'test:a',
    );
    assert.equal(second, 'gig-2');
    // Another scope (another table or type) is not affected.
    assert.equal(
      await withUniqueSlug(
        db,
        'gig',
        async () => [],
        async (slug) => slug,
        'test:b',
      ),
      'gig',
    );
    finishFirst();
    assert.equal(await first, 'gig');
    // Outside a transaction the claim ended with the write: `gig` can be tried again.
    assert.equal(
      await withUniqueSlug(
        db,
        'gig',
        async () => [],
        async (slug) => slug,
        'test:a',
      ),
      'gig',
    );
  });

  it('keeps a claim until the transaction ends', async () => {
    await db.transaction(async (trx) => {
      assert.equal(
        await withUniqueSlug(
          trx,
          'jam',
          async () => [],
          async (slug) => slug,
          'test:c',
        ),
        'jam',
      );
      assert.equal(
        await withUniqueSlug(
          db,
          'jam',
          async () => [],
          async (slug) => slug,
          'test:c',
        ),
        'jam-2',
      );
    });
    assert.equal(
      await withUniqueSlug(
        db,
        'jam',
        async () => [],
        async (slug) => slug,
        'test:c',
      ),
      'jam',
    );
  });

  it('tries the next free candidate after each unique violation, and never gives up after a few', async () => {
    const committedElsewhere = new Set(Array.from({ length: 150 }, (_, i) => (i === 0 ? 'show' : `show-${i + 1}`)));
    const slug = await withUniqueSlug(
      db,
      'show',
      async () => [],
      async (candidate) => {
        if (committedElsewhere.has(candidate)) throw slugTaken();
        return candidate;
      },
      'test:d',
    );
    assert.equal(slug, 'show-151');
  });

  it('passes other errors through at once', async () => {
    let tries = 0;
    await assert.rejects(
      withUniqueSlug(
        db,
        'gig',
        async () => [],
        async () => {
          tries++;
          throw new Error('disk full');
        },
        'test:e',
      ),
      /disk full/,
    );
    assert.equal(tries, 1);
  });

  it('skips the slugs already taken without counting them as tries', async () => {
    const tried: string[] = [];
    const slug = await withUniqueSlug(
      db,
      'fair',
      async (base) => [base, `${base}-2`, `${base}-4`],
      async (candidate) => {
        tried.push(candidate);
        return candidate;
      },
      'test:f',
    );
    assert.equal(slug, 'fair-3');
    assert.deepEqual(tried, ['fair-3']);
  });

  it('gives up after 1000 tries with the last unique violation, for the transaction to run again', async () => {
    let tries = 0;
    let last: Error | undefined;
    await assert.rejects(
      withUniqueSlug(
        db,
        'full',
        async () => Array.from({ length: 50 }, (_, i) => (i === 0 ? 'full' : `full-${i + 1}`)),
        async () => {
          tries++;
          throw (last = slugTaken());
        },
        'test:g',
      ),
      (err) => err === last,
    );
    assert.equal(tries, 1000);
  });
});
