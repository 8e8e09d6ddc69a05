import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { engineOf } from '../../../src/db/engine.js';
import { inWriteTransaction } from '../../../src/repositories/registry.js';
import { TermNameTaken, type TermRow } from '../../../src/repositories/terms.js';
import { CATEGORIES, TAGS } from '../../../src/repositories/taxonomies.js';
import { createEvent, createTerm, database, reads } from './fixtures.js';
import { renderedKey } from '../../../src/text/rendered-forms.js';
import { waitFor } from '../../helpers/wait.js';

async function term(db: Knex, id: number): Promise<TermRow> {
  const row = await reads(db).terms.findById(id);
  assert.ok(row, `term ${id} exists`);
  return row;
}

async function counts(db: Knex, ids: number[]): Promise<number[]> {
  return Promise.all(ids.map(async (id) => (await term(db, id)).publishedCount));
}

describe('TermRepository', () => {
  it('insert gives slugs base, base-2, base-3 within a taxonomy; another taxonomy may repeat one', async () => {
    const db = await database();
    const rock = await createTerm(db, CATEGORIES, 'Rock', { slug: 'rock' });
    const rockAndRoll = await createTerm(db, CATEGORIES, 'Rock & Roll', { slug: 'rock' });
    const rockChild = await createTerm(db, CATEGORIES, 'Rock!', { slug: 'rock', parent: rock });
    const tag = await createTerm(db, TAGS, 'Rock', { slug: 'rock' });
    assert.deepEqual(await Promise.all([rock, rockAndRoll, rockChild, tag].map(async (id) => (await term(db, id)).slug)), ['rock', 'rock-2', 'rock-3', 'rock']);
    assert.deepEqual(await term(db, rockChild), {
      id: rockChild,
      taxonomy: 'tribe_events_cat',
      name: 'Rock!',
      // Its plain form, stored with it (src/text/plain-forms.ts).
      namePlain: 'Rock!',
      slug: 'rock-3',
      description: '',
      descriptionHash: null,
      parent: rock,
      publishedCount: 0,
      version: 1,
    });
  });

  it('insert refuses a name already used at the same level, whatever its case, with the existing term', async () => {
    const db = await database();
    const music = await createTerm(db, CATEGORIES, 'Music');
    await assert.rejects(
      createTerm(db, CATEGORIES, 'MUSIC', { slug: 'other-slug' }),
      (err) => err instanceof TermNameTaken && err.existing.id === music && err.existing.name === 'Music',
    );
    assert.deepEqual((await db('terms').pluck('id')).map(Number), [music], 'nothing was written');
    // Another level, another taxonomy, or a term allowed to share its name: accepted.
    const child = await createTerm(db, CATEGORIES, 'Music', { parent: music });
    const tag = await createTerm(db, TAGS, 'Music');
    const shared = await createTerm(db, CATEGORIES, 'Music', { slug: 'music-special', sharesName: true });
    assert.deepEqual(await Promise.all([child, tag, shared].map(async (id) => (await term(db, id)).slug)), ['music-2', 'music', 'music-special']);
    await assert.rejects(createTerm(db, CATEGORIES, 'music', { parent: music }), TermNameTaken);
  });

  it('update renames and moves a term; a clash is reported by onClash and changes nothing', async () => {
    const db = await database();
    const music = await createTerm(db, CATEGORIES, 'Music');
    const art = await createTerm(db, CATEGORIES, 'Art');
    const update = (id: number, changes: Partial<TermRow>) =>
      inWriteTransaction(db, async (repos) => repos.terms.update((await repos.terms.findById(id))!, changes, async () => new Error(`clash on ${id}`)));
    await update(art, { name: 'Fine Art', slug: 'fine-art', description: 'Paintings' });
    assert.deepEqual(await term(db, art), {
      id: art,
      taxonomy: 'tribe_events_cat',
      name: 'Fine Art',
      namePlain: 'Fine Art',
      slug: 'fine-art',
      description: 'Paintings',
      // The key of its rendered forms (src/db/rendered-texts.ts).
      descriptionHash: renderedKey('term', 'Paintings'),
      parent: 0,
      publishedCount: 0,
      version: 2,
    });
    await assert.rejects(update(art, { name: 'music' }), new RegExp(`clash on ${art}`));
    await assert.rejects(update(art, { slug: 'music' }), new RegExp(`clash on ${art}`));
    assert.equal((await term(db, art)).name, 'Fine Art');
    // Under another parent the name is free; the rule follows the term there.
    await update(art, { parent: music, name: 'Music' });
    assert.deepEqual([(await term(db, art)).name, (await term(db, art)).parent], ['Music', music]);
    await assert.rejects(createTerm(db, CATEGORIES, 'MUSIC', { parent: music }), TermNameTaken);
  });

  it('shiftCounts adds one to terms gained and takes one from terms lost', async () => {
    const db = await database();
    const [a, b, c] = [await createTerm(db, CATEGORIES, 'A'), await createTerm(db, CATEGORIES, 'B'), await createTerm(db, CATEGORIES, 'C')];
    const shift = (before: number[], after: number[]) => inWriteTransaction(db, (repos) => repos.terms.shiftCounts(before, after));
    await shift([], [a, b]);
    assert.deepEqual(await counts(db, [a, b, c]), [1, 1, 0]);
    await shift([a, b], [b, c, c]);
    assert.deepEqual(await counts(db, [a, b, c]), [0, 1, 1]);
    await shift([], [b]);
    await shift([b, c], []);
    assert.deepEqual(await counts(db, [a, b, c]), [0, 1, 0]);
    assert.deepEqual(
      [...(await reads(db).terms.countsFor([a, b, c, c + 1000]))],
      [
        [a, 0],
        [b, 1],
        [c, 0],
        [c + 1000, 0],
      ],
    );
  });

  it('ancestorsOf loads every ancestor of the given terms', async () => {
    const db = await database();
    const root = await createTerm(db, CATEGORIES, 'Root');
    const branch = await createTerm(db, CATEGORIES, 'Branch', { parent: root });
    const leaf = await createTerm(db, CATEGORIES, 'Leaf', { parent: branch });
    const other = await createTerm(db, CATEGORIES, 'Other');
    const ids = async (rows: TermRow[]) => [...(await reads(db).terms.ancestorsOf(rows)).keys()].sort((x, y) => x - y);
    assert.deepEqual(await ids([await term(db, leaf)]), [root, branch, leaf]);
    assert.deepEqual(await ids([await term(db, leaf), await term(db, other)]), [root, branch, leaf, other]);
    assert.deepEqual(await ids([await term(db, root)]), [root]);
    assert.deepEqual(await ids([]), []);
    const loaded = await reads(db).terms.ancestorsOf([await term(db, leaf)]);
    assert.equal(loaded.get(root)?.name, 'Root');
  });

  it('descendantIds gives the term and everything below it', async () => {
    const db = await database();
    const root = await createTerm(db, CATEGORIES, 'Root');
    const left = await createTerm(db, CATEGORIES, 'Left', { parent: root });
    const right = await createTerm(db, CATEGORIES, 'Right', { parent: root });
    const deep = await createTerm(db, CATEGORIES, 'Deep', { parent: left });
    await createTerm(db, CATEGORIES, 'Elsewhere');
    const sorted = (ids: Set<number>) => [...ids].sort((x, y) => x - y);
    assert.deepEqual(sorted(await reads(db).terms.descendantIds(root)), [root, left, right, deep]);
    assert.deepEqual(sorted(await reads(db).terms.descendantIds(left)), [left, deep]);
    assert.deepEqual(sorted(await reads(db).terms.descendantIds(deep)), [deep]);
  });

  it('delete moves the children up to the deleted term’s parent and unlinks its events', async () => {
    const db = await database();
    const root = await createTerm(db, CATEGORIES, 'Root');
    const middle = await createTerm(db, CATEGORIES, 'Middle', { parent: root });
    const [first, second] = [await createTerm(db, CATEGORIES, 'First', { parent: middle }), await createTerm(db, CATEGORIES, 'Second', { parent: middle })];
    const event = await createEvent(db, { categoryIds: [middle, first] });
    await inWriteTransaction(db, async (repos) => repos.terms.delete((await repos.terms.findById(middle))!));
    assert.equal(await reads(db).terms.findById(middle), undefined);
    assert.deepEqual([(await term(db, first)).parent, (await term(db, second)).parent], [root, root]);
    assert.deepEqual(
      (await reads(db).events.links([event])).map((link) => link.id),
      [first],
    );
    // A child's record changed (its parent): its version grows, so what embeds it is built again.
    assert.deepEqual([(await term(db, first)).version, (await term(db, second)).version], [2, 2]);
    // A top-level term's children become top-level.
    await inWriteTransaction(db, async (repos) => repos.terms.delete((await repos.terms.findById(root))!));
    assert.deepEqual([(await term(db, first)).parent, (await term(db, second)).parent], [0, 0]);
  });

  it('finds terms by id, slug and name, within their taxonomy', async () => {
    const db = await database();
    const music = await createTerm(db, CATEGORIES, 'Music');
    const child = await createTerm(db, CATEGORIES, 'Jazz', { parent: music });
    const tag = await createTerm(db, TAGS, 'Jazz');
    const repo = reads(db).terms;
    assert.equal((await repo.findBySlug(CATEGORIES, 'jazz'))?.id, child);
    assert.equal((await repo.findBySlug(TAGS, 'jazz'))?.id, tag);
    assert.equal((await repo.findByName(CATEGORIES, music, 'JAZZ'))?.id, child);
    assert.equal(await repo.findByName(CATEGORIES, 0, 'Jazz'), undefined, 'not at the top level');
    assert.equal((await repo.findByNameAnyLevel(CATEGORIES, 'jazz'))?.id, child);
    assert.deepEqual(await repo.unknownIds(CATEGORIES, [music, tag, child, tag + 1000]), [tag, tag + 1000]);
    assert.deepEqual(
      (await repo.findByIds([tag, music])).map((row) => row.id).sort((x, y) => x - y),
      [music, tag],
    );
    assert.equal(await repo.findById(1.5), undefined);
  });

  // MySQL: the locking read of an event's links also locks the gap where the next event's links go. A
  // writer of that next event that holds a term and inserts its link waits for that gap; if the first
  // writer then asks for the same term, the two wait for each other. countedTerms therefore locks the
  // terms an event links before it reads the links with a lock: every writer takes terms, then links.
  it('countedTerms locks the terms before the links, so a writer of the next event holding a term does not deadlock with it (MySQL)', async function () {
    const db = await database();
    if (engineOf(db) === 'sqlite') return this.skip(); // SQLite runs one write transaction at a time.
    const music = await createTerm(db, CATEGORIES, 'Music');
    const first = await createEvent(db, { categoryIds: [music] });
    const next = await createEvent(db);
    const waiting = async () =>
      Number(
        (
          (await db.raw(`SELECT COUNT(*) AS n FROM information_schema.processlist WHERE db = DATABASE() AND command = 'Query' AND info NOT LIKE '%processlist%'`)) as [
            { n: unknown }[],
          ]
        )[0][0].n,
      );
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const [read, goOn] = [gate(), gate()];
    const deadlocks: number[] = [];
    const listener = (err: { errno?: number }) => {
      if (err.errno === 1213) deadlocks.push(err.errno);
    };
    db.on('query-error', listener);
    try {
      // The first writer reads what its event counts for (an update of its categories), then locks the terms to count.
      const writer = inWriteTransaction(db, async (repos) => {
        const counted = await repos.events.countedTerms(first);
        read.open();
        await goOn.opened;
        await repos.terms.lockForCounting(counted);
        return counted;
      });
      await read.opened;
      // The next event's writer holds the term, then links its event to it.
      const other = inWriteTransaction(db, async (repos) => {
        await repos.terms.lockForCounting([music]);
        await repos.events.setTerms(next, CATEGORIES.name, [music], true);
      });
      await waitFor(async () => (await waiting()) >= 1, 'the other writer to wait for a lock', 5_000, 25);
      assert.equal(await waiting(), 1, 'the other writer waits for a lock');
      goOn.open();
      assert.deepEqual(await writer, [music]);
      await other;
    } finally {
      goOn.open();
      db.off('query-error', listener);
    }
    assert.deepEqual(deadlocks, [], 'no transaction deadlocked');
  });
});
