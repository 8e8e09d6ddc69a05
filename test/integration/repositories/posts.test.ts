import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { inWriteTransaction } from '../../../src/repositories/registry.js';
import { ORGANIZERS, VENUES } from '../../../src/repositories/linked-kinds.js';
import { CATEGORIES } from '../../../src/repositories/taxonomies.js';
import { createEvent, createLinked, createTerm, createUsers, database, postColumns, reads } from './fixtures.js';
import { renderedKey } from '../../../src/text/rendered-forms.js';

/** Records an image the way `image: <url>` does (posts.insert + insertImage); returns its id. */
async function createImage(db: Knex, url: string, extension = 'jpg'): Promise<number> {
  const urlHash = crypto.createHash('sha256').update(url).digest('hex');
  return inWriteTransaction(db, (repos) =>
    repos.posts.insert('image', postColumns({ title: url.split('/').pop() }), 'image', (id) => repos.posts.insertImage({ post_id: id, url, url_hash: urlHash, extension })),
  );
}

/** The events' copy of `posts.modified_utc`. */
async function modifiedCopy(db: Knex, id: number): Promise<string> {
  return (await db('events').where('post_id', id).first('post_modified_utc')).post_modified_utc;
}

async function eventCopies(db: Knex, id: number): Promise<{ post_status: string; post_date_utc: string }> {
  const row = await db('events').where('post_id', id).first('post_status', 'post_date_utc');
  return { post_status: row.post_status, post_date_utc: row.post_date_utc };
}

async function slugOf(db: Knex, id: number): Promise<string | undefined> {
  return (await reads(db).posts.find(id))?.slug;
}

const REFUSED = /writes run inside inTransaction/;

describe('repositories: writes', () => {
  it('refuse every write outside a transaction and leave the data unchanged', async () => {
    const db = await database();
    const venue = await createLinked(db, VENUES, { title: 'Hall' });
    const music = await createTerm(db, CATEGORIES, 'Music');
    const event = await createEvent(db, { title: 'Gig', status: 'publish', venueIds: [venue], categoryIds: [music] });
    const repos = reads(db);
    const post = (await repos.posts.find(event))!;
    const venueRow = (await repos.venues.findById(venue))!;
    const term = (await repos.terms.findById(music))!;
    const tables = ['posts', 'events', 'venues', 'images', 'event_venues', 'event_terms', 'terms'];
    const snapshot = async () => Promise.all(tables.map((table) => db(table).select()));
    const before = await snapshot();

    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['posts.insert', () => repos.posts.insert('event', postColumns(), 'x', async () => {})],
      ['posts.update', () => repos.posts.update(post, { title: 'Changed' })],
      ['posts.trash', () => repos.posts.trash(post, {})],
      ['posts.destroy', () => repos.posts.destroy({ id: event, type: 'event' })],
      ['posts.insertImage', () => repos.posts.insertImage({ post_id: event, url: 'https://example.com/a.png', url_hash: 'a'.repeat(64), extension: 'png' })],
      ['events.create', () => repos.events.create(postColumns(), 'x', {})],
      ['events.update', () => repos.events.update(post, {}, undefined, { featured: true })],
      ['events.setLinks', () => repos.events.setLinks(event, 'event_venues', 'venue_id', [])],
      ['events.setTerms', () => repos.events.setTerms(event, CATEGORIES.name, [])],
      ['events.countedTerms', () => repos.events.countedTerms(event)],
      ['venues.create', () => repos.venues.create(postColumns(), 'x', { website: '' })],
      ['venues.update', () => repos.venues.update(venueRow, {}, undefined, { city: 'Paris' })],
      ['venues.trash', () => repos.venues.trash(venueRow, {})],
      ['terms.insert', () => repos.terms.insert(CATEGORIES, { name: 'Art', description: '', parent: 0 }, 'art', false)],
      ['terms.update', () => repos.terms.update(term, { name: 'Jazz' }, async () => new Error('clash'))],
      ['terms.delete', () => repos.terms.delete(term)],
      ['terms.shiftCounts', () => repos.terms.shiftCounts([], [music])],
    ];
    const accepted: string[] = [];
    for (const [name, attempt] of attempts) {
      try {
        await attempt();
        accepted.push(name);
      } catch (err) {
        assert.match(String((err as Error).message), REFUSED, name);
      }
    }
    assert.deepEqual(accepted, [], 'every write method refuses a handle that is not a transaction');
    assert.deepEqual(await snapshot(), before);
  });

  it('write inside inWriteTransaction, and a failure rolls the whole write back', async () => {
    const db = await database();
    await assert.rejects(
      inWriteTransaction(db, async (repos) => {
        await repos.events.create(postColumns({ title: 'Lost' }), 'lost', {
          start_local: '2026-01-01 10:00:00',
          end_local: '2026-01-01 11:00:00',
          start_utc: '2026-01-01 10:00:00',
          end_utc: '2026-01-01 11:00:00',
          timezone: 'UTC',
          cost_raw: '[]',
          cost_values: '[]',
          website: '',
        });
        throw new Error('half-way');
      }),
      /half-way/,
    );
    assert.deepEqual(await db('posts').select('id'), []);
    assert.deepEqual(await db('events').select('post_id'), []);
  });
});

