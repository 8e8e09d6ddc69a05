import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { badParams, call, createEvent, createOrganizer, createVenue, eventPath, eventsApp, expectEnvelope, pathOf, type Body, type Http, type Rec } from '../../helpers/events.js';
import { isIsoWithOffset, richResultProblems, vocabularyProblems } from '../../helpers/schema-org.js';

/** The JSON-LD feed and the events' `json_ld` (docs/contract.md §12), checked against schema.org's vocabulary offline. */

const feedPath = `${NS}/events.jsonld`;

/** The feed's clock: the default list window (yesterday to two years ahead) covers the 2030 events. */
const CLOCK = '2030-04-20T12:00:00Z';

/** A venue with every part of an address. */
const TOWN_HALL = { venue: 'Town Hall', address: '1 Main Street', city: 'Springfield', state: 'IL', zip: '62701', country: 'United States', geo_lat: 39.78, geo_lng: -89.65 };

/** Asserts a feed answer: 200, its media type, an ItemList whose every object is known to schema.org; returns the list. */
function itemList(res: Response): Rec {
  expectStatus(res, 200);
  assert.equal(res.headers['content-type'], 'application/ld+json; charset=utf-8');
  const list = res.body as Rec;
  assert.deepEqual(Object.keys(list), ['@context', '@type', 'name', 'url', 'numberOfItems', 'itemListElement']);
  assert.equal(list['@context'], 'http://schema.org');
  assert.equal(list['@type'], 'ItemList');
  assert.deepEqual(vocabularyProblems(list), []);
  assert.equal(list.numberOfItems, Number(res.headers['x-wp-total']));
  for (const element of list.itemListElement as Rec[]) {
    assert.equal(element['@type'], 'ListItem');
    assert.equal(element.item['@context'], undefined, 'the list carries the context');
    assert.ok(isIsoWithOffset(element.item.startDate) && isIsoWithOffset(element.item.endDate), JSON.stringify(element.item));
  }
  return list;
}

const items = (list: Rec): Rec[] => (list.itemListElement as Rec[]).map((element) => element.item as Rec);
const byName = (list: Rec, name: string): Rec => {
  const found = items(list).find((item) => item.name === name);
  assert.ok(found, `no item "${name}" in ${JSON.stringify(list)}`);
  return found;
};

