import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { Config } from '../../../src/core/config.js';
import { createUsers, NS, testApp, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { call, createEvent, eventsApp, type Http, type Rec } from '../../helpers/events.js';

/**
 * Cache-Control and Vary of every kind of answer (docs/contract.md §19, src/http/cache-policy.ts),
 * through HTTP with validated answers: anonymous reads shared for CACHE_MAX_AGE, 404s briefly, and
 * nothing that depends on who asks ever shared.
 */

const SHARED = 'public, max-age=60, stale-while-revalidate=300, stale-if-error=300';
const NOT_FOUND = 'public, max-age=10';
const WORDPRESS = 'no-cache, must-revalidate, max-age=0, no-store, private';
const WORDPRESS_EXPIRES = 'Wed, 11 Jan 1984 05:00:00 GMT';
const PRIVATE = 'private, no-store';
const NAMESPACE_VARY = 'Origin, Authorization';

type Headers = Record<string, string>;

function get(http: Http, url: string, headers: Headers = {}, method: 'get' | 'head' = 'get') {
  let req = http()[method](url);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return req;
}

/** The answer's status, Cache-Control and Vary, with the URL in every message. */
function expectCaching(res: Response, status: number, cacheControl: string, vary: string, label: string): void {
  assert.equal(res.status, status, `${label}: status ${res.status} ${res.text?.slice(0, 300)}`);
  assert.equal(res.headers['cache-control'], cacheControl, `${label}: Cache-Control`);
  assert.equal(res.headers.vary, vary, `${label}: Vary`);
}

/** A published event in a child category (its page lives under its parent's slug), a draft, a protected event. */
async function calendar(http: Http, editor: TestUser): Promise<{ event: Rec; draft: Rec; locked: Rec; parent: Rec; child: Rec }> {
  const parent = await call(http, 'post', `${NS}/categories`, editor, { name: 'Arts' });
  const child = await call(http, 'post', `${NS}/categories`, editor, { name: 'Music', parent: parent.body.id });
  expectStatus(child, 201);
  const event = await createEvent(http, editor, { title: 'Concert', status: 'publish', categories: [child.body.id] });
  const draft = await createEvent(http, editor, { title: 'Plans', status: 'draft' });
  const locked = await createEvent(http, editor, { title: 'Members only', status: 'publish', password: 'sesame', description: 'For members' });
  return { event, draft, locked, parent: parent.body, child: child.body };
}

/** Every anonymous read of a kind the service answers 200, and whether it is a namespace answer. */
function anonymousReads(w: { event: Rec; child: Rec; parent: Rec }): Array<[url: string, namespace: boolean]> {
  const { event } = w;
  return [
    [`${NS}/events`, true],
    [`${NS}/events/${event.id}`, true],
    [`${NS}/events/by-slug/${event.slug}`, true],
    [`${NS}/events/${event.id}/ics`, true],
    [`${NS}/events/${event.id}.ics`, true],
    [`${NS}/events.ics`, true],
    [`${NS}/events.jsonld`, true],
    [`${NS}/venues`, true],
    [`${NS}/categories/${w.child.id}`, true],
    [`${NS}/doc`, true],
    [`${NS}/`, true],
    // WordPress's plain-permalink form of a namespace URL.
    [`/?rest_route=/tribe/events/v1/events`, true],
    ['/wp-json/', false],
    [`/event/${event.slug}/`, false],
    ['/events/', false],
    ['/', false],
    [`/events/category/${w.parent.slug}/${w.child.slug}/`, false],
    ['/docs', false],
    ['/docs/docs-page.js', false],
    ['/docs/swagger-ui.css', false],
  ];
}

describe('Cache-Control and Vary (docs/contract.md §19)', function () {
  // Each test sends a hundred requests or so, and some build several apps (each compiles the validator).
  this.timeout(120_000);
  let users: Awaited<ReturnType<typeof createUsers>>;
  beforeEach(async () => {
    users = await createUsers();
  });

  describe('anonymous reads', () => {
    it('are public for CACHE_MAX_AGE, stale for CACHE_STALE_SECONDS, on every kind of GET and HEAD; Vary names Authorization in the namespace only', async () => {
      const { http } = await eventsApp();
      const w = await calendar(http, users.editor);
      for (const [url, namespace] of anonymousReads(w)) {
        const vary = namespace ? NAMESPACE_VARY : 'Origin';
        expectCaching(await get(http, url), 200, SHARED, vary, `GET ${url}`);
        expectCaching(await get(http, url, {}, 'head'), 200, SHARED, vary, `HEAD ${url}`);
        // A browser's request from another origin: the CORS package's Origin is kept, not repeated.
        expectCaching(await get(http, url, { Origin: 'https://app.example' }), 200, SHARED, vary, `GET ${url} with Origin`);
      }
    });

    it('follow the settings: max-age, the stale directives, and a 404 for at most CACHE_MAX_AGE', async () => {
      const expectations: Array<[Partial<Config>, string, string]> = [
        [{ cacheMaxAge: 120, cacheStaleSeconds: 30, cacheNotFoundMaxAge: 5 }, 'public, max-age=120, stale-while-revalidate=30, stale-if-error=30', 'public, max-age=5'],
        [{ cacheMaxAge: 120, cacheStaleSeconds: 0, cacheNotFoundMaxAge: 600 }, 'public, max-age=120, stale-while-revalidate=0, stale-if-error=0', 'public, max-age=120'],
        [{ cacheMaxAge: 60, cacheStaleSeconds: 300, cacheNotFoundMaxAge: 0 }, SHARED, 'no-store'],
      ];
      const { event } = await calendar((await eventsApp()).http, users.editor);
      for (const [settings, shared, notFound] of expectations) {
        const { http } = await eventsApp(settings);
        const label = JSON.stringify(settings);
        for (const url of [`${NS}/events`, `${NS}/events/${event.id}`, `${NS}/events.ics`, `/event/${event.slug}/`, '/docs']) {
          assert.equal((await get(http, url)).headers['cache-control'], shared, `${label} ${url}`);
        }
        for (const url of [`${NS}/events/999999`, `${NS}/events/by-slug/nothing`, `${NS}/nothing-here`, '/event/nothing/']) {
          expectCaching(await get(http, url), 404, notFound, url.startsWith(NS) ? NAMESPACE_VARY : 'Origin', `${label} ${url}`);
        }
      }
    });

    it('keep their Cache-Control, Vary and ETag on a 304 (a cache revalidates and keeps sharing)', async () => {
      const { event } = await calendar((await eventsApp()).http, users.editor);
      for (const settings of [{}, { cacheMaxAge: 0 }] as Array<Partial<Config>>) {
        const { http } = await eventsApp(settings);
        const expected = settings.cacheMaxAge === 0 ? 'no-cache' : SHARED;
        for (const url of [`${NS}/events`, `${NS}/events/${event.id}`, `${NS}/events/${event.id}/ics`, `${NS}/doc`, `/event/${event.slug}/`, '/docs', '/docs/swagger-ui.css']) {
          const vary = url.startsWith(NS) ? NAMESPACE_VARY : 'Origin';
          const first = await get(http, url);
          expectCaching(first, 200, expected, vary, url);
          const etag = first.headers.etag as string;
          assert.ok(etag, `${url}: ETag`);
          const again = await get(http, url, { 'If-None-Match': etag });
          expectCaching(again, 304, expected, vary, `${url} revalidated (${JSON.stringify(settings)})`);
          assert.equal(again.headers.etag, etag);
        }
      }
    });

    it('are no-cache with CACHE_MAX_AGE=0 (kept but revalidated every time), and their 404s no-store', async () => {
      const { http } = await eventsApp({ cacheMaxAge: 0 });
      const w = await calendar(http, users.editor);
      for (const [url, namespace] of anonymousReads(w)) expectCaching(await get(http, url), 200, 'no-cache', namespace ? NAMESPACE_VARY : 'Origin', url);
      expectCaching(await get(http, `${NS}/events/999999`), 404, 'no-store', NAMESPACE_VARY, 'a 404');
      expectCaching(await get(http, '/event/nothing/'), 404, 'no-store', 'Origin', 'a page 404');
    });
  });

  describe('answers that depend on who asks', () => {
    it('to a request with credentials, right or wrong, are WordPress no-cache headers (private, no-store)', async () => {
      const { http } = await eventsApp();
      const w = await calendar(http, users.editor);
      const wrong = ['Bearer not-a-secret', `Basic ${Buffer.from('editor:wrong').toString('base64')}`, 'Basic', 'Digest x'];
      for (const [url, namespace] of anonymousReads(w)) {
        const vary = namespace ? NAMESPACE_VARY : 'Origin';
        const read = await get(http, url, { Authorization: users.editor.authorization });
        expectCaching(read, 200, WORDPRESS, vary, `${url} as an editor`);
        assert.equal(read.headers.expires, WORDPRESS_EXPIRES, `${url}: Expires`);
        for (const authorization of wrong) {
          // Namespace answers refuse wrong credentials (401); pages and /docs are read as anonymous whatever comes.
          const refused = await get(http, url, { Authorization: authorization });
          expectCaching(refused, namespace ? 401 : 200, WORDPRESS, vary, `${url} with ${authorization}`);
          assert.equal(refused.headers.expires, WORDPRESS_EXPIRES);
        }
      }
      // What an editor reads at a URL anonymous callers get a 403 or 404 for: a draft.
      const draft = await get(http, `${NS}/events/${w.draft.id}`, { Authorization: users.editor.authorization });
      expectCaching(draft, 200, WORDPRESS, NAMESPACE_VARY, 'a draft read by its editor');
      expectCaching(await get(http, `${NS}/events/${w.draft.id}`), 403, 'no-store', NAMESPACE_VARY, 'the draft read anonymously');
      expectCaching(await get(http, `${NS}/events/999999`, { Authorization: users.editor.authorization }), 404, WORDPRESS, NAMESPACE_VARY, 'a 404 to an editor');
      expectCaching(await get(http, `${NS}/events?status=draft`, { Authorization: users.editor.authorization }), 200, WORDPRESS, NAMESPACE_VARY, 'drafts listed');
    });

    it('to a request with a Cookie are private, no-store, whatever the status', async () => {
      const { http } = await eventsApp();
      const w = await calendar(http, users.editor);
      for (const [url, namespace] of anonymousReads(w)) {
        expectCaching(await get(http, url, { Cookie: 'session=abc' }), 200, PRIVATE, namespace ? NAMESPACE_VARY : 'Origin', `${url} with a cookie`);
      }
      expectCaching(await get(http, `${NS}/events/999999`, { Cookie: 'a=b' }), 404, PRIVATE, NAMESPACE_VARY, 'a 404 with a cookie');
      expectCaching(await get(http, '/event/nothing/', { Cookie: 'a=b' }), 404, PRIVATE, 'Origin', 'a page 404 with a cookie');
    });

    it('to a request naming a record password are private, no-store, right or wrong, however the name is written', async () => {
      const { http } = await eventsApp();
      const { locked } = await calendar(http, users.editor);
      const url = `${NS}/events/${locked.id}`;
      const opened = await get(http, `${url}?password=sesame`);
      expectCaching(opened, 200, PRIVATE, NAMESPACE_VARY, 'the right password');
      assert.match(opened.body.description, /For members/, 'the protected text is in the answer');
      expectCaching(await get(http, `${url}?pass%77ord=sesame`), 200, PRIVATE, NAMESPACE_VARY, 'the name %-escaped');
      expectCaching(await get(http, `${url}/ics?password=sesame`), 200, PRIVATE, NAMESPACE_VARY, 'its iCalendar');
      expectCaching(await get(http, `/?rest_route=/tribe/events/v1/events/${locked.id}&password=sesame`), 200, PRIVATE, NAMESPACE_VARY, 'through rest_route');
      expectCaching(await get(http, `${url}?password=wrong`), 403, PRIVATE, NAMESPACE_VARY, 'a wrong password');
      expectCaching(await get(http, `${url}?password=`), 400, PRIVATE, NAMESPACE_VARY, 'an empty password');
      // Without one: the 403 is no-store (an error other than 404/410), the masked list is shared.
      expectCaching(await get(http, url), 403, 'no-store', NAMESPACE_VARY, 'no password');
      expectCaching(await get(http, `${NS}/events`), 200, SHARED, NAMESPACE_VARY, 'the list, masked');
      // `password` as a value is no password parameter.
      expectCaching(await get(http, `${NS}/events?search=password`), 200, SHARED, NAMESPACE_VARY, 'a search for "password"');
      expectCaching(await get(http, `${NS}/events?search=%70assword`), 200, SHARED, NAMESPACE_VARY, 'a %-escaped search');
    });
  });

  describe('answers never kept', () => {
    it("writes with credentials get WordPress's no-cache headers, as every logged-in request; other writes no-store", async () => {
      const { http } = await eventsApp();
      const admin = users.administrator;
      const created = await call(http, 'post', `${NS}/events`, admin, { title: 'New', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
      expectCaching(created, 201, WORDPRESS, NAMESPACE_VARY, 'POST');
      const id = created.body.id as number;
      expectCaching(await call(http, 'patch', `${NS}/events/${id}`, admin, { title: 'Renamed' }), 200, WORDPRESS, NAMESPACE_VARY, 'PATCH');
      expectCaching(await call(http, 'put', `${NS}/events/${id}`, admin, { title: 'Again' }), 200, WORDPRESS, NAMESPACE_VARY, 'PUT');
      expectCaching(await call(http, 'delete', `${NS}/events/${id}`, admin), 200, WORDPRESS, NAMESPACE_VARY, 'DELETE (trash)');
      expectCaching(await call(http, 'delete', `${NS}/events/${id}`, admin), 410, WORDPRESS, NAMESPACE_VARY, 'DELETE of a trashed event (410)');
      expectCaching(await call(http, 'delete', `${NS}/events/${id}?force=true`, admin), 200, WORDPRESS, NAMESPACE_VARY, 'DELETE for good');
      expectCaching(await call(http, 'delete', `${NS}/events/${id}`, admin), 404, WORDPRESS, NAMESPACE_VARY, 'DELETE of nothing (404)');
      expectCaching(await http().post(`${NS}/categories`).send({ name: 'x' }), 401, 'no-store', NAMESPACE_VARY, 'an anonymous write');
      const preflight = await http().options(`${NS}/events`).set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'POST');
      expectCaching(preflight, 204, 'no-store', NAMESPACE_VARY, 'a CORS preflight');
    });

    it('errors other than 404 and 410 are no-store: 400, 403, a redirect', async () => {
      const { http } = await eventsApp();
      const w = await calendar(http, users.editor);
      expectCaching(await get(http, `${NS}/events?per_page=abc`), 400, 'no-store', NAMESPACE_VARY, 'a bad parameter');
      expectCaching(await get(http, `${NS}/events?start_date=not-a-date`), 400, 'no-store', NAMESPACE_VARY, 'a bad date');
      expectCaching(await get(http, `${NS}/events/${w.draft.id}`), 403, 'no-store', NAMESPACE_VARY, 'a draft');
      expectCaching(await get(http, `${NS}/events`, { Host: 'bad host' }), 400, 'no-store', NAMESPACE_VARY, 'a bad Host');
      // A child category reached without its parent is sent to its page; /docs/ to /docs (Express's
      // redirect adds Accept: its short body is negotiated).
      expectCaching(await get(http, `/events/category/${w.child.slug}/`), 301, 'no-store', 'Origin, Accept', 'a page redirect');
      expectCaching(await get(http, '/docs/'), 301, 'no-store', 'Origin, Accept', 'the /docs redirect');
    });

    it('404 is briefly public on every kind of missing thing; a trashed event is 403 (no-store), a deleted one 404', async () => {
      const { http } = await eventsApp();
      const w = await calendar(http, users.editor);
      for (const url of [`${NS}/events/999999`, `${NS}/events/by-slug/nothing`, `${NS}/venues/999999`, `${NS}/tags/999999`, `${NS}/nothing-here`, `${NS}/events?page=99`]) {
        expectCaching(await get(http, url), 404, NOT_FOUND, NAMESPACE_VARY, url);
      }
      for (const url of ['/event/nothing/', '/events/?page=99', '/tag/nothing/', '/nothing-here']) expectCaching(await get(http, url), 404, NOT_FOUND, 'Origin', url);
      expectStatus(await call(http, 'delete', `${NS}/events/${w.event.id}`, users.editor), 200);
      expectCaching(await get(http, `${NS}/events/${w.event.id}`), 403, 'no-store', NAMESPACE_VARY, 'a trashed event');
      expectCaching(await get(http, `/event/${w.event.slug}/`), 404, NOT_FOUND, 'Origin', "a trashed event's page");
      expectStatus(await call(http, 'delete', `${NS}/events/${w.event.id}?force=true`, users.editor), 200);
      expectCaching(await get(http, `${NS}/events/${w.event.id}`), 404, NOT_FOUND, NAMESPACE_VARY, 'a deleted event');
    });

    it('the change feed is no-store: a page, its 304, its long poll and its 410 for an expired cursor', async () => {
      const { http } = await eventsApp();
      const first = await get(http, `${NS}/changes`);
      expectCaching(first, 200, 'no-store', NAMESPACE_VARY, '/changes');
      expectCaching(await get(http, `${NS}/changes`, { 'If-None-Match': first.headers.etag as string }), 304, 'no-store', NAMESPACE_VARY, '/changes revalidated');
      const cursor = first.body.next_cursor as string;
      expectCaching(await get(http, `${NS}/changes?after=${cursor}&wait=1`), 200, 'no-store', NAMESPACE_VARY, 'the long poll');
      expectCaching(await get(http, `${NS}/changes?after=${cursor}`, { Authorization: users.editor.authorization }), 200, 'no-store', NAMESPACE_VARY, '/changes as an editor');
      // A cursor from before a tombstone the retention has dropped.
      const gone = await createEvent(http, users.editor, { status: 'publish' });
      const before = (await get(http, `${NS}/events?per_page=1`)).headers['x-tec-change-cursor'] as string;
      expectStatus(await call(http, 'delete', `${NS}/events/${gone.id}?force=true`, users.editor), 200);
      const { db } = await openTestDatabase();
      await db('changes').where({ type: 'event', record_id: gone.id }).update({ changed_utc: '2000-01-01 00:00:00' });
      const expired = await get(http, `${NS}/changes?after=${before}`);
      expectError(expired, 410, 'rest_cursor_expired');
      expectCaching(expired, 410, 'no-store', NAMESPACE_VARY, 'an expired cursor');
      expectCaching(await get(http, `${NS}/changes?after=nonsense`), 400, 'no-store', NAMESPACE_VARY, 'a malformed cursor');
    });

    it('health, readiness, metrics and webhooks are no-store', async () => {
      const { http } = await testApp({ metrics: true, publicUrl: 'http://api.test' });
      for (const url of ['/healthz', '/readyz', '/metrics']) expectCaching(await get(http, url), 200, 'no-store', 'Origin', url);
      const hooks = await get(http, `${NS}/webhooks`, { Authorization: users.administrator.authorization });
      expectCaching(hooks, 200, 'no-store', NAMESPACE_VARY, '/webhooks');
    });
  });

  describe('Vary', () => {
    it('names X-Forwarded-Proto when a trusted proxy chooses the scheme of the URLs in the body (TRUST_PROXY without PUBLIC_URL)', async () => {
      const w = await calendar((await eventsApp()).http, users.editor);
      const cases: Array<[Partial<Config>, boolean]> = [
        [{ trustProxy: 1 }, true],
        [{ trustProxy: ['loopback'] }, true],
        [{ trustProxy: true }, true],
        [{ trustProxy: 1, publicUrl: 'http://api.example.org' }, false],
        [{ trustProxy: false }, false],
        [{ trustProxy: 0 }, false],
      ];
      for (const [settings, forwarded] of cases) {
        const { http } = await testApp(settings);
        const tail = forwarded ? ', X-Forwarded-Proto' : '';
        const label = JSON.stringify(settings);
        const read = await get(http, `${NS}/events/${w.event.id}`, { 'X-Forwarded-Proto': 'https' });
        expectCaching(read, 200, SHARED, `${NAMESPACE_VARY}${tail}`, label);
        // The reason: the body's URLs take the scheme from the header exactly when it is named.
        assert.equal(String(read.body.rest_url).startsWith('https://'), forwarded, `${label}: ${read.body.rest_url}`);
        expectCaching(await get(http, '/wp-json/'), 200, SHARED, `Origin${tail}`, `${label} REST index`);
        expectCaching(await get(http, `${NS}/events/999999`), 404, NOT_FOUND, `${NAMESPACE_VARY}${tail}`, `${label} 404`);
        expectCaching(await get(http, `${NS}/events/${w.event.id}`, { Cookie: 'a=b' }), 200, PRIVATE, `${NAMESPACE_VARY}${tail}`, `${label} with a cookie`);
      }
    });

    it('names Origin under CORS_ORIGINS also on answers to requests from no listed origin', async () => {
      const { http } = await eventsApp({ corsOrigins: ['https://app.example'] });
      for (const origin of [undefined, 'https://other.example', 'https://app.example']) {
        const res = await get(http, `${NS}/events`, origin ? { Origin: origin } : {});
        expectCaching(res, 200, SHARED, NAMESPACE_VARY, `Origin ${origin}`);
        assert.equal(res.headers['access-control-allow-origin'], origin === 'https://app.example' ? origin : undefined);
      }
      expectCaching(await get(http, '/docs'), 200, SHARED, 'Origin', '/docs without an Origin');
    });
  });
});
