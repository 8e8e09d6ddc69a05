import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { engineOf } from '../../../src/db/engine.js';
import { inWriteTransaction } from '../../../src/repositories/registry.js';
import { ORGANIZERS, VENUES } from '../../../src/repositories/linked-kinds.js';
import { CATEGORIES, TAGS } from '../../../src/repositories/taxonomies.js';
import { createEvent, createLinked, createTerm, createUsers, database, eventFilter, eventTitles, reads, linkedIds, termIdsOf } from './fixtures.js';

const day = (n: number, time = '10:00:00') => `2026-06-${String(n).padStart(2, '0')} ${time}`;

describe('EventRepository.list: who sees what', () => {
  /** One event per status and author; titles say which. Starts follow the order of this list. */
  async function calendar(db: Knex) {
    const users = await createUsers(db);
    const { contributor, author, subscriber } = users;
    const specs: Array<[string, string, number | null]> = [
      ['published', 'publish', null],
      ['contributor published', 'publish', contributor.id],
      ['contributor draft', 'draft', contributor.id],
      ['contributor pending', 'pending', contributor.id],
      ['contributor future', 'future', contributor.id],
      ['contributor private', 'private', contributor.id],
      ['contributor trash', 'trash', contributor.id],
      ['author draft', 'draft', author.id],
      ['author private', 'private', author.id],
      ['subscriber private', 'private', subscriber.id],
      ['subscriber draft', 'draft', subscriber.id],
    ];
    for (const [i, [title, status, authorId]] of specs.entries()) await createEvent(db, { title, status, author_id: authorId, start: day(i + 1) });
    return users;
  }

  it('anonymous callers see published events only, whatever statuses are asked for', async () => {
    const db = await database();
    await calendar(db);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined)), ['published', 'contributor published']);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, { statuses: ['draft', 'private'] })), []);
  });

  it('a contributor sees published events and their own drafts, pending, scheduled and private ones, never the trash', async () => {
    const db = await database();
    const { contributor, otherContributor } = await calendar(db);
    assert.deepEqual(await eventTitles(db, eventFilter(contributor)), [
      'published',
      'contributor published',
      'contributor draft',
      'contributor pending',
      'contributor future',
      'contributor private',
    ]);
    assert.deepEqual(await eventTitles(db, eventFilter(otherContributor)), ['published', 'contributor published']);
  });

  it('an author sees published events and their own; a subscriber only their own private ones besides', async () => {
    const db = await database();
    const { author, subscriber } = await calendar(db);
    assert.deepEqual(await eventTitles(db, eventFilter(author)), ['published', 'contributor published', 'author draft', 'author private']);
    assert.deepEqual(await eventTitles(db, eventFilter(subscriber)), ['published', 'contributor published', 'subscriber private']);
  });

  it('editors and administrators see every status they ask for, and only those', async () => {
    const db = await database();
    const { editor, administrator } = await calendar(db);
    const everything = await eventTitles(db, eventFilter(editor));
    assert.equal(everything.length, 11);
    assert.deepEqual(await eventTitles(db, eventFilter(administrator)), everything);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, { statuses: ['draft'] })), ['contributor draft', 'author draft', 'subscriber draft']);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, { statuses: ['trash', 'future'] })), ['contributor future', 'contributor trash']);
  });

  it('the statuses asked for narrow what the read rule allows', async () => {
    const db = await database();
    const { contributor } = await calendar(db);
    assert.deepEqual(await eventTitles(db, eventFilter(contributor, { statuses: ['private'] })), ['contributor private']);
    assert.deepEqual(await eventTitles(db, eventFilter(contributor, { statuses: ['publish'] })), ['published', 'contributor published']);
  });

  it('leaves out events hidden from listings, for every caller', async () => {
    const db = await database();
    const { editor } = await createUsers(db);
    await createEvent(db, { title: 'listed', start: day(1) });
    await createEvent(db, { title: 'hidden', start: day(2), own: { hide_from_listings: true } });
    assert.deepEqual(await eventTitles(db, eventFilter(undefined)), ['listed']);
    assert.deepEqual(await eventTitles(db, eventFilter(editor)), ['listed']);
    assert.equal((await reads(db).events.list(eventFilter(editor))).total, 1);
  });
});