describe('JSON-LD feed (GET /events.jsonld) and event json_ld', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp({}, CLOCK));
    users = await createUsers();
  });

  const create = (extra: Body = {}, as: TestUser = users.editor) => createEvent(http, as, extra);
  const feed = (query = '', as?: TestUser) => call(http, 'get', `${feedPath}${query}`, as) as unknown as Promise<Response>;
  const single = async (id: number, as?: TestUser): Promise<Rec> => {
    const res = await call(http, 'get', eventPath(id), as);
    expectStatus(res, 200);
    return res.body.json_ld as Rec;
  };

  /** Events with what Google asks for: a venue with a full address, an organizer, an image, a cost; one crossing a DST change; one online and free. */
  async function richEvents(): Promise<Map<string, Rec>> {
    const venue = await createVenue(http, users.editor, TOWN_HALL);
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Music Society', website: 'https://music.example.test' });
    const common = { venue: venue.id, organizer: [organizer.id], image: 'https://images.example.test/poster.jpg', description: '<p>An <em>evening</em> of music.</p>' };
    const created = new Map<string, Rec>();
    for (const [title, extra] of [
      ['Range', { ...common, cost: '$10 - $25', timezone: 'America/New_York', start_date: '2030-05-01 19:00:00', end_date: '2030-05-01 21:30:00' }],
      ['Euro, night; «café»', { ...common, cost: '€15', timezone: 'Europe/Paris', start_date: '2030-10-26 22:00:00', end_date: '2030-10-27 04:00:00' }],
      [
        'Online',
        { organizer: [organizer.id], image: 'https://images.example.test/online.jpg', description: 'Streamed.', website: 'https://stream.example.test/live', cost: 'Free' },
      ],
    ] as Array<[string, Body]>) {
      created.set(title, await create({ title, ...extra }));
    }
    return created;
  }

  it('is a schema.org ItemList of the events, application/ld+json, every item as its single json_ld without @context', async () => {
    const created = await richEvents();
    const list = itemList(await feed('?start_date=2030-01-01&end_date=2031-01-01'));
    assert.equal(list.name, 'api.test Events');
    assert.equal(list.numberOfItems, 3);
    assert.deepEqual(
      (list.itemListElement as Rec[]).map((element) => element.position),
      [1, 2, 3],
    );
    assert.deepEqual(
      items(list).map((item) => item.name),
      ['Online', 'Range', 'Euro, night; «café»'],
    );
    for (const [title, event] of created) {
      const { '@context': context, ...rest } = await single(event.id);
      assert.equal(context, 'http://schema.org');
      assert.deepEqual(byName(list, title), rest, title);
    }
  });

  it('meets the rich-result guidelines: status, attendance mode, Place with a full PostalAddress, offers, organizer, image, dates with offsets', async () => {
    const created = await richEvents();
    const list = itemList(await feed('?start_date=2030-01-01&end_date=2031-01-01'));
    for (const [index, item] of items(list).entries()) assert.deepEqual(richResultProblems(item, `item ${index}`), []);
    for (const event of created.values()) {
      const jsonLd = await single(event.id);
      assert.deepEqual(vocabularyProblems(jsonLd), []);
      assert.deepEqual(richResultProblems(jsonLd), []);
    }
    const range = byName(list, 'Range');
    assert.deepEqual(Object.keys(range), [
      '@type',
      'name',
      'description',
      'image',
      'url',
      'eventAttendanceMode',
      'eventStatus',
      'startDate',
      'endDate',
      'location',
      'organizer',
      'offers',
      'performer',
    ]);
    assert.equal(range.eventStatus, 'https://schema.org/EventScheduled');
    assert.equal(range.eventAttendanceMode, 'https://schema.org/OfflineEventAttendanceMode');
    assert.equal(range.startDate, '2030-05-01T19:00:00-04:00');
    assert.equal(range.description, 'An evening of music.');
    assert.equal(range.image, 'https://images.example.test/poster.jpg');
    assert.deepEqual(range.location.address, {
      '@type': 'PostalAddress',
      streetAddress: '1 Main Street',
      addressLocality: 'Springfield',
      addressRegion: 'IL',
      postalCode: '62701',
      addressCountry: 'United States',
    });
    assert.deepEqual(range.offers, {
      '@type': 'AggregateOffer',
      price: '10',
      lowPrice: '10',
      highPrice: '25',
      priceCurrency: 'USD',
      url: range.url,
      category: 'primary',
      availability: 'https://schema.org/InStock',
      validFrom: range.offers.validFrom,
    });
    assert.ok(isIsoWithOffset(range.offers.validFrom));
    assert.deepEqual(range.organizer, { '@type': 'Person', name: 'Music Society', url: 'https://music.example.test', sameAs: 'https://music.example.test' });
    // Across the end of summer time in Paris: the start and the end have their own offsets.
    const euro = byName(list, 'Euro, night; «café»');
    assert.equal(euro.startDate, '2030-10-26T22:00:00+02:00');
    assert.equal(euro.endDate, '2030-10-27T04:00:00+01:00');
    assert.equal(euro.offers['@type'], 'Offer');
    assert.equal(euro.offers.priceCurrency, 'EUR');
    assert.equal(euro.offers.price, '15');
    // No venue, a website: online, at that website; Free is a price of 0.
    const online = byName(list, 'Online');
    assert.equal(online.eventAttendanceMode, 'https://schema.org/OnlineEventAttendanceMode');
    assert.deepEqual(online.location, { '@type': 'VirtualLocation', url: 'https://stream.example.test/live' });
    assert.equal(online.offers.price, '0');
  });

  it('makes offers of any cost: one price, a range, thousands, a code, an unknown symbol, only words, none', async () => {
    const cases: Array<[string, unknown, Rec | undefined]> = [
      ['one', '15', { '@type': 'Offer', price: '15', priceCurrency: 'USD' }],
      ['zero', ['0'], { '@type': 'Offer', price: '0', priceCurrency: 'USD' }],
      ['thousands', '1,000 - 2.500,50', { '@type': 'AggregateOffer', price: '1000', lowPrice: '1000', highPrice: '2500.50', priceCurrency: 'USD' }],
      ['code', '20 CHF', { '@type': 'Offer', price: '20', priceCurrency: 'CHF' }],
      ['pounds', '£7.50', { '@type': 'Offer', price: '7.50', priceCurrency: 'GBP' }],
      ['kronor', '100 kr', { '@type': 'Offer', price: '100', priceCurrency: undefined }],
      ['donation', 'Donation', undefined],
      ['none', '', undefined],
    ];
    for (const [title, cost] of cases) await create({ title, cost });
    const list = itemList(await feed('?per_page=50'));
    for (const [title, , expected] of cases) {
      const offers = byName(list, title).offers as Rec | undefined;
      if (!expected) {
        assert.equal(offers, undefined, title);
        continue;
      }
      const picked = Object.fromEntries(Object.keys(expected).map((key) => [key, offers?.[key]]));
      assert.deepEqual(picked, expected, title);
      assert.deepEqual(vocabularyProblems(offers, title, ['Offer', 'AggregateOffer']), []);
    }
  });

  it('pages as GET /events does: positions across pages, totals, Link headers to the feed, 404 past the end', async () => {
    for (const day of ['01', '02', '03', '04', '05']) await create({ title: `Day ${day}`, start_date: `2030-05-${day} 10:00:00`, end_date: `2030-05-${day} 11:00:00` });
    const first = await feed('?per_page=2');
    const list = itemList(first);
    assert.equal(list.numberOfItems, 5);
    assert.equal(first.headers['x-wp-totalpages'], '3');
    assert.equal(first.headers['x-tec-total'], '5');
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
    assert.ok(next, String(first.headers.link));
    assert.match(next, /\/events\.jsonld\?page=2&per_page=2&/);
    assert.equal(list.url, next.replace('page=2', 'page=1'));
    const second = itemList(await feed(pathOf(next).slice(feedPath.length)));
    assert.deepEqual(
      (second.itemListElement as Rec[]).map((element) => [element.position, element.item.name]),
      [
        [3, 'Day 03'],
        [4, 'Day 04'],
      ],
    );
    const json = await call(http, 'get', `${NS}/events?per_page=2&page=2`);
    assert.deepEqual(
      items(second).map((item) => item.url),
      (json.body.events as Rec[]).map((event) => event.url),
    );
    expectError(await feed('?per_page=2&page=4'), 404, 'event-archive-page-not-found');
    const empty = itemList(await feed('?start_date=2040-01-01'));
    assert.equal(empty.numberOfItems, 0);
    assert.deepEqual(empty.itemListElement, []);
  });

  it('answers the list parameters as GET /events does (400 in the JSON envelope, 401 for wrong credentials)', async () => {
    for (const [query, param] of [
      ['?start_date=not-a-date', 'start_date'],
      ['?categories=no-such-category', 'categories'],
      ['?ticketed=true', 'ticketed'],
      ['?geoloc_lat=10', 'geoloc_lng'],
      ['?per_page=0', 'per_page'],
      ['?venue=999999', 'venue'],
    ]) {
      const res = await feed(query);
      assert.deepEqual(badParams(res), [param], query);
      expectEnvelope(res, query);
    }
    expectError(await call(http, 'get', feedPath).set('Authorization', 'Basic bm9ib2R5Ondyb25n'), 401, 'rest_invalid_credentials');
  });

  it('filters as GET /events does, names the list after the categories, and ignores _fields', async () => {
    await create({ title: 'Concert', categories: ['Music'] });
    await create({ title: 'Exhibition', categories: ['Art'] });
    const list = itemList(await feed('?categories=music&_fields=name'));
    assert.deepEqual(
      items(list).map((item) => item.name),
      ['Concert'],
    );
    assert.equal(list.name, 'api.test Events: Music');
  });

  it('never shows a protected event text, nor a protected venue or organizer beyond their names', async () => {
    const venue = await createVenue(http, users.editor, { ...TOWN_HALL, venue: 'Secret Place', address: '7 Hidden Way' });
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Secret Host', email: 'secret@example.test' });
    await create({
      title: 'Locked',
      password: 'sesame',
      description: 'Secret words',
      excerpt: 'Secret excerpt',
      cost: '99',
      image: 'https://images.example.test/secret.jpg',
      venue: venue.id,
      organizer: [organizer.id],
    });
    const guardedVenue = await createVenue(http, users.editor, { venue: 'Guarded Hall', address: '9 Secret Road', password: 'pw' });
    const guardedHost = await createOrganizer(http, users.editor, { organizer: 'Guarded Crew', email: 'crew@secret.test', password: 'pw' });
    const open = await create({ title: 'Open', venue: guardedVenue.id, organizer: [guardedHost.id] });
    for (const as of [undefined, users.subscriber]) {
      const res = await feed('', as);
      const list = itemList(res);
      const locked = byName(list, 'Locked');
      assert.deepEqual(Object.keys(locked), ['@type', 'name', 'url', 'eventAttendanceMode', 'eventStatus', 'startDate', 'endDate', 'performer']);
      assert.equal(locked.eventAttendanceMode, 'https://schema.org/OfflineEventAttendanceMode');
      for (const secret of [
        'Secret words',
        'Secret excerpt',
        'Secret Place',
        'Hidden Way',
        'Secret Host',
        'secret@example.test',
        'secret.jpg',
        '"99"',
        'Secret Road',
        'crew@secret.test',
      ]) {
        assert.ok(!res.text.includes(secret), `${as?.role ?? 'anonymous'}: ${secret}`);
      }
      const shown = byName(list, 'Open');
      assert.deepEqual(shown.location, { '@type': 'Place', name: 'Guarded Hall', url: 'http://api.test/venue/guarded-hall/' });
      assert.deepEqual(shown.organizer, { '@type': 'Person', name: 'Guarded Crew', url: 'http://api.test/organizer/guarded-crew/' });
    }
    // The single read of the open event embeds the same names only.
    const jsonLd = await single(open.id);
    assert.ok(!JSON.stringify(jsonLd).includes('Secret Road') && !JSON.stringify(jsonLd).includes('crew@secret.test'));
    // Its editor sees everything.
    const editor = byName(itemList(await feed('', users.editor)), 'Locked');
    assert.equal(editor.description, 'Secret excerpt');
    assert.equal(editor.location.address.streetAddress, '7 Hidden Way');
  });

  it('never lists drafts to anonymous callers; a trashed event is EventCancelled for the editors who read it', async () => {
    await create({ title: 'Published' });
    await create({ title: 'Draft', status: 'draft' });
    const trashed = await create({ title: 'Withdrawn' });
    expectStatus(await call(http, 'delete', eventPath(trashed.id), users.editor), 200);
    assert.deepEqual(
      items(itemList(await feed())).map((item) => item.name),
      ['Published'],
    );
    const drafts = itemList(await feed('?status=draft', users.editor));
    assert.equal(byName(drafts, 'Draft').eventStatus, 'https://schema.org/EventScheduled');
    assert.equal(byName(itemList(await feed('?status=trash', users.editor)), 'Withdrawn').eventStatus, 'https://schema.org/EventCancelled');
    assert.equal((await single(trashed.id, users.editor)).eventStatus, 'https://schema.org/EventCancelled');
  });

  it('answers If-None-Match with 304 while nothing changed, and a new list once an event changed', async () => {
    const event = await create({ title: 'Cached' });
    const first = await feed();
    expectStatus(first, 200);
    const tag = first.headers.etag;
    assert.ok(tag);
    assert.equal((await feed()).headers.etag, tag, 'the same data gives the same ETag');
    assert.equal((await call(http, 'get', feedPath).set('If-None-Match', tag)).status, 304);
    expectStatus(await call(http, 'post', eventPath(event.id), users.editor, { title: 'Changed' }), 200);
    const changed = await call(http, 'get', feedPath).set('If-None-Match', tag);
    expectStatus(changed, 200);
    assert.equal(items(itemList(changed))[0].name, 'Changed');
  });

  it('routes /events.jsonld apart from /events/{id} and /events.ics; writes are not routes', async () => {
    await create({ title: 'Routed' });
    assert.equal(items(itemList(await feed())).length, 1);
    expectError(await call(http, 'post', feedPath, users.editor, {}), 404, 'rest_no_route');
    expectError(await call(http, 'get', `${NS}/events/1.jsonld`), 404, 'rest_no_route');
  });
});