describe('PostRepository', () => {
  it('inserts under base, base-2, base-3 within a type; another type may repeat the slug', async () => {
    const db = await database();
    const first = await createEvent(db, { slug: 'party' });
    const second = await createEvent(db, { slug: 'party' });
    const third = await createEvent(db, { slug: 'party' });
    const venue = await createLinked(db, VENUES, { slug: 'party' });
    const organizer = await createLinked(db, ORGANIZERS, { slug: 'party' });
    const numbered = await createEvent(db, { slug: 'party-2' });
    const longer = await createEvent(db, { slug: 'party-time' });
    assert.deepEqual(await Promise.all([first, second, third, venue, organizer, numbered, longer].map((id) => slugOf(db, id))), [
      'party',
      'party-2',
      'party-3',
      'party',
      'party',
      'party-2-2',
      'party-time',
    ]);
  });

  it('reuses the first free number after a gap', async () => {
    const db = await database();
    await createEvent(db, { slug: 'gig' });
    const second = await createEvent(db, { slug: 'gig' });
    await createEvent(db, { slug: 'gig' });
    await inWriteTransaction(db, (repos) => repos.posts.destroy({ id: second, type: 'event' }));
    assert.equal(await slugOf(db, await createEvent(db, { slug: 'gig' })), 'gig-2');
  });

  it('update gives a new slug the first free number among the other posts of the type', async () => {
    const db = await database();
    const party = await createEvent(db, { slug: 'party' });
    const party2 = await createEvent(db, { slug: 'party' });
    const concert = await createEvent(db, { slug: 'concert' });
    const hall = await createLinked(db, VENUES, { slug: 'hall' });
    const rename = async (id: number, base: string, columns = {}) => inWriteTransaction(db, async (repos) => repos.posts.update((await repos.posts.find(id))!, columns, base));

    await rename(concert, 'party', { title: 'Renamed' });
    assert.equal(await slugOf(db, concert), 'party-3');
    assert.equal((await reads(db).posts.find(concert))!.title, 'Renamed', 'the columns are written with the slug');
    // Its own slug does not count as taken: party-2 asking for `party` keeps party-2.
    await rename(party2, 'party');
    assert.equal(await slugOf(db, party2), 'party-2');
    // A venue's slug does not clash with an event's.
    await rename(concert, 'hall');
    assert.equal(await slugOf(db, concert), 'hall');
    assert.equal(await slugOf(db, hall), 'hall');
    // The freed slug is free again.
    await rename(party, 'party-3');
    assert.equal(await slugOf(db, party), 'party-3');
  });

  it('update keeps the events’ copies of status and publication date equal to the post’s', async () => {
    const db = await database();
    const id = await createEvent(db, { status: 'draft', date_utc: '2026-02-01 08:00:00' });
    assert.deepEqual(await eventCopies(db, id), { post_status: 'draft', post_date_utc: '2026-02-01 08:00:00' });
    const update = async (columns: object, slug?: string) => inWriteTransaction(db, async (repos) => repos.posts.update((await repos.posts.find(id))!, columns, slug));

    await update({ status: 'publish', date_utc: '2026-03-01 09:30:00', date: '2026-03-01 10:30:00' });
    assert.deepEqual(await eventCopies(db, id), { post_status: 'publish', post_date_utc: '2026-03-01 09:30:00' });
    await update({ title: 'Only the title' });
    assert.deepEqual(await eventCopies(db, id), { post_status: 'publish', post_date_utc: '2026-03-01 09:30:00' });
    await update({ status: 'private' }, 'new-slug');
    assert.deepEqual(await eventCopies(db, id), { post_status: 'private', post_date_utc: '2026-03-01 09:30:00' });
    // The same through the events repository, with the event's own columns.
    await inWriteTransaction(db, async (repos) =>
      repos.events.update((await repos.posts.find(id))!, { status: 'pending', date_utc: '2026-04-01 00:00:00' }, undefined, { featured: true }),
    );
    assert.deepEqual(await eventCopies(db, id), { post_status: 'pending', post_date_utc: '2026-04-01 00:00:00' });
    const row = (await reads(db).events.findById(id))!;
    assert.deepEqual([row.status, row.dateUtc, row.featured, row.slug], ['pending', '2026-04-01 00:00:00', true, 'new-slug']);
    // The modification time is copied too (docs/contract.md §8).
    assert.equal(await modifiedCopy(db, id), row.modifiedUtc);
    await update({ modified: '2026-06-01 12:00:00', modified_utc: '2026-06-01 10:00:00' });
    assert.equal(await modifiedCopy(db, id), '2026-06-01 10:00:00');
  });

  it('trash sets the status to trash, remembers the one before and keeps the events’ copy', async () => {
    const db = await database();
    const id = await createEvent(db, { status: 'pending', date_utc: '2026-02-01 08:00:00' });
    await inWriteTransaction(db, async (repos) => repos.posts.trash((await repos.posts.find(id))!, { modified: '2026-05-05 05:05:05', modified_utc: '2026-05-05 03:05:05' }));
    const row = (await reads(db).posts.find(id))!;
    assert.deepEqual([row.status, row.trashedFrom, row.modified, row.modifiedUtc], ['trash', 'pending', '2026-05-05 05:05:05', '2026-05-05 03:05:05']);
    assert.deepEqual(await eventCopies(db, id), { post_status: 'trash', post_date_utc: '2026-02-01 08:00:00' });
    assert.equal(await modifiedCopy(db, id), '2026-05-05 03:05:05', 'trashing is a modification (docs/contract.md §8)');
    // Restoring is an update of the status: the copy follows.
    await inWriteTransaction(db, async (repos) => repos.posts.update((await repos.posts.find(id))!, { status: 'pending' }));
    assert.deepEqual(await eventCopies(db, id), { post_status: 'pending', post_date_utc: '2026-02-01 08:00:00' });
  });

  it('destroy removes the post, its own row and its links; what it was linked to stays', async () => {
    const db = await database();
    const venue = await createLinked(db, VENUES);
    const organizer = await createLinked(db, ORGANIZERS);
    const music = await createTerm(db, CATEGORIES, 'Music');
    const kept = await createEvent(db, { venueIds: [venue], organizerIds: [organizer], categoryIds: [music] });
    const gone = await createEvent(db, { venueIds: [venue], organizerIds: [organizer], categoryIds: [music] });
    await inWriteTransaction(db, (repos) => repos.posts.destroy({ id: gone, type: 'event' }));

    assert.equal(await reads(db).posts.find(gone), undefined);
    assert.deepEqual((await db('events').pluck('post_id')).map(Number), [kept]);
    assert.deepEqual((await db('event_venues').pluck('event_id')).map(Number), [kept]);
    assert.deepEqual((await db('event_organizers').pluck('event_id')).map(Number), [kept]);
    assert.deepEqual((await db('event_terms').pluck('event_id')).map(Number), [kept]);
    assert.deepEqual((await db('terms').pluck('id')).map(Number), [music]);

    // Destroying a venue unlinks it from its events; the events stay.
    await inWriteTransaction(db, (repos) => repos.posts.destroy({ id: venue, type: 'venue' }));
    assert.deepEqual(await db('venues').select('post_id'), []);
    assert.deepEqual(await db('event_venues').select('event_id'), []);
    assert.deepEqual((await db('event_organizers').pluck('event_id')).map(Number), [kept]);
    assert.equal((await reads(db).events.findById(kept))?.id, kept);
  });

  it('destroying an image clears it from the posts that showed it', async () => {
    const db = await database();
    const image = await createImage(db, 'https://example.com/poster.png', 'png');
    const event = await createEvent(db, { image_id: image });
    assert.equal((await reads(db).posts.find(event))!.imageId, image);
    await inWriteTransaction(db, (repos) => repos.posts.destroy({ id: image, type: 'image' }));
    assert.equal((await reads(db).posts.find(event))!.imageId, null);
    assert.deepEqual(await db('images').select('post_id'), []);
  });
});