describe('EventRepository.list: filters', () => {
  it('date bounds: startFrom and endTo inclusive, the others strict', async () => {
    const db = await database();
    await createEvent(db, { title: 'one', start: '2026-05-01 10:00:00', end: '2026-05-01 12:00:00' });
    await createEvent(db, { title: 'two', start: '2026-05-02 10:00:00', end: '2026-05-04 10:00:00' });
    await createEvent(db, { title: 'three', start: '2026-05-03 09:00:00', end: '2026-05-03 10:00:00' });
    const titles = (bounds: object) => eventTitles(db, eventFilter(undefined, { bounds }));
    assert.deepEqual(await titles({ startFrom: '2026-05-02 10:00:00' }), ['two', 'three']);
    assert.deepEqual(await titles({ endTo: '2026-05-03 10:00:00' }), ['one', 'three']);
    assert.deepEqual(await titles({ startFrom: '2026-05-01 10:00:01', endTo: '2026-05-04 10:00:00' }), ['two', 'three']);
    assert.deepEqual(await titles({ startsAfter: '2026-05-02 10:00:00' }), ['three']);
    assert.deepEqual(await titles({ startsBefore: '2026-05-02 10:00:00' }), ['one']);
    assert.deepEqual(await titles({ endsAfter: '2026-05-03 10:00:00' }), ['two']);
    assert.deepEqual(await titles({ endsBefore: '2026-05-04 10:00:00' }), ['one', 'three']);
    assert.deepEqual(await titles({ startsAfter: '2026-05-01 10:00:00', endsBefore: '2026-05-04 10:00:00' }), ['three']);
    assert.deepEqual(await titles({ endTo: '2026-05-01 11:59:59' }), []);
  });

  it('term lists: an event matches a list when it has any of its terms; several lists must all match', async () => {
    const db = await database();
    const music = await createTerm(db, CATEGORIES, 'Music');
    const art = await createTerm(db, CATEGORIES, 'Art');
    const free = await createTerm(db, TAGS, 'Free');
    await createEvent(db, { title: 'A music', start: day(1), categoryIds: [music] });
    await createEvent(db, { title: 'B art free', start: day(2), categoryIds: [art], tagIds: [free] });
    await createEvent(db, { title: 'C music free', start: day(3), categoryIds: [music], tagIds: [free] });
    await createEvent(db, { title: 'D none', start: day(4) });
    const titles = (termLists: number[][]) => eventTitles(db, eventFilter(undefined, { termLists }));
    assert.deepEqual(await titles([]), ['A music', 'B art free', 'C music free', 'D none']);
    assert.deepEqual(await titles([[music]]), ['A music', 'C music free']);
    assert.deepEqual(await titles([[music, art]]), ['A music', 'B art free', 'C music free']);
    assert.deepEqual(await titles([[music], [free]]), ['C music free']);
    assert.deepEqual(await titles([[art], [free]]), ['B art free']);
    assert.deepEqual(await titles([[music, art], [free]]), ['B art free', 'C music free']);
    assert.deepEqual(await titles([[music], [art]]), []);
  });

  it('venue and organizer filters: any of the given ids; both together must match', async () => {
    const db = await database();
    const [v1, v2] = [await createLinked(db, VENUES), await createLinked(db, VENUES)];
    const [o1, o2] = [await createLinked(db, ORGANIZERS), await createLinked(db, ORGANIZERS)];
    await createEvent(db, { title: 'v1 o1', start: day(1), venueIds: [v1], organizerIds: [o1] });
    await createEvent(db, { title: 'v2 o1 o2', start: day(2), venueIds: [v2], organizerIds: [o1, o2] });
    await createEvent(db, { title: 'v1', start: day(3), venueIds: [v1] });
    await createEvent(db, { title: 'none', start: day(4) });
    const titles = (overrides: object) => eventTitles(db, eventFilter(undefined, overrides));
    assert.deepEqual(await titles({ venueIds: [v1] }), ['v1 o1', 'v1']);
    assert.deepEqual(await titles({ venueIds: [v1, v2] }), ['v1 o1', 'v2 o1 o2', 'v1']);
    assert.deepEqual(await titles({ organizerIds: [o2] }), ['v2 o1 o2']);
    assert.deepEqual(await titles({ organizerIds: [o1] }), ['v1 o1', 'v2 o1 o2']);
    assert.deepEqual(await titles({ venueIds: [v1], organizerIds: [o1] }), ['v1 o1']);
    assert.deepEqual(await titles({ venueIds: [v1], organizerIds: [o2] }), []);
    assert.deepEqual(await titles({ venueIds: [] }), [], 'an empty list matches nothing');
  });

  it('featured: true keeps featured events, false the others', async () => {
    const db = await database();
    await createEvent(db, { title: 'plain', start: day(1) });
    await createEvent(db, { title: 'featured', start: day(2), own: { featured: true } });
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, { featured: true })), ['featured']);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, { featured: false })), ['plain']);
  });

  it('include keeps the given ids, ordered by publication date then id', async () => {
    const db = await database();
    const early = await createEvent(db, { title: 'starts first, published last', start: day(1), date_utc: '2026-01-03 00:00:00' });
    const late = await createEvent(db, { title: 'starts last, published first', start: day(3), date_utc: '2026-01-01 00:00:00' });
    await createEvent(db, { title: 'not included', start: day(2), date_utc: '2026-01-02 00:00:00' });
    const tie = await createEvent(db, { title: 'starts second, published first too', start: day(2), date_utc: '2026-01-01 00:00:00' });
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, { include: [early, tie, late] })), [
      'starts last, published first',
      'starts second, published first too',
      'starts first, published last',
    ]);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, { include: [] })), []);
  });

  it('orders by local start, then publication date, then id', async () => {
    const db = await database();
    await createEvent(db, { title: 'noon, published 2nd', start: day(1, '12:00:00'), date_utc: '2026-01-02 00:00:00' });
    await createEvent(db, { title: 'noon, published 1st', start: day(1, '12:00:00'), date_utc: '2026-01-01 00:00:00' });
    await createEvent(db, { title: 'noon, published 2nd, newer id', start: day(1, '12:00:00'), date_utc: '2026-01-02 00:00:00' });
    await createEvent(db, { title: 'morning', start: day(1, '09:00:00'), date_utc: '2026-01-09 00:00:00' });
    await createEvent(db, { title: 'next day', start: day(2, '00:00:00'), date_utc: '2025-01-01 00:00:00' });
    assert.deepEqual(await eventTitles(db, eventFilter(undefined)), ['morning', 'noon, published 1st', 'noon, published 2nd', 'noon, published 2nd, newer id', 'next day']);
  });
});

