import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { User } from '../../../src/auth/capabilities.js';
import { inWriteTransaction } from '../../../src/repositories/registry.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../../../src/repositories/linked-kinds.js';
import type { LinkedListFilter } from '../../../src/repositories/linked.js';
import { readerOf } from '../../../src/policies/posts.js';
import { ALL_STATUSES, createEvent, createLinked, createUsers, database, reads, type LinkedSpec, linkedIds } from './fixtures.js';

/** A list filter: every status, one page of 100; `overrides` win. */
function linkedFilter(user: User | undefined, overrides: Partial<LinkedListFilter> = {}): LinkedListFilter {
  return { statuses: ALL_STATUSES, reader: readerOf(user), limit: 100, offset: 0, ...overrides };
}

async function titles(db: Knex, kind: LinkedKind, filter: LinkedListFilter): Promise<string[]> {
  return (await reads(db).linked(kind).list(filter)).rows.map((row) => row.title);
}

/** Records created in this order are listed in this order (the list shows the newest publication date first). */
async function createInListOrder(db: Knex, kind: LinkedKind, specs: LinkedSpec[]): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, spec] of specs.entries()) ids.push(await createLinked(db, kind, { date_utc: `2026-01-${String(28 - i).padStart(2, '0')} 00:00:00`, ...spec }));
  return ids;
}

