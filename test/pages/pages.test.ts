import assert from 'node:assert/strict';
import { eventsApp, PUBLIC_URL } from '../helpers/events.js';
import { expectStatus } from '../helpers/assertions.js';
import { EVENT_DATES, KINDS, NS, PASSWORD, seed, send, world, type World } from '../security/fixtures.js';
import { attr, checkHeaders, checkPage, parsePage, textOf } from './page-html.js';
import { EVENTS_PER_PAGE } from '../../src/operations/pages.js';

/**
 * The public pages (docs/contract.md §13) through HTTP: what each page shows, its headers (on HEAD
 * too), the read rules of an anonymous caller, and the settings that turn them off.
 */

const EVENTS = KINDS[0]!;
const VENUES = KINDS[1]!;
const ORGANIZERS = KINDS[2]!;
const NS_URL = `${PUBLIC_URL}${NS}`;

describe('public pages', () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });

  /** An event with a venue, an organizer, a child category and a tag, as the administrator creates it. */
  async function richEvent() {
    const parent = await send(w.http, 'post', `${NS}/categories`, w.admin, { name: 'Music' });
    const child = await send(w.http, 'post', `${NS}/categories`, w.admin, { name: 'Jazz nights', parent: parent.body.id });
    const res = await send(w.http, 'post', `${NS}/events`, w.admin, {
      title: 'Quartet & friends',
      description: '<p>An evening of <strong>jazz</strong>.</p>',
      ...EVENT_DATES,
      cost: '12',
      website: 'https://quartet.example/',
      image: 'https://img.example/quartet.jpg',
      categories: [child.body.id],
      tags: ['Late night'],
      venue: { venue: 'Blue Room', address: '1 Main St', city: 'Berlin', country: 'Germany' },
      organizer: [{ organizer: 'Jazz Society', email: 'info@jazz.example' }],
    });
    expectStatus(res, 201);
    return { event: res.body, parent: parent.body, child: child.body };
  }

  it('an event page: the record as anonymous GET /events/{id} shows it, its JSON-LD, OpenGraph tags and calendar links', async () => {
    const { event } = await richEvent();
    const api = await send(w.http, 'get', `${NS}/events/${event.id}`);
    expectStatus(api, 200);
    assert.equal(event.url, `${PUBLIC_URL}/event/${event.slug}/`);

    const res = await w.http().get(`/event/${event.slug}/`);
    const page = checkPage(res, `${NS_URL}/events/${event.id}`);
    assert.equal(textOf(page.byTag('h1')[0]!), 'Quartet & friends');
    assert.deepEqual(page.jsonLd, [api.body.json_ld]);
    assert.equal((page.jsonLd[0] as { name: string }).name, api.body.json_ld.name);
    assert.equal(page.meta('og:title'), 'Quartet & friends');
    assert.equal(page.meta('og:type'), 'article');
    assert.equal(page.meta('og:url'), event.url);
    assert.equal(page.meta('og:description'), 'An evening of jazz.');
    assert.equal(page.meta('og:image'), 'https://img.example/quartet.jpg');
    assert.equal(page.meta('tec-api-version'), 'v1');
    assert.equal(page.meta('tec-api-origin'), PUBLIC_URL);
    assert.equal(
      attr(
        page.byTag('link').find((l) => attr(l, 'rel') === 'canonical')!,
        'href',
      ),
      event.url,
    );
    // Add to calendar: the event's .ics, and its webcal:// form.
    assert.ok(page.links.includes(`${NS_URL}/events/${event.id}.ics`), page.links.join(' '));
    assert.ok(page.links.includes(`webcal://api.test${NS}/events/${event.id}.ics`));
    const ics = await w.http().get(`${NS}/events/${event.id}.ics`);
    expectStatus(ics, 200);
    // The venue, the organizer and the terms link to their own pages, which answer.
    const venue = event.venue;
    const organizer = event.organizer[0];
    for (const url of [venue.url, organizer.url, `${PUBLIC_URL}/events/category/jazz-nights/`, `${PUBLIC_URL}/tag/late-night/`]) {
      assert.ok(page.links.includes(url), `links to ${url}`);
    }
    assert.match(res.text, /An evening of <strong>jazz<\/strong>\./);
    assert.match(res.text, /Blue Room/);
    assert.match(res.text, /1 Main St, Berlin, Germany/);
    assert.match(res.text, /Sunday 10 January 2027, 10:00 – 12:00 UTC/);
    assert.match(String(res.headers.link), new RegExp(`<${NS_URL}/events/${event.id}>; rel="alternate"; type="application/json"`));
  });

  it('HEAD of every page kind: the same status and headers, no body', async () => {
    const { event, child } = await richEvent();
    const pages: Array<[string, string]> = [
      ['/', `${NS_URL}/`],
      ['/events/', `${NS_URL}/events/`],
      [`/event/${event.slug}/`, `${NS_URL}/events/${event.id}`],
      [`/venue/${event.venue.slug}/`, `${NS_URL}/venues/${event.venue.id}`],
      [`/organizer/${event.organizer[0].slug}/`, `${NS_URL}/organizers/${event.organizer[0].id}`],
      [`/events/category/music/${child.slug}/`, `${NS_URL}/events/?categories=${child.slug}`],
      ['/tag/late-night/', `${NS_URL}/events/?tags=late-night`],
      ['/event/no-such-event/', `${NS_URL}/`],
    ];
    for (const [path, apiRoot] of pages) {
      const get = await w.http().get(path);
      const head = await w.http().head(path);
      assert.equal(head.status, get.status, path);
      assert.equal(head.status, path.includes('no-such') ? 404 : 200, path);
      checkHeaders(head, apiRoot);
      assert.equal(head.headers['content-type'], get.headers['content-type'], path);
      assert.equal(head.headers['content-length'], get.headers['content-length'], path);
      assert.equal(head.text, undefined, `${path}: HEAD has no body`);
      // The discovery tags in the page match the headers.
      if (get.status === 200)
        assert.equal(
          attr(
            parsePage(get.text)
              .byTag('link')
              .find((l) => attr(l, 'type') === 'application/json')!,
            'href',
          ),
          apiRoot,
        );
    }
  });

  it('a category page: its events, a subscribe link to the filtered feed, and a child category at its full path only', async () => {
    const { event, child } = await richEvent();
    const other = await send(w.http, 'post', `${NS}/events`, w.admin, { title: 'Not jazz', ...EVENT_DATES });
    expectStatus(other, 201);
    const record = await send(w.http, 'get', `${NS}/categories/${child.id}`);
    assert.equal(record.body.url, `${PUBLIC_URL}/events/category/music/jazz-nights/`);

    const res = await w.http().get('/events/category/music/jazz-nights/');
    const page = checkPage(res, `${NS_URL}/events/?categories=jazz-nights`);
    assert.equal(textOf(page.byTag('h1')[0]!), 'Jazz nights');
    assert.ok(page.links.includes(event.url));
    assert.ok(!page.links.includes(other.body.url), 'only the category\u2019s events');
    assert.ok(page.links.includes(`${NS_URL}/events.ics?categories=jazz-nights`));
    assert.ok(page.links.includes(`webcal://api.test${NS}/events.ics?categories=jazz-nights`));
    const feed = await w.http().get(`${NS}/events.ics?categories=jazz-nights`);
    expectStatus(feed, 200);
    assert.match(feed.text, /SUMMARY:Quartet & friends/);
    assert.doesNotMatch(feed.text, /Not jazz/);
    const list = page.jsonLd[0] as { '@type': string; itemListElement: Array<{ item: { name: string; url: string } }> };
    assert.equal(list['@type'], 'ItemList');
    assert.deepEqual(
      list.itemListElement.map((entry) => entry.item.url),
      [event.url],
    );

    // The event page links the child by its own slug; that URL sends the browser to the full path.
    const short = await w.http().get('/events/category/jazz-nights/');
    assert.equal(short.status, 301);
    assert.equal(short.headers.location, record.body.url);
    // The page asked for (and any other query) goes along.
    const second = await w.http().get('/events/category/jazz-nights/?page=2&utm_source=x');
    assert.equal(second.status, 301);
    assert.equal(second.headers.location, `${record.body.url}?page=2&utm_source=x`);
    // The parent's page answers too.
    checkPage(await w.http().get('/events/category/music/'), `${NS_URL}/events/?categories=music`);
  });

  it('tag, venue and organizer pages: their events and subscribe links to the filtered feeds', async () => {
    const { event } = await richEvent();
    const tag = checkPage(await w.http().get('/tag/late-night/'), `${NS_URL}/events/?tags=late-night`);
    assert.ok(tag.links.includes(event.url));
    assert.ok(tag.links.includes(`${NS_URL}/events.ics?tags=late-night`));

    const venue = checkPage(await w.http().get(`/venue/${event.venue.slug}/`), `${NS_URL}/venues/${event.venue.id}`);
    assert.equal(textOf(venue.byTag('h1')[0]!), 'Blue Room');
    assert.ok(venue.links.includes(event.url));
    assert.ok(venue.links.includes(`${NS_URL}/events.ics?venue=${event.venue.id}`));
    assert.ok(venue.links.includes(`webcal://api.test${NS}/events.ics?venue=${event.venue.id}`));
    const venueApi = await send(w.http, 'get', `${NS}/venues/${event.venue.id}`);
    assert.deepEqual(venue.jsonLd, [venueApi.body.json_ld]);
    assert.equal(venue.meta('og:url'), event.venue.url);

    const organizerId = event.organizer[0].id;
    const organizer = checkPage(await w.http().get(`/organizer/${event.organizer[0].slug}/`), `${NS_URL}/organizers/${organizerId}`);
    assert.ok(organizer.links.includes(event.url));
    assert.ok(organizer.links.includes(`${NS_URL}/events.ics?organizer=${organizerId}`));
    assert.ok(organizer.links.includes('mailto:info@jazz.example'));
    const feed = await w.http().get(`${NS}/events.ics?organizer=${organizerId}`);
    expectStatus(feed, 200);
  });

  it('/events/ and the site root: upcoming published events, ten a page, ?page=N, 404 past the last page', async () => {
    for (let i = 0; i < EVENTS_PER_PAGE + 2; i++) {
      const day = String(10 + i).padStart(2, '0');
      expectStatus(await send(w.http, 'post', `${NS}/events`, w.admin, { title: `Talk ${i}`, start_date: `2027-02-${day} 18:00:00`, end_date: `2027-02-${day} 19:00:00` }), 201);
    }
    await seed(w, EVENTS, w.admin, 'draft', 'Draft talk');
    expectStatus(await send(w.http, 'post', `${NS}/events`, w.admin, { title: 'Last year', start_date: '2025-01-01 10:00:00', end_date: '2025-01-01 11:00:00' }), 201);

    const first = checkPage(await w.http().get('/events/'), `${NS_URL}/events/`);
    const titles = (page: ReturnType<typeof parsePage>) => page.byTag('h2').map((h) => textOf(h));
    assert.deepEqual(
      titles(first),
      Array.from({ length: EVENTS_PER_PAGE }, (_, i) => `Talk ${i}`),
    );
    assert.ok(first.links.includes(`${PUBLIC_URL}/events/?page=2`));
    assert.ok(first.links.includes(`${NS_URL}/events.ics`));
    assert.equal((first.jsonLd[0] as { itemListElement: unknown[] }).itemListElement.length, EVENTS_PER_PAGE);
    assert.match(first.html, /12 events coming up, page 1 of 2/);

    const second = checkPage(await w.http().get('/events/?page=2'), `${NS_URL}/events/`);
    assert.deepEqual(titles(second), ['Talk 10', 'Talk 11']);
    assert.equal(second.meta('og:url'), `${PUBLIC_URL}/events/?page=2`);
    assert.ok(second.links.includes(`${PUBLIC_URL}/events/`));

    const root = checkPage(await w.http().get('/'), `${NS_URL}/`);
    assert.deepEqual(titles(root), titles(first));

    // A rest_route query makes the root a REST request, as in WordPress, even a malformed one.
    const route = await w.http().get('/?rest_route=');
    assert.equal(route.status, 404);
    assert.equal(route.body.code, 'rest_no_route');
    for (const path of ['/events/?page=3', '/events/?page=0', '/events/?page=abc', '/events/?page=-1']) {
      checkPage(await w.http().get(path), `${NS_URL}/`, 404);
    }
  });

  it('an empty calendar shows its list page, not a 404', async () => {
    const page = checkPage(await w.http().get('/events/'), `${NS_URL}/events/`);
    assert.match(page.html, /No upcoming events\./);
  });

  it('unknown slugs, drafts, pending, scheduled, private and trashed records: an HTML 404 that names nothing', async () => {
    const hidden: string[] = [];
    for (const kind of [EVENTS, VENUES, ORGANIZERS]) {
      for (const state of ['draft', 'pending', 'future', 'private', 'trash'] as const) {
        const name = `Secret ${kind.type} ${state}`;
        const seeded = await seed(w, kind, w.someone, state, name, { description: `${name} text` });
        hidden.push(`/${kind.type}/${seeded.slug}/`, `/${kind.type}/${seeded.slug.replace(/__trashed$/, '')}/`);
      }
    }
    hidden.push('/event/nothing-here/', '/venue/nothing-here/', '/organizer/nothing-here/', '/tag/nothing-here/', '/events/category/nothing-here/', '/events/category/a/b/c/');
    for (const path of hidden) {
      const res = await w.http().get(path);
      const page = checkPage(res, `${NS_URL}/`, 404);
      assert.equal(textOf(page.byTag('h1')[0]!), 'Page not found', path);
      assert.doesNotMatch(res.text, /Secret/, path);
      assert.deepEqual(page.jsonLd, [], path);
    }
    // Credentials change nothing: pages are read as an anonymous caller.
    const draft = await seed(w, EVENTS, w.admin, 'draft', 'Admin draft');
    const res = await w.http().get(`/event/${draft.slug}/`).set('Authorization', w.admin.authorization);
    checkPage(res, `${NS_URL}/`, 404);
    // Nor does a list show them.
    const list = await w.http().get('/events/');
    assert.doesNotMatch(list.text, /Secret|Admin draft/);
  });

  it('password-protected event, venue and organizer: the title and a notice, never their text', async () => {
    const pages: string[] = [];
    for (const kind of [EVENTS, VENUES, ORGANIZERS]) {
      const seeded = await seed(w, kind, w.someone, 'password', `Guarded ${kind.type}`, {
        description: `Hidden ${kind.type} words`,
        excerpt: `Hidden ${kind.type} excerpt`,
        ...(kind === VENUES ? { address: 'Hidden street 1', city: 'Hidden city' } : {}),
        ...(kind === ORGANIZERS ? { email: 'hidden@example.org', phone: '+1 555 0100' } : {}),
      });
      const res = await w.http().get(`/${kind.type}/${seeded.slug}/`);
      const page = checkPage(res, `${NS_URL}/${kind.collection}/${seeded.id}`);
      assert.equal(textOf(page.byTag('h1')[0]!), `Guarded ${kind.type}`);
      assert.match(res.text, /password-protected/);
      assert.doesNotMatch(res.text, /Hidden|hidden@|555|open-sesame/i);
      assert.ok(!res.text.includes(PASSWORD));
      assert.deepEqual(page.jsonLd, [], 'no JSON-LD: it would carry the text');
      assert.ok(!page.links.some((link) => link.endsWith('.ics')), 'no calendar link: the feed needs the password');
      pages.push(res.text);
    }
    // In a list the protected event shows masked, as in GET /events.
    const list = await w.http().get('/events/');
    assert.match(list.text, /Guarded event/);
    assert.doesNotMatch(list.text, /Hidden/);
    assert.equal(pages.length, 3);
  });

  it('answers conditional GETs with 304', async () => {
    const { event } = await richEvent();
    const first = await w.http().get(`/event/${event.slug}/`);
    assert.ok(first.headers.etag);
    const again = await w
      .http()
      .get(`/event/${event.slug}/`)
      .set('If-None-Match', first.headers.etag as string);
    assert.equal(again.status, 304);
  });

  describe('settings', () => {
    it('PAGES=off: the URLs answer as before the pages existed (404 rest_no_route)', async () => {
      const { http } = await eventsApp({ pages: false });
      const { event } = await richEvent();
      for (const path of ['/', '/events/', `/event/${event.slug}/`, '/tag/late-night/']) {
        const res = await http().get(path);
        assert.equal(res.status, 404, path);
        assert.equal(res.body.code, 'rest_no_route', path);
        assert.equal(res.headers['x-tec-api-root'], undefined);
      }
    });

    it('SITE_URL naming another site: no pages; SITE_URL equal to PUBLIC_URL: pages', async () => {
      const { event } = await richEvent();
      const elsewhere = await eventsApp({ siteUrl: 'https://www.example.org' });
      const record = await send(elsewhere.http, 'get', `${NS}/events/${event.id}`);
      assert.equal(record.body.url, `https://www.example.org/event/${event.slug}/`);
      const res = await elsewhere.http().get(`/event/${event.slug}/`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'rest_no_route');

      const same = await eventsApp({ siteUrl: PUBLIC_URL });
      checkPage(await same.http().get(`/event/${event.slug}/`), `${NS_URL}/events/${event.id}`);
    });

    it('the API is unchanged beside the pages: /wp-json/ and the namespace still answer JSON', async () => {
      const index = await w.http().get(`${NS}/`);
      expectStatus(index, 200);
      assert.match(index.headers['content-type'] ?? '', /^application\/json/);
      assert.equal(index.headers['x-robots-tag'], 'noindex');
    });
  });
});