describe('EventRepository.list: search', () => {
  async function searchCalendar(db: Knex) {
    const users = await createUsers(db);
    await createEvent(db, { title: 'Jazz night', description: 'live music downtown', start: day(1) });
    await createEvent(db, { title: 'Rock concert', description: 'loud music', excerpt: 'jazz influenced', start: day(2) });
    await createEvent(db, { title: 'Secret jazz', description: 'hidden music', password: 'pw', start: day(3) });
    await createEvent(db, { title: 'Private gig', description: 'hidden jazz', password: 'pw', author_id: users.contributor.id, start: day(4) });
    return users;
  }
  const search = (include: string[], exclude: string[] = []) => ({ search: { include, exclude } });

  it('every include term must be in the title, description or excerpt, case-insensitively', async () => {
    const db = await database();
    const { editor } = await searchCalendar(db);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, search(['jazz']))), ['Jazz night', 'Rock concert', 'Secret jazz', 'Private gig']);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, search(['JAZZ', 'Music']))), ['Jazz night', 'Rock concert', 'Secret jazz']);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, search(['downtown']))), ['Jazz night']);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, search(['jazz'], ['loud', 'hidden']))), ['Jazz night']);
    assert.deepEqual(await eventTitles(db, eventFilter(editor, search([], ['music']))), ['Private gig']);
  });

  it('protected text is searched only for callers who may see it; the title always is', async () => {
    const db = await database();
    const { contributor, otherContributor } = await searchCalendar(db);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search(['jazz']))), ['Jazz night', 'Rock concert', 'Secret jazz']);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search(['music']))), ['Jazz night', 'Rock concert']);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search(['jazz', 'music']))), ['Jazz night', 'Rock concert']);
    // Protected text is searched by those who may edit the record: a contributor may not edit its own
    // published event, so its text stays hidden from it too; another contributor does not see it either.
    assert.deepEqual(await eventTitles(db, eventFilter(contributor, search(['jazz']))), ['Jazz night', 'Rock concert', 'Secret jazz']);
    assert.deepEqual(await eventTitles(db, eventFilter(otherContributor, search(['jazz']))), ['Jazz night', 'Rock concert', 'Secret jazz']);
    // Text the caller cannot search cannot exclude a record either.
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search([], ['hidden']))), ['Jazz night', 'Rock concert', 'Secret jazz', 'Private gig']);
    assert.deepEqual(await eventTitles(db, eventFilter(otherContributor, search([], ['hidden']))), ['Jazz night', 'Rock concert', 'Secret jazz', 'Private gig']);
    assert.deepEqual(await eventTitles(db, eventFilter(contributor, search([], ['hidden']))), ['Jazz night', 'Rock concert', 'Secret jazz', 'Private gig']);
  });

  it('protected text of an event without an author stays hidden from contributors, for include and exclude alike', async () => {
    const db = await database();
    const { contributor } = await createUsers(db);
    await createEvent(db, { title: 'Orphan', description: 'zebra', password: 'pw', author_id: null, start: day(1) });
    await createEvent(db, { title: 'Open', description: 'zebra', start: day(2) });
    assert.deepEqual(await eventTitles(db, eventFilter(contributor, search(['zebra']))), ['Open']);
    assert.deepEqual(await eventTitles(db, eventFilter(contributor, search([], ['zebra']))), ['Orphan']);
  });

  it('% and _ in a search term match themselves', async () => {
    const db = await database();
    await createEvent(db, { title: '100% fun', start: day(1) });
    await createEvent(db, { title: '1000 fans', start: day(2) });
    await createEvent(db, { title: 'snake_case', start: day(3) });
    await createEvent(db, { title: 'snakescase', start: day(4) });
    await createEvent(db, { title: 'bang!', start: day(5) });
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search(['100%']))), ['100% fun']);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search(['e_c']))), ['snake_case']);
    assert.deepEqual(await eventTitles(db, eventFilter(undefined, search(['g!']))), ['bang!']);
  });
});