describe('LinkedRepository.list', () => {
  it('orders by publication date, newest first, then id, and applies the read rule', async () => {
    const db = await database();
    const { contributor, editor } = await createUsers(db);
    await createLinked(db, VENUES, { title: 'Old', date_utc: '2026-01-01 00:00:00' });
    await createLinked(db, VENUES, { title: 'New', date_utc: '2026-03-01 00:00:00' });
    await createLinked(db, VENUES, { title: 'Mine, draft', status: 'draft', author_id: contributor.id, date_utc: '2026-02-01 00:00:00' });
    await createLinked(db, VENUES, { title: 'Editor draft', status: 'draft', author_id: editor.id, date_utc: '2026-02-01 00:00:00' });
    await createLinked(db, VENUES, { title: 'Trashed', status: 'trash', date_utc: '2025-12-01 00:00:00' });
    await createLinked(db, VENUES, { title: 'Old, newer id', date_utc: '2026-01-01 00:00:00' });
    assert.deepEqual(await titles(db, VENUES, linkedFilter(undefined)), ['New', 'Old, newer id', 'Old']);
    assert.deepEqual(await titles(db, VENUES, linkedFilter(contributor)), ['New', 'Mine, draft', 'Old, newer id', 'Old']);
    assert.deepEqual(await titles(db, VENUES, linkedFilter(editor)), ['New', 'Editor draft', 'Mine, draft', 'Old, newer id', 'Old', 'Trashed']);
    assert.deepEqual(await titles(db, VENUES, linkedFilter(editor, { statuses: ['draft'] })), ['Editor draft', 'Mine, draft']);
    assert.deepEqual(await titles(db, ORGANIZERS, linkedFilter(editor)), [], 'venues are not organizers');
  });

  it('search: a record matches when one of its fields contains every word', async () => {
    const db = await database();
    const { contributor, otherContributor, editor } = await createUsers(db);
    await createInListOrder(db, VENUES, [
      { title: 'Blue Note', own: { city: 'New York' } },
      { title: 'Red Room', own: { address: '12 Blue Street' } },
      { title: 'Green Hall', own: { zip: '10-001', phone: '555 1234' }, excerpt: 'a blue-ish hall' },
      { title: 'Locked', password: 'pw', author_id: contributor.id, own: { address: 'Blue Lane' } },
    ]);
    const search = (text: string, user?: User) => titles(db, VENUES, linkedFilter(user, { search: text }));
    assert.deepEqual(await search('blue'), ['Blue Note', 'Red Room', 'Green Hall']);
    assert.deepEqual(await search('BLUE note'), ['Blue Note']);
    assert.deepEqual(await search('Blue, Note!'), ['Blue Note'], 'punctuation separates words');
    assert.deepEqual(await search('note york'), [], 'the words are in two different fields');
    assert.deepEqual(await search('street 12'), ['Red Room']);
    assert.deepEqual(await search('10-001'), ['Green Hall'], 'a hyphen belongs to the word');
    assert.deepEqual(await search('blue-ish'), ['Green Hall']);
    assert.deepEqual(await search('555'), ['Green Hall']);
    assert.deepEqual(await search('!!! ...'), ['Blue Note', 'Red Room', 'Green Hall', 'Locked'], 'no word: no filter');
    // Protected fields count only for callers who may see them; the name always does.
    assert.deepEqual(await search('lane'), []);
    assert.deepEqual(await search('lane', otherContributor), []);
    // A contributor may not edit its own published venue, so its protected fields stay hidden from it.
    assert.deepEqual(await search('lane', contributor), []);
    assert.deepEqual(await search('lane', editor), ['Locked']);
    assert.deepEqual(await search('locked'), ['Locked']);
  });

  it('search: organizers match on phone, e-mail and website', async () => {
    const db = await database();
    await createInListOrder(db, ORGANIZERS, [
      { title: 'Ann', own: { email: 'ann@jazz.example', phone: '', website: '' } },
      { title: 'Bob', own: { email: 'bob@rock.example', phone: '+1 555', website: 'https://jazz.example/bob' } },
    ]);
    const search = (text: string) => titles(db, ORGANIZERS, linkedFilter(undefined, { search: text }));
    assert.deepEqual(await search('ann@jazz'), ['Ann']);
    assert.deepEqual(await search('jazz'), ['Ann', 'Bob']);
    assert.deepEqual(await search('jazz bob'), ['Bob']);
    assert.deepEqual(await search('555'), ['Bob']);
  });

  it('eventId: the records linked to that event', async () => {
    const db = await database();
    const [v1, v2, v3] = await createInListOrder(db, VENUES, [{ title: 'v1' }, { title: 'v2' }, { title: 'v3' }]);
    const event = await createEvent(db, { venueIds: [v3, v1] });
    await createEvent(db, { venueIds: [v2] });
    assert.deepEqual(await titles(db, VENUES, linkedFilter(undefined, { eventId: event })), ['v1', 'v3']);
    assert.deepEqual(await titles(db, VENUES, linkedFilter(undefined, { eventId: event + 1000 })), []);
  });

  it('hasEvents: linked to an event that is not a draft or pending and that the caller may read', async () => {
    const db = await database();
    const names = ['publish', 'draft', 'pending', 'private', 'future', 'trash', 'none', 'draft+publish'];
    const ids = await createInListOrder(
      db,
      ORGANIZERS,
      names.map((title) => ({ title, own: { website: '' } })),
    );
    for (const [i, status] of names.entries()) {
      if (status === 'none') continue;
      if (status === 'draft+publish') {
        await createEvent(db, { status: 'draft', organizerIds: [ids[i]] });
        await createEvent(db, { status: 'publish', organizerIds: [ids[i]] });
      } else {
        await createEvent(db, { status, organizerIds: [ids[i]] });
      }
    }
    // Only events the caller may read count: for an anonymous caller, published ones.
    assert.deepEqual(await titles(db, ORGANIZERS, linkedFilter(undefined, { hasEvents: true })), ['publish', 'draft+publish']);
    assert.deepEqual(await titles(db, ORGANIZERS, linkedFilter(undefined, { hasEvents: false })), ['draft', 'pending', 'private', 'future', 'trash', 'none']);
  });

  it('upcomingFrom: linked to an event the caller may read, in the given statuses, starting at or after the moment', async () => {
    const db = await database();
    const { editor, contributor } = await createUsers(db);
    const [exact, later, past, draft, ownDraft] = await createInListOrder(db, VENUES, [
      { title: 'exact' },
      { title: 'later' },
      { title: 'past' },
      { title: 'draft' },
      { title: 'own draft' },
    ]);
    await createLinked(db, VENUES, { title: 'no events' });
    await createEvent(db, { start: '2026-06-05 00:00:00', venueIds: [exact] });
    await createEvent(db, { start: '2026-07-01 00:00:00', venueIds: [later] });
    await createEvent(db, { start: '2026-06-04 23:59:59', venueIds: [past] });
    await createEvent(db, { start: '2026-07-01 00:00:00', status: 'draft', author_id: editor.id, venueIds: [draft] });
    await createEvent(db, { start: '2026-07-01 00:00:00', status: 'draft', author_id: contributor.id, venueIds: [ownDraft] });
    const upcoming = (user: User | undefined, upcomingStatuses?: string[]) => titles(db, VENUES, linkedFilter(user, { upcomingFrom: '2026-06-05 00:00:00', upcomingStatuses }));
    assert.deepEqual(await upcoming(undefined), ['exact', 'later']);
    assert.deepEqual(await upcoming(editor, ['publish', 'draft']), ['exact', 'later', 'draft', 'own draft']);
    assert.deepEqual(await upcoming(contributor, ['publish', 'draft']), ['exact', 'later', 'own draft']);
    assert.deepEqual(await upcoming(editor, ['draft']), ['draft', 'own draft']);
  });

  it('pages with a total equal to the size of the filtered set', async () => {
    const db = await database();
    await createInListOrder(
      db,
      VENUES,
      ['a', 'b', 'c', 'd', 'e'].map((title) => ({ title, own: { city: title === 'e' ? 'Paris' : 'Here' } })),
    );
    const page = async (limit: number, offset: number, search?: string) => {
      const { rows, total } = await reads(db).venues.list(linkedFilter(undefined, { limit, offset, search }));
      return { titles: rows.map((row) => row.title), total };
    };
    assert.deepEqual(await page(2, 0), { titles: ['a', 'b'], total: 5 });
    assert.deepEqual(await page(2, 4), { titles: ['e'], total: 5 });
    assert.deepEqual(await page(2, 8), { titles: [], total: 5 });
    assert.deepEqual(await page(2, 2, 'here'), { titles: ['c', 'd'], total: 4 });
    assert.deepEqual(await page(2, 8, 'here'), { titles: [], total: 4 });
    await createLinked(db, VENUES, { title: 'f', own: { city: 'Here' } });
    assert.deepEqual((await page(2, 8, 'here')).total, 5, 'a committed write is counted');
  });
});

