import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { whereSlugFamily, withUniqueSlug } from '../../src/repositories/unique-slugs.js';
import { isClaimed } from '../../src/repositories/slug-claims.js';
import { MAX_SLUG_LENGTH } from '../../src/text/slugs.js';

/** The slug a write with nothing stored and nothing failing would get (and keep, until its claim ends). */
function firstFree(db: Knex, base: string, family: string): Promise<string> {
  return withUniqueSlug(
    db,
    base,
    async () => [],
    async (slug) => slug,
    family,
  );
}

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
    const second = await firstFree(db, 'gig', 'test:a');
    assert.equal(second, 'gig-2');
    // Another scope (another table or type) is not affected.
    assert.equal(await firstFree(db, 'gig', 'test:b'), 'gig');
    finishFirst();
    assert.equal(await first, 'gig');
    // Outside a transaction the claim ended with the write: `gig` can be tried again.
    assert.equal(await firstFree(db, 'gig', 'test:a'), 'gig');
  });

  it('keeps a claim until the transaction ends', async () => {
    await db.transaction(async (trx) => {
      assert.equal(await firstFree(trx, 'jam', 'test:c'), 'jam');
      assert.equal(await firstFree(db, 'jam', 'test:c'), 'jam-2');
    });
    assert.equal(await firstFree(db, 'jam', 'test:c'), 'jam');
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

  /** `withUniqueSlug` of `base` in `scope` with nothing taken and a write that always fails with `err`; counts the writes. */
  function failingWrite(base: string, scope: string, err: Error): { tries: number; outcome: Promise<unknown> } {
    const counted = { tries: 0, outcome: Promise.resolve() as Promise<unknown> };
    counted.outcome = withUniqueSlug(
      db,
      base,
      async () => [],
      async () => {
        counted.tries++;
        throw err;
      },
      scope,
    );
    return counted;
  }

  it('passes other errors through at once', async () => {
    const write = failingWrite('gig', 'test:e', new Error('disk full'));
    await assert.rejects(write.outcome, /disk full/);
    assert.equal(write.tries, 1);
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

  it('frees a candidate whose write failed, so the next write tries it again', async () => {
    await assert.rejects(failingWrite('fete', 'test:h', new Error('disk full')).outcome, /disk full/);
    assert.equal(isClaimed('test:h', 'fete'), false);
    assert.equal(await firstFree(db, 'fete', 'test:h'), 'fete');
  });

  it('passes a unique violation on another column through at once', async () => {
    const guidTaken = Object.assign(new Error("Duplicate entry 'x' for key 'posts_guid_unique'"), { code: 'ER_DUP_ENTRY' });
    const write = failingWrite('gig', 'test:i', guidTaken);
    await assert.rejects(write.outcome, (err) => err === guidTaken);
    assert.equal(write.tries, 1);
  });

  it('claims in the default scope when none is named', async () => {
    const seen = await withUniqueSlug(
      db,
      'plain',
      async () => [],
      async (slug) => isClaimed('', slug),
    );
    assert.equal(seen, true);
  });
});

describe('whereSlugFamily', () => {
  const db = knexFactory({ client: 'better-sqlite3', useNullAsDefault: true });
  after(() => db.destroy());

  it('narrows to the range of slugs the base can become, with the base shortened as candidates shorten it', () => {
    const { sql, bindings } = whereSlugFamily(db('posts'), 'slug', 'gig').toSQL();
    assert.match(sql, /`slug` >= \? and `slug` < \?/);
    assert.deepEqual(bindings, ['gig', 'gig\u{10FFFF}']);
    const long = 'a'.repeat(MAX_SLUG_LENGTH);
    assert.deepEqual(whereSlugFamily(db('posts'), 'slug', long).toSQL().bindings, ['a'.repeat(MAX_SLUG_LENGTH - 11), `${'a'.repeat(MAX_SLUG_LENGTH - 11)}\u{10FFFF}`]);
  });
});