describe('EventRepository.list: pages and totals', () => {
  async function fiveEvents(db: Knex): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await createEvent(db, { title: `e${i}`, start: day(i) }));
    return ids;
  }

  it('limit and offset cut the ordered list; total is the size of the filtered set on every page', async () => {
    const db = await database();
    await fiveEvents(db);
    const page = async (limit: number, offset: number) => {
      const { rows, total } = await reads(db).events.list(eventFilter(undefined, { limit, offset }));
      return { titles: rows.map((row) => row.title), total };
    };
    assert.deepEqual(await page(2, 0), { titles: ['e1', 'e2'], total: 5 });
    assert.deepEqual(await page(2, 2), { titles: ['e3', 'e4'], total: 5 });
    assert.deepEqual(await page(2, 4), { titles: ['e5'], total: 5 });
    assert.deepEqual(await page(2, 6), { titles: [], total: 5 });
    assert.deepEqual(await page(5, 0), { titles: ['e1', 'e2', 'e3', 'e4', 'e5'], total: 5 });
    assert.deepEqual(await page(6, 0), { titles: ['e1', 'e2', 'e3', 'e4', 'e5'], total: 5 });
  });

  it('a page of more than 100 read in slices leaves out an event trashed after its ids were read, and counts it out of the total', async () => {
    const db = await database();
    const ids: number[] = [];
    for (let i = 0; i < 150; i++) ids.push(await createEvent(db, { title: `s${i}`, start: day(1 + (i % 28)) }));
    const trashed = ids[120];
    let trash: Promise<unknown> | undefined;
    // The page's ids are read first (a statement of p.id alone); the write is sent while it runs, so
    // on SQLite's one connection it lands before the rows are read in slices.
    const listener = (query: { sql: string }) => {
      if (trash === undefined && /^select [`"]p[`"]\.[`"]id[`"] from/.test(query.sql))
        trash = db.transaction(async (trx) => {
          await trx('posts').where('id', trashed).update({ status: 'trash' });
          await trx('events').where('post_id', trashed).update({ post_status: 'trash' });
        });
    };
    db.on('query', listener);
    try {
      const { rows, total } = await reads(db).events.list(eventFilter(undefined, { limit: 200 }));
      await trash;
      assert.ok(trash, 'the ids were read apart');
      // The whole set fits the page: its total is what the page holds, whenever the write landed.
      assert.equal(total, rows.length);
      if (engineOf(db) === 'sqlite') {
        assert.equal(rows.length, 149);
        assert.ok(!rows.some((row) => row.id === trashed));
      }
    } finally {
      db.removeListener('query', listener);
    }
  });

  it('total counts the filtered set, not every event', async () => {
    const db = await database();
    const music = await createTerm(db, CATEGORIES, 'Music');
    for (let i = 1; i <= 4; i++) await createEvent(db, { title: `music ${i}`, start: day(i), categoryIds: [music] });
    await createEvent(db, { title: 'other', start: day(9) });
    assert.equal((await reads(db).events.list(eventFilter(undefined, { termLists: [[music]], limit: 2 }))).total, 4);
    assert.equal((await reads(db).events.list(eventFilter(undefined, { termLists: [[music]], limit: 2, offset: 10 }))).total, 4);
    assert.equal((await reads(db).events.list(eventFilter(undefined, { limit: 2, offset: 10 }))).total, 5);
  });

  it('total follows every committed write, and is never one caller’s for another', async () => {
    const db = await database();
    const { editor, contributor, otherContributor } = await createUsers(db);
    await fiveEvents(db);
    const total = async (user = editor) => (await reads(db).events.list(eventFilter(user, { limit: 2 }))).total;
    assert.equal(await total(), 5);
    const draft = await createEvent(db, { title: 'draft', status: 'draft', author_id: contributor.id, start: day(20) });
    assert.equal(await total(), 6);
    assert.equal(await total(contributor), 6);
    assert.equal(await total(otherContributor), 5);
    assert.equal((await reads(db).events.list(eventFilter(undefined, { limit: 2 }))).total, 5);
    await inWriteTransaction(db, async (repos) => repos.posts.trash((await repos.posts.find(draft))!, {}));
    assert.equal(await total(contributor), 5);
    assert.equal(await total(), 6, 'editors asked for the trash too');
    await inWriteTransaction(db, (repos) => repos.posts.destroy({ id: draft, type: 'event' }));
    assert.equal(await total(), 5);
  });
});

describe('EventRepository: links and terms', () => {
  it('linkedIds gives venues and organizers in link order, without repeats', async () => {
    const db = await database();
    const [v1, v2] = [await createLinked(db, VENUES), await createLinked(db, VENUES)];
    const [o1, o2, o3] = [await createLinked(db, ORGANIZERS), await createLinked(db, ORGANIZERS), await createLinked(db, ORGANIZERS)];
    const first = await createEvent(db, { venueIds: [v2, v1], organizerIds: [o3, o1, o3, o2] });
    const second = await createEvent(db, { venueIds: [v1], organizerIds: [o2] });
    const bare = await createEvent(db);
    const { venues, organizers } = await linkedIds(db, [first, second, bare]);
    assert.deepEqual(
      [...venues.entries()].sort(([a], [b]) => a - b),
      [
        [first, [v2, v1]],
        [second, [v1]],
      ],
    );
    assert.deepEqual(
      [...organizers.entries()].sort(([a], [b]) => a - b),
      [
        [first, [o3, o1, o2]],
        [second, [o2]],
      ],
    );
    const none = await linkedIds(db, []);
    assert.deepEqual([none.venues.size, none.organizers.size], [0, 0]);
  });

  it('setLinks replaces the links of one kind only', async () => {
    const db = await database();
    const [v1, v2, v3] = [await createLinked(db, VENUES), await createLinked(db, VENUES), await createLinked(db, VENUES)];
    const o1 = await createLinked(db, ORGANIZERS);
    const event = await createEvent(db, { venueIds: [v1, v2], organizerIds: [o1] });
    await inWriteTransaction(db, (repos) => repos.events.setLinks(event, 'event_venues', 'venue_id', [v3, v1]));
    let linked = await linkedIds(db, [event]);
    assert.deepEqual([linked.venues.get(event), linked.organizers.get(event)], [[v3, v1], [o1]]);
    await inWriteTransaction(db, (repos) => repos.events.setLinks(event, 'event_venues', 'venue_id', []));
    linked = await linkedIds(db, [event]);
    assert.deepEqual([linked.venues.get(event), linked.organizers.get(event)], [undefined, [o1]]);
  });

  it('termIds gives each event’s terms of every taxonomy; setTerms replaces one taxonomy’s', async () => {
    const db = await database();
    const [music, art, dance] = [await createTerm(db, CATEGORIES, 'Music'), await createTerm(db, CATEGORIES, 'Art'), await createTerm(db, CATEGORIES, 'Dance')];
    const free = await createTerm(db, TAGS, 'Free');
    const event = await createEvent(db, { categoryIds: [music, art, music], tagIds: [free] });
    const other = await createEvent(db, { categoryIds: [art] });
    const sorted = (ids: number[] | undefined) => [...(ids ?? [])].sort((a, b) => a - b);
    let terms = await termIdsOf(db, [event, other]);
    assert.deepEqual([sorted(terms.get(event)), sorted(terms.get(other))], [sorted([music, art, free]), [art]]);
    await inWriteTransaction(db, (repos) => repos.events.setTerms(event, CATEGORIES.name, [dance]));
    terms = await termIdsOf(db, [event, other]);
    assert.deepEqual([sorted(terms.get(event)), sorted(terms.get(other))], [sorted([dance, free]), [art]]);
    await inWriteTransaction(db, (repos) => repos.events.setTerms(event, TAGS.name, []));
    terms = await termIdsOf(db, [event]);
    assert.deepEqual(sorted(terms.get(event)), [dance]);
  });

  it('links reports each linked record’s current version and each term’s published count', async () => {
    const db = await database();
    const venue = await createLinked(db, VENUES);
    const music = await createTerm(db, CATEGORIES, 'Music');
    const event = await createEvent(db, { venueIds: [venue], categoryIds: [music] });
    await createEvent(db, { categoryIds: [music] });
    const stateOf = async () =>
      (await reads(db).events.links([event])).map((link) => [link.kind, link.id, link.version, link.count]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    await inWriteTransaction(db, async (repos) => repos.terms.shiftCounts([], [music]));
    assert.deepEqual(await stateOf(), [
      ['term', music, 1, 1],
      ['venue', venue, 1, 0],
    ]);
    await inWriteTransaction(db, async (repos) => repos.venues.update((await repos.venues.findById(venue))!, { title: 'Renamed' }, undefined, {}));
    await inWriteTransaction(db, async (repos) => repos.terms.shiftCounts([], [music]));
    assert.deepEqual(await stateOf(), [
      ['term', music, 1, 2],
      ['venue', venue, 2, 0],
    ]);
  });

  it('findWithLinks and findBySlugWithLinks read the row and the same links as links', async () => {
    const db = await database();
    const [v1, v2] = [await createLinked(db, VENUES), await createLinked(db, VENUES)];
    const [o1, o2] = [await createLinked(db, ORGANIZERS), await createLinked(db, ORGANIZERS)];
    const [music, art] = [await createTerm(db, CATEGORIES, 'Music'), await createTerm(db, CATEGORIES, 'Art')];
    const free = await createTerm(db, TAGS, 'Free');
    const event = await createEvent(db, { venueIds: [v2, v1], organizerIds: [o2, o1], categoryIds: [music, art], tagIds: [free] });
    const bare = await createEvent(db);
    await inWriteTransaction(db, async (repos) => repos.terms.shiftCounts([], [music, music, free]));
    const repos = reads(db);
    for (const id of [event, bare]) {
      const found = await repos.events.findWithLinks(id);
      assert.ok(found);
      const { links, ...row } = found;
      assert.deepEqual(row, await repos.events.findById(id));
      assert.deepEqual(links, await repos.events.links([id]));
      assert.deepEqual(await repos.events.findBySlugWithLinks(row.slug), found);
    }
    assert.equal((await repos.events.findWithLinks(event))!.links.length, 7);
    assert.equal(await repos.events.findWithLinks(event + 1000), undefined);
    assert.equal(await repos.events.findWithLinks(v1), undefined);
    assert.equal(await repos.events.findBySlugWithLinks('no-such-event'), undefined);
  });

  it('countedTerms: the terms of a published event, none for any other status', async () => {
    const db = await database();
    const music = await createTerm(db, CATEGORIES, 'Music');
    const free = await createTerm(db, TAGS, 'Free');
    const counted = async (id: number) => (await inWriteTransaction(db, (repos) => repos.events.countedTerms(id))).sort((a, b) => a - b);
    const published = await createEvent(db, { categoryIds: [music], tagIds: [free] });
    assert.deepEqual(
      await counted(published),
      [music, free].sort((a, b) => a - b),
    );
    for (const status of ['draft', 'pending', 'future', 'private', 'trash']) {
      assert.deepEqual(await counted(await createEvent(db, { status, categoryIds: [music] })), [], status);
    }
    assert.deepEqual(await counted(published + 1000), []);
  });

  it('findById and findBySlug read the event’s own columns', async () => {
    const db = await database();
    const id = await createEvent(db, {
      slug: 'fest',
      start: '2026-07-01 18:00:00',
      end: '2026-07-02 02:00:00',
      own: {
        all_day: true,
        featured: true,
        sticky: true,
        show_map: false,
        cost_raw: '["10","free"]',
        cost_values: '["0","10"]',
        currency_symbol: '$',
        website: 'https://fest.example',
      },
    });
    const row = (await reads(db).events.findBySlug('fest'))!;
    assert.deepEqual(row, await reads(db).events.findById(id));
    assert.deepEqual(
      [
        row.id,
        row.startLocal,
        row.endLocal,
        row.timezone,
        row.allDay,
        row.featured,
        row.sticky,
        row.showMap,
        row.showMapLink,
        row.hideFromListings,
        row.costRaw,
        row.costValues,
        row.currencySymbol,
        row.website,
        row.postParent,
      ],
      [id, '2026-07-01 18:00:00', '2026-07-02 02:00:00', 'UTC', true, true, true, false, true, false, ['10', 'free'], ['0', '10'], '$', 'https://fest.example', null],
    );
    assert.equal(await reads(db).events.findBySlug('nope'), undefined);
    const venue = await createLinked(db, VENUES, { slug: 'hall' });
    assert.equal(await reads(db).events.findById(venue), undefined, 'a venue is not an event');
  });
});