describe('LinkedRepository.findDuplicate', () => {
  it('finds the oldest readable, untrashed record with the same title and the same non-empty compared fields, ignoring case', async () => {
    const db = await database();
    const { contributor, otherContributor, editor } = await createUsers(db);
    await createLinked(db, VENUES, { title: 'Blue Note', status: 'trash', own: { address: '1 Main St', city: 'NYC' } });
    const first = await createLinked(db, VENUES, { title: 'Blue Note', own: { address: '1 Main St', city: 'NYC' } });
    await createLinked(db, VENUES, { title: 'Blue Note', own: { address: '1 Main St', city: 'NYC' } });
    const draft = await createLinked(db, VENUES, { title: 'Draft Hall', status: 'draft', author_id: contributor.id, description: 'Big', own: { city: 'Paris' } });
    const venues = reads(db).venues;
    const find = async (title: string, sent: Record<string, string>, user?: User) => (await venues.findDuplicate(title, sent, readerOf(user)))?.id;

    assert.equal(await find('blue note', { address: '1 MAIN ST', city: '' }), first, 'empty fields are not compared');
    assert.equal(await find('Blue Note', { address: '', city: '', zip: '' }), first);
    assert.equal(await find('Blue Note', { address: '1 Main St', city: 'Boston' }), undefined);
    assert.equal(await find('Blue Note', { zip: '10001' }), undefined, 'a sent field compares with an empty one');
    assert.equal(await find('Blue Not', {}), undefined, 'the title is compared whole');
    assert.equal(await find('Draft Hall', { city: 'paris' }), undefined, 'anonymous callers cannot read the draft');
    assert.equal(await find('Draft Hall', { city: 'paris' }, otherContributor), undefined);
    assert.equal(await find('Draft Hall', { city: 'paris' }, contributor), draft);
    assert.equal(await find('Draft Hall', { city: 'paris', description: 'BIG' }, editor), draft);
    assert.equal(await find('Draft Hall', { description: 'Small' }, editor), undefined, 'the description is compared too');
  });

  it('compares organizers on their own fields', async () => {
    const db = await database();
    const ann = await createLinked(db, ORGANIZERS, { title: 'Ann', own: { email: 'ann@example.com', phone: '555', website: '' } });
    const find = async (sent: Record<string, string>) => (await reads(db).organizers.findDuplicate('ANN', sent, readerOf(undefined)))?.id;
    assert.equal(await find({ email: 'ANN@example.com', phone: '', website: '' }), ann);
    assert.equal(await find({ email: 'ann@example.com', phone: '556', website: '' }), undefined);
    assert.equal(await find({ website: 'https://ann.example' }), undefined);
  });
});