describe('PostRepository reads', () => {
  it('header tells what an id names', async () => {
    const db = await database();
    const { author } = await createUsers(db);
    const event = await createEvent(db, { status: 'draft', author_id: author.id, password: 'secret' });
    const venue = await createLinked(db, VENUES, { password: '' });
    const image = await createImage(db, 'https://example.com/a.jpg');
    const posts = reads(db).posts;
    assert.deepEqual(await posts.header(event), { id: event, type: 'event', status: 'draft', authorId: author.id, password: 'secret' });
    assert.deepEqual(await posts.header(venue), { id: venue, type: 'venue', status: 'publish', authorId: null, password: null });
    assert.deepEqual(await posts.header(image), { id: image, type: 'image', status: 'publish', authorId: null, password: null });
    assert.equal(await posts.header(image + 1000), undefined);
    assert.equal(await posts.header(Number.NaN), undefined);
    assert.equal(await posts.header(2 ** 60), undefined);
  });

  it('find returns every shared column, typed', async () => {
    const db = await database();
    const { editor } = await createUsers(db);
    const image = await createImage(db, 'https://example.com/b.jpg');
    const id = await createEvent(db, {
      slug: 'launch',
      status: 'future',
      author_id: editor.id,
      title: 'Launch',
      description: '<p>Body</p>',
      excerpt: 'Short',
      password: 'pw',
      image_id: image,
      date: '2026-03-01 12:00:00',
      date_utc: '2026-03-01 11:00:00',
      modified: '2026-03-02 12:00:00',
      modified_utc: '2026-03-02 11:00:00',
    });
    assert.deepEqual(await reads(db).posts.find(id), {
      id,
      type: 'event',
      status: 'future',
      authorId: editor.id,
      slug: 'launch',
      title: 'Launch',
      // Its plain form, stored with it (src/text/plain-forms.ts).
      titlePlain: 'Launch',
      description: '<p>Body</p>',
      excerpt: 'Short',
      // The keys of their rendered forms (src/db/rendered-texts.ts).
      descriptionHash: renderedKey('post', '<p>Body</p>'),
      excerptHash: renderedKey('post', 'Short'),
      password: 'pw',
      imageId: image,
      date: '2026-03-01 12:00:00',
      dateUtc: '2026-03-01 11:00:00',
      modified: '2026-03-02 12:00:00',
      modifiedUtc: '2026-03-02 11:00:00',
      trashedFrom: null,
      version: 1,
    });
    for (const bad of [0, -1, 1.5, Number.NaN, id + 1000]) assert.equal(await reads(db).posts.find(bad), undefined, String(bad));
  });

  it('isImage is true for images only', async () => {
    const db = await database();
    const image = await createImage(db, 'https://example.com/c.jpg');
    const event = await createEvent(db);
    const posts = reads(db).posts;
    assert.deepEqual([await posts.isImage(image), await posts.isImage(event), await posts.isImage(image + 1000), await posts.isImage(1.5)], [true, false, false, false]);
  });

  it('imageIdByUrlHash finds an image by the SHA-256 of its URL', async () => {
    const db = await database();
    const url = 'https://example.com/d.jpg';
    const image = await createImage(db, url);
    const hash = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
    assert.equal(await reads(db).posts.imageIdByUrlHash(hash(url)), image);
    assert.equal(await reads(db).posts.imageIdByUrlHash(hash(`${url}?v=2`)), undefined);
  });

  it('loadImages maps each known image id to its image once; nulls and other ids are skipped', async () => {
    const db = await database();
    const plain = await createImage(db, 'https://example.com/e.jpg');
    const sized = await createImage(db, 'https://example.com/f.webp', 'webp');
    await inWriteTransaction(db, async (repos) => {
      await repos.db('images').where('post_id', sized).update({ width: 640, height: 480 });
    });
    const event = await createEvent(db);
    const unknown = Array.from({ length: 600 }, (_, i) => sized + 1000 + i);
    const images = await reads(db).posts.loadImages([plain, null, sized, plain, event, ...unknown]);
    assert.deepEqual(
      [...images.entries()].sort(([a], [b]) => a - b),
      [
        [plain, { url: 'https://example.com/e.jpg', id: plain, extension: 'jpg' }],
        [sized, { url: 'https://example.com/f.webp', id: sized, extension: 'webp', width: 640, height: 480 }],
      ],
    );
    assert.equal((await reads(db).posts.loadImages([])).size, 0);
  });
});
