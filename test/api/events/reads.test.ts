import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import {
  EVENT_KEYS,
  PUBLIC_URL,
  badParams,
  call,
  createEvent,
  createOrganizer,
  createVenue,
  eventPath,
  eventSlugPath,
  eventsApp,
  listEvents,
  type Body,
  type Http,
  type Rec,
} from '../../helpers/events.js';

describe('events: single reads by id and by slug', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  const create = (extra: Body = {}, as: TestUser = users.editor) => createEvent(http, as, extra);
  /** GET /events/{id} as `as` (anonymous when absent). */
  const get = (id: number, as?: TestUser, query = '') => call(http, 'get', `${eventPath(id)}${query}`, as);

  /** The peer capture's event: Chicago, a venue, an organizer, a category, a tag and a cost. */
  const peerEvent = async () => {
    const organizer = await createOrganizer(http, users.editor, {
      organizer: 'Peer Test Org',
      phone: '+1 217 555 0199',
      website: 'https://org.example.test',
      email: 'org@example.test',
    });
    const venue = await createVenue(http, users.editor, {
      venue: 'Peer Test Hall',
      address: '1 Main Street',
      city: 'Springfield',
      country: 'United States',
      state: 'IL',
      zip: '62701',
      phone: '+1 217 555 0100',
      website: 'https://venue.example.test',
    });
    const event = await create({
      title: 'Peer Test Event',
      description: 'An event created through the REST API.',
      excerpt: 'Peer test excerpt',
      start_date: '2030-05-01 10:00:00',
      end_date: '2030-05-01 12:30:00',
      timezone: 'America/Chicago',
      cost: '15',
      website: 'https://event.example.test',
      venue: venue.id,
      organizer: [organizer.id],
      featured: true,
    });
    return { event, venue, organizer };
  };

  describe('replies remembered between writes (operations/shared/replies.ts)', () => {
    it('reflects every write to the event and to what it embeds, per caller and per password', async () => {
      const { event, venue } = await peerEvent();
      const first = await get(event.id);
      expectStatus(first, 200);
      assert.deepEqual((await get(event.id)).body, first.body, 'a repeated read is the same');
      expectStatus(await call(http, 'post', eventPath(event.id), users.editor, { title: 'Renamed' }), 200);
      assert.equal((await get(event.id)).body.title, 'Renamed');
      expectStatus(await call(http, 'post', `${NS}/venues/${venue.id}`, users.editor, { city: 'Shelbyville' }), 200);
      assert.equal((await get(event.id)).body.venue.city, 'Shelbyville');
      expectStatus(await call(http, 'post', eventPath(event.id), users.editor, { password: 'sesame' }), 200);
      expectError(await get(event.id), 403, 'event-password-protected');
      expectError(await get(event.id, undefined, '?password=wrong'), 403, 'event-password-protected');
      assert.match((await get(event.id, undefined, '?password=sesame')).body.description, /created through the REST API/);
      assert.match((await get(event.id, users.editor)).body.description, /created through the REST API/);
      expectStatus(await call(http, 'post', eventPath(event.id), users.editor, { status: 'draft' }), 200);
      expectError(await get(event.id), 403, 'event-not-accessible');
      expectStatus(await get(event.id, users.editor), 200);
      expectStatus(await call(http, 'delete', `${eventPath(event.id)}?force=true`, users.editor), 200);
      expectStatus(await get(event.id, users.editor), 404);
    });
  });

  describe('the record', () => {
    it('returns the event with json_ld last: Event, offset dates, location, organizer and offers', async () => {
      const { event } = await peerEvent();
      const res = await get(event.id);
      expectStatus(res, 200);
      const read = res.body as Rec;
      assert.deepEqual(Object.keys(read), [...EVENT_KEYS, 'json_ld']);
      const ld = read.json_ld;
      assert.equal(ld['@context'], 'http://schema.org');
      assert.equal(ld['@type'], 'Event');
      assert.equal(ld.name, 'Peer Test Event');
      assert.equal(ld.url, `${PUBLIC_URL}/event/peer-test-event/`);
      assert.equal(ld.startDate, '2030-05-01T10:00:00-05:00');
      assert.equal(ld.endDate, '2030-05-01T12:30:00-05:00');
      assert.equal(ld.location['@type'], 'Place');
      assert.equal(ld.location.name, 'Peer Test Hall');
      assert.equal(ld.location.address['@type'], 'PostalAddress');
      assert.equal(ld.location.address.addressLocality, 'Springfield');
      assert.equal(ld.organizer['@type'], 'Person');
      assert.equal(ld.organizer.name, 'Peer Test Org');
      assert.deepEqual(
        { type: ld.offers['@type'], price: ld.offers.price, currency: ld.offers.priceCurrency, url: ld.offers.url },
        { type: 'Offer', price: '15', currency: 'USD', url: `${PUBLIC_URL}/event/peer-test-event/` },
      );
      const { json_ld: _ld, venue, organizer, ...rest } = read;
      const { venue: createdVenue, organizer: createdOrganizers, ...created } = event;
      assert.deepEqual(rest, created, 'the same record as the create answer, apart from json_ld');
      assert.equal(venue.json_ld['@type'], 'Place');
      assert.deepEqual(Object.keys(venue).slice(-5), ['json_ld', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage']);
      assert.deepEqual({ ...venue, json_ld: undefined }, { ...createdVenue, json_ld: undefined });
      assert.equal(organizer[0].json_ld['@type'], 'Person');
      assert.equal(organizer[0].json_ld.email, 'org@example.test', 'no random entity encoding');
      assert.deepEqual({ ...organizer[0], json_ld: undefined }, { ...createdOrganizers[0], json_ld: undefined });
    });

    it('returns the same record by slug as by id', async () => {
      const { event } = await peerEvent();
      const byId = await get(event.id);
      const bySlug = await call(http, 'get', eventSlugPath('peer-test-event'));
      expectStatus(bySlug, 200);
      assert.deepEqual(bySlug.body, byId.body);
    });

    it('leaves out offers, location and organizer from json_ld when the event has none', async () => {
      const event = await create({ timezone: 'Europe/Paris', start_date: '2030-07-01 20:00:00', end_date: '2030-07-01 22:00:00' });
      const ld = (await get(event.id)).body.json_ld;
      assert.equal(ld.startDate, '2030-07-01T20:00:00+02:00');
      for (const key of ['offers', 'location', 'organizer']) assert.ok(!(key in ld), `${key} in ${JSON.stringify(ld)}`);
    });

    it('does not put json_ld in lists, nor on embedded venues and organizers there', async () => {
      await peerEvent();
      const res = await listEvents(http, 'start_date=2030-01-01&end_date=2030-12-31');
      const [listed] = res.body.events as Rec[];
      assert.deepEqual(Object.keys(listed), EVENT_KEYS);
      assert.ok(!('json_ld' in listed.venue));
      assert.ok(!('json_ld' in listed.organizer[0]));
    });

    it('answers 304 to a matching If-None-Match', async () => {
      const event = await create();
      const first = await get(event.id);
      assert.ok(first.headers.etag);
      const again = await call(http, 'get', eventPath(event.id)).set('If-None-Match', first.headers.etag);
      assert.equal(again.status, 304);
    });
  });

  describe('not found and wrong ids', () => {
    it('answers 404 rest-event-not-found with the plugin message for an unknown id', async () => {
      const res = await get(999999);
      expectError(res, 404, 'rest-event-not-found');
      assert.deepEqual(res.body, { code: 'rest-event-not-found', message: 'Event with ID 999999 does not exist.', data: { status: 404 } });
    });

    it('answers 404 for the id 0', async () => {
      const res = await get(0);
      expectError(res, 404, 'rest-event-not-found');
      assert.equal(res.body.message, 'Event with ID 0 does not exist.');
    });

    it('answers 400 rest-invalid-event-id for the id of a venue or organizer', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'A Venue' });
      const organizer = await createOrganizer(http, users.editor, { organizer: 'An Org' });
      for (const id of [venue.id, organizer.id]) {
        const res = await get(id);
        expectError(res, 400, 'rest-invalid-event-id');
        assert.equal(res.body.message, 'The specified ID is not a valid event.');
      }
    });

    it('answers rest_no_route for an id that is not digits, and 404 for an unknown slug', async () => {
      expectError(await call(http, 'get', `${NS}/events/abc`), 404, 'rest_no_route');
      expectError(await call(http, 'get', `${NS}/events/12abc`), 404, 'rest_no_route');
      expectError(await call(http, 'get', eventSlugPath('no-such-event')), 404, 'rest-event-not-found');
    });

    it('rejects an empty password parameter', async () => {
      const event = await create();
      assert.deepEqual(badParams(await get(event.id, undefined, '?password=')), ['password']);
    });
  });

  describe('visibility', () => {
    const roles: Array<Role | 'anonymous'> = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];
    const as = (role: Role | 'anonymous') => (role === 'anonymous' ? undefined : users[role]);

    /** The status each role gets on GET (by id and by slug), compared with the expected map. */
    const expectReadable = async (event: Rec, expected: Record<string, number>, code: string) => {
      for (const role of roles) {
        for (const res of [await get(event.id, as(role)), await call(http, 'get', eventSlugPath(event.slug), as(role))]) {
          if (expected[role] === 200) {
            expectStatus(res, 200);
            assert.equal(res.body.id, event.id);
          } else expectError(res, expected[role], code);
        }
      }
    };

    it("shows an editor's draft only to editors and administrators (403 event-not-accessible)", async () => {
      const draft = await create({ status: 'draft', title: 'Editor Draft' });
      await expectReadable(draft, { anonymous: 403, subscriber: 403, contributor: 403, author: 403, editor: 200, administrator: 200 }, 'event-not-accessible');
      const res = await get(draft.id);
      assert.equal(res.body.message, 'The requested event is not accessible');
    });

    it("shows a contributor's pending event to its author, editors and administrators", async () => {
      const pending = await create({ status: 'pending', title: 'Contributor Pending' }, users.contributor);
      await expectReadable(pending, { anonymous: 403, subscriber: 403, contributor: 200, author: 403, editor: 200, administrator: 200 }, 'event-not-accessible');
    });

    it('shows a private event to its author and to editors only', async () => {
      const hidden = await create({ status: 'private', title: 'Author Private' }, users.author);
      await expectReadable(hidden, { anonymous: 403, subscriber: 403, contributor: 403, author: 200, editor: 200, administrator: 200 }, 'event-not-accessible');
    });

    it('shows a scheduled event only to those who may edit it', async () => {
      const future = await create({ title: 'Scheduled', date: '2027-06-01 10:00:00' }, users.author);
      assert.equal(future.status, 'future');
      await expectReadable(future, { anonymous: 403, subscriber: 403, contributor: 403, author: 200, editor: 200, administrator: 200 }, 'event-not-accessible');
    });

    it('lets editors read a trashed event (status trash) and refuses others with event-no-longer-available', async () => {
      const event = await create({ title: 'Trashed' }, users.author);
      expectStatus(await call(http, 'delete', eventPath(event.id), users.author), 200);
      await expectReadable(
        { ...event, slug: 'trashed' },
        { anonymous: 403, subscriber: 403, contributor: 403, author: 403, editor: 200, administrator: 200 },
        'event-no-longer-available',
      );
      const res = await get(event.id);
      assert.equal(res.body.message, 'This event is no longer available');
      assert.equal((await get(event.id, users.editor)).body.status, 'trash');
    });

    it('asks for the password of a protected event, except from those who may edit it', async () => {
      const event = await create({ title: 'Locked', password: 'open sesame' }, users.author);
      const refused = await get(event.id);
      expectError(refused, 403, 'event-password-protected');
      assert.equal(refused.body.message, 'The requested event is not accessible without a password');
      expectError(await get(event.id, undefined, '?password=wrong'), 403, 'event-password-protected');
      expectError(await get(event.id, users.subscriber), 403, 'event-password-protected');
      expectError(await get(event.id, users.contributor), 403, 'event-password-protected');
      expectError(await call(http, 'get', eventSlugPath('locked')), 403, 'event-password-protected');
      const opened = await get(event.id, undefined, `?password=${encodeURIComponent('open sesame')}`);
      expectStatus(opened, 200);
      assert.equal(opened.body.title, 'Locked');
      assert.ok(!('password' in opened.body));
      expectStatus(await call(http, 'get', `${eventSlugPath('locked')}?password=open%20sesame`), 200);
      expectStatus(await get(event.id, users.author), 200);
      expectStatus(await get(event.id, users.editor), 200);
      expectStatus(await get(event.id, users.administrator), 200);
    });

    it('hides an embedded draft venue and organizer from readers who may not read them', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Draft Venue', status: 'draft' });
      const organizer = await createOrganizer(http, users.editor, { organizer: 'Draft Org', status: 'draft' });
      const shown = await createOrganizer(http, users.editor, { organizer: 'Public Org' });
      const event = await create({ venue: venue.id, organizer: [organizer.id, shown.id] });
      for (const reader of [undefined, users.subscriber, users.author]) {
        const read = (await get(event.id, reader)).body as Rec;
        assert.deepEqual(read.venue, [], reader?.role ?? 'anonymous');
        assert.deepEqual(
          read.organizer.map((o: Rec) => o.organizer),
          ['Public Org'],
          reader?.role ?? 'anonymous',
        );
        assert.ok(!('location' in read.json_ld));
      }
      const byEditor = (await get(event.id, users.editor)).body as Rec;
      assert.equal(byEditor.venue.venue, 'Draft Venue');
      assert.deepEqual(
        byEditor.organizer.map((o: Rec) => o.organizer),
        ['Draft Org', 'Public Org'],
      );
      const listed = (await listEvents(http, 'start_date=2030-01-01&end_date=2030-12-31')).body.events[0] as Rec;
      assert.deepEqual(listed.venue, []);
      assert.deepEqual(
        listed.organizer.map((o: Rec) => o.organizer),
        ['Public Org'],
      );
    });

    it('drops a trashed venue and organizer from the event for good, even once they are restored', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Short-lived Venue' });
      const organizer = await createOrganizer(http, users.editor, { organizer: 'Short-lived Org' });
      const event = await create({ venue: venue.id, organizer: [organizer.id] });
      expectStatus(await call(http, 'delete', `${NS}/venues/${venue.id}`, users.editor), 200);
      expectStatus(await call(http, 'delete', `${NS}/organizers/${organizer.id}`, users.editor), 200);
      const read = (await get(event.id, users.editor)).body as Rec;
      assert.deepEqual([read.venue, read.organizer], [[], []]);
      expectStatus(await call(http, 'put', `${NS}/venues/${venue.id}`, users.editor, { status: 'publish' }), 200);
      expectStatus(await call(http, 'put', `${NS}/organizers/${organizer.id}`, users.editor, { status: 'publish' }), 200);
      const restored = (await get(event.id, users.editor)).body as Rec;
      assert.deepEqual([restored.venue, restored.organizer], [[], []]);
    });

    it('masks an embedded password-protected venue for readers who may not edit it, keeping its name', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Secret Venue', address: '1 Hidden Road', city: 'Nowhere', password: 'venue-pass' });
      const event = await create({ venue: venue.id });
      const anonymous = (await get(event.id)).body as Rec;
      assert.equal(anonymous.venue.venue, 'Secret Venue');
      assert.ok(!('address' in anonymous.venue) || anonymous.venue.address === '', JSON.stringify(anonymous.venue));
      assert.ok(!('city' in anonymous.venue) || anonymous.venue.city === '', JSON.stringify(anonymous.venue));
      const editor = (await get(event.id, users.editor)).body as Rec;
      assert.equal(editor.venue.address, '1 Hidden Road');
    });
  });
});