describe('LinkedRepository writes', () => {
  it('trash moves the record to the trash and unlinks it from every event', async () => {
    const db = await database();
    const [hall, club] = [await createLinked(db, VENUES, { title: 'Hall', status: 'private' }), await createLinked(db, VENUES, { title: 'Club' })];
    const organizer = await createLinked(db, ORGANIZERS, { own: { website: '' } });
    const first = await createEvent(db, { venueIds: [hall, club], organizerIds: [organizer] });
    const second = await createEvent(db, { venueIds: [hall] });
    await inWriteTransaction(db, async (repos) => repos.venues.trash((await repos.venues.findById(hall))!, {}));

    const row = (await reads(db).venues.findById(hall))!;
    assert.deepEqual([row.status, row.trashedFrom], ['trash', 'private']);
    const { venues, organizers } = await linkedIds(db, [first, second]);
    assert.deepEqual([venues.get(first), venues.get(second), organizers.get(first)], [[club], undefined, [organizer]]);
    assert.equal((await reads(db).events.findById(second))?.id, second, 'the events stay');
  });

  it('create and update write the shared and the kind’s own columns; findById, findBySlug and findByIds read them back', async () => {
    const db = await database();
    const id = await createLinked(db, VENUES, {
      title: 'Hall',
      slug: 'hall',
      own: { address: '1 Main St', city: 'Paris', country: 'France', zip: '75001', show_map: false, geo_lat: 48.86, geo_lng: 2.35, website: 'https://hall.example' },
    });
    await inWriteTransaction(db, async (repos) =>
      repos.venues.update((await repos.venues.findById(id))!, { title: 'Great Hall' }, 'great-hall', { city: 'Lyon', geo_lat: null, geo_lng: null }),
    );
    const row = (await reads(db).venues.findBySlug('great-hall'))!;
    assert.deepEqual(row, await reads(db).venues.findById(id));
    assert.deepEqual([row.title, row.slug, row.showMap, row.showMapLink, row.geoLat, row.geoLng], ['Great Hall', 'great-hall', false, true, null, null]);
    assert.deepEqual(row.fields, {
      address: '1 Main St',
      city: 'Lyon',
      country: 'France',
      province: '',
      state: '',
      zip: '75001',
      phone: '',
      website: 'https://hall.example',
      stateprovince: '',
    });
    const organizer = await createLinked(db, ORGANIZERS, { title: 'Ann', own: { email: 'ann@example.com', website: '' } });
    const organizerRow = (await reads(db).organizers.findById(organizer))!;
    assert.deepEqual(organizerRow.fields, { phone: '', website: '', email: 'ann@example.com' });
    assert.deepEqual([organizerRow.showMap, organizerRow.geoLat], [true, null]);
    assert.deepEqual(
      (await reads(db).venues.findByIds([id, organizer, id + 1000])).map((r) => r.id),
      [id],
    );
    assert.deepEqual(await reads(db).venues.findByIds([]), []);
    assert.equal(await reads(db).venues.findById(organizer), undefined, 'an organizer is not a venue');
    assert.equal(await reads(db).organizers.findBySlug('great-hall'), undefined);
  });
});
