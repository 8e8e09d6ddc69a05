import assert from 'node:assert/strict';
import { listOperations, loadDocument } from '../../../src/openapi/document.js';
import { createUser, createUsers, NS, testApp, type TestUser } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';

/**
 * The headers the document promises, beyond the bodies: `ETag` and 304 on every GET, `Allow` on
 * every answer of a route (as WordPress's rest_send_allow_header sends it), `X-Request-Id` and the
 * discovery `Link` everywhere. (Every answer of a test app is also checked against the headers its
 * response marks as required: test/contract/answers.ts.)
 */

type Http = Awaited<ReturnType<typeof testApp>>['http'];
type Kind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'webhooks' | 'subscriptions';

const CREATE_BODIES: Record<Kind, Record<string, unknown>> = {
  // Within the default window of `GET /events`, so the list shows it.
  events: { title: 'Wire check', start_date: 'tomorrow 10am', end_date: 'tomorrow 11am', status: 'publish' },
  venues: { venue: 'Wire Hall', status: 'publish' },
  organizers: { organizer: 'Wire Crew', status: 'publish' },
  categories: { name: 'Wire category' },
  tags: { name: 'Wire tag' },
  // A public address, written as one: nothing is resolved or sent.
  webhooks: { url: 'https://93.184.216.34/wire' },
  subscriptions: { url: 'https://93.184.216.34/wire.ics', type: 'ical' },
};

/** What an administrator may do on the webhook routes (only administrators may read them: docs/webhooks.md). */
const WEBHOOK_ALLOW: Record<string, string> = {
  '/webhooks': 'GET, POST',
  '/webhooks/{id}': 'GET, DELETE, PATCH',
  '/webhooks/{id}/deliveries': 'GET',
  '/subscriptions': 'GET, POST',
  '/subscriptions/{id}': 'GET, DELETE, PATCH',
  '/subscriptions/{id}/runs': 'GET',
};

async function create(http: Http, kind: Kind, as: TestUser, body: Record<string, unknown> = CREATE_BODIES[kind]) {
  return http().post(`${NS}/${kind}`).set('Authorization', as.authorization).send(body);
}

const getOperations = listOperations(loadDocument()).filter((op) => op.method === 'GET');

describe('headers on the wire', () => {
  describe('ETag and If-None-Match on every GET operation', () => {
    for (const op of getOperations) {
      it(`${op.operationId} (GET ${op.path}) answers 304 while the answer is unchanged, 200 with a new ETag after a change`, async () => {
        // A fixed public URL: supertest listens on a new port per request, and the port is in the body.
        const { http } = await testApp({ publicUrl: 'http://api.test' });
        const admin = await createUser('administrator');
        // `/events.ics`, `/events/{id}.ics` and `/events.jsonld` are the events' feeds (docs/contract.md §11, §12).
        const kind = op.path.split('/')[1].replace(/\.(ics|jsonld)$/, '') as Kind | '' | 'doc' | 'changes';
        let url = `${NS}${op.path === '/' ? '/' : op.path}`;
        let record: { id: number; slug: string } | undefined;
        if (kind && kind !== 'doc' && kind !== 'changes') {
          const created = await create(http, kind, admin);
          assert.equal(created.status, 201, JSON.stringify(created.body));
          record = created.body;
          url = url.replace('{id}', String(record!.id)).replace('{slug}', record!.slug);
          // Terms are listed only once an event uses them; `hide_empty=0` lists them anyway.
          if (!op.path.includes('{') && (kind === 'categories' || kind === 'tags')) url += '?hide_empty=0';
        }
        // Webhooks and subscriptions are read by administrators only; everything else anonymously.
        const adminOnly = kind === 'webhooks' || kind === 'subscriptions';
        const reader = adminOnly ? admin : undefined;
        const get = (target: string) => (reader ? http().get(target).set('Authorization', reader.authorization) : http().get(target));
        const head = (target: string) => (reader ? http().head(target).set('Authorization', reader.authorization) : http().head(target));
        const first = await get(url);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const etag = first.headers.etag as string;
        // A single record's tag is strong, from its version (docs/contract.md §10); lists keep a weak one
        // (a series' occurrences are a list: docs/contract.md §14).
        // Webhooks are no record of the calendar, without a stored version: a weak one.
        if (op.path.includes('{') && !op.path.endsWith('/occurrences') && !adminOnly) assert.match(etag, /^"[a-z]+-\d+-\d+\.[A-Za-z0-9_-]{22}"$/, 'a strong ETag');
        else assert.match(etag, /^W\/".+"$/, 'a weak ETag');

        const unchanged = await get(url).set('If-None-Match', etag);
        assert.equal(unchanged.status, 304);
        assert.equal(unchanged.text ?? '', '', 'no body');
        assert.equal(unchanged.headers.etag, etag);
        assert.ok(unchanged.headers['x-request-id'], 'X-Request-Id');
        assert.equal(unchanged.headers.allow, adminOnly ? WEBHOOK_ALLOW[op.path] : 'GET');
        assert.equal((await head(url).set('If-None-Match', etag)).status, 304, 'HEAD as GET');
        // The request's cache directives are for caches, not for the origin (RFC 9110 §13.2.1).
        for (const [name, value] of [
          ['Cache-Control', 'no-cache'],
          ['Pragma', 'no-cache'],
        ]) {
          const fetched = await get(url).set('If-None-Match', etag).set(name, value);
          assert.equal(fetched.status, 304, `${name}: ${value}`);
          assert.equal(fetched.headers.etag, etag);
          assert.equal((await head(url).set('If-None-Match', etag).set(name, value)).status, 304, `HEAD, ${name}: ${value}`);
        }
        assert.equal((await get(url).set('If-None-Match', 'W/"something-else"')).status, 200);

        if (kind === 'changes') {
          // A new record is a new change: the feed's answer changes.
          assert.equal((await create(http, 'tags', admin)).status, 201);
          const changed = await http().get(url).set('If-None-Match', etag);
          assert.equal(changed.status, 200, 'a changed answer is sent again');
          assert.notEqual(changed.headers.etag, etag);
        }
        if (record) {
          const staleWithNoCache = async () => (await get(url).set('If-None-Match', etag).set('Cache-Control', 'no-cache')).status;
          const change =
            kind === 'categories' || kind === 'tags' || kind === 'webhooks'
              ? { description: 'Changed' }
              : kind === 'subscriptions'
                ? { refresh_minutes: 30 }
                : kind === 'events'
                  ? { title: 'Changed' }
                  : { [kind.slice(0, -1)]: 'Changed' };
          if (op.operationId === 'listWebhookDeliveries') {
            // The log changes with an attempt (written by the delivery engine, here by hand).
            await (await openTestDatabase()).db('webhook_deliveries').insert({
              webhook_id: record.id,
              message_id: 'msg_wire',
              type: 'webhook.ping',
              attempt: 1,
              status_code: 200,
              duration_ms: 5,
              attempted_utc: '2026-11-27 10:00:00',
              attempted_ms: 0,
            });
          } else if (op.operationId === 'listSubscriptionRuns') {
            // The runs change with a run (written by the scheduler, here by hand).
            await (await openTestDatabase()).db('subscription_runs').insert({
              subscription_id: record.id,
              cause: 'refresh',
              started_utc: '2026-12-03 10:00:00',
              duration_ms: 5,
              http_status: 304,
              outcome: 'not-modified',
              created: 0,
              updated: 0,
              unchanged: 0,
              removed: 0,
              failed: 0,
              errors: '[]',
            });
          } else {
            const write = adminOnly ? http().patch(`${NS}/${kind}/${record.id}`) : http().post(`${NS}/${kind}/${record.id}`);
            const updated = await write.set('Authorization', admin.authorization).send(change);
            assert.equal(updated.status, 200, JSON.stringify(updated.body));
          }
          const changed = await get(url).set('If-None-Match', etag);
          assert.equal(changed.status, 200, 'a changed answer is sent again');
          assert.notEqual(changed.headers.etag, etag);
          assert.equal(await staleWithNoCache(), 200, 'a changed answer is sent again under no-cache');
        }
      });
    }
  });

  it("evaluates If-None-Match whatever the request's cache directives say (RFC 9110 §13.2.1), as fetch sends them", async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const first = await http().get(`${NS}/categories`);
    const etag = first.headers.etag as string;
    const status = async (headers: Record<string, string>) => {
      let req = http().get(`${NS}/categories`);
      for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
      return (await req).status;
    };
    for (const directives of <Array<Record<string, string>>>[
      { 'Cache-Control': 'no-cache' },
      { 'Cache-Control': 'max-age=0' },
      { 'Cache-Control': 'no-store, no-cache' },
      { Pragma: 'no-cache' },
    ]) {
      assert.equal(await status({ 'If-None-Match': etag, ...directives }), 304, JSON.stringify(directives));
      assert.equal(await status({ 'If-None-Match': 'W/"other"', ...directives }), 200, `another tag, ${JSON.stringify(directives)}`);
      assert.equal(await status({ 'If-None-Match': `"other", ${etag}`, ...directives }), 304, `a list of tags, ${JSON.stringify(directives)}`);
      assert.equal(await status({ 'If-None-Match': '*', ...directives }), 304, `*, ${JSON.stringify(directives)}`);
    }
    // Weak comparison: the tag without its W/ matches too.
    assert.equal(await status({ 'If-None-Match': etag.slice(2), 'Cache-Control': 'no-cache' }), 304);
    // No Last-Modified on API answers: If-Modified-Since alone never makes a 304.
    assert.equal(await status({ 'If-Modified-Since': new Date(Date.now() + 86_400_000).toUTCString() }), 200);
  });

  it('answers the /docs assets (sent as files, with Last-Modified) by the same rule, If-Modified-Since included', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const first = await http().get('/docs/swagger-ui.css');
    assert.equal(first.status, 200);
    const etag = first.headers.etag as string;
    const lastModified = first.headers['last-modified'] as string;
    assert.ok(etag && lastModified);
    const status = async (headers: Record<string, string>) => {
      let req = http().get('/docs/swagger-ui.css');
      for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
      return (await req).status;
    };
    const before = new Date(Date.parse(lastModified) - 1000).toUTCString();
    for (const directives of <Array<Record<string, string>>>[{}, { 'Cache-Control': 'no-cache' }, { Pragma: 'no-cache' }]) {
      const label = JSON.stringify(directives);
      assert.equal(await status({ 'If-None-Match': etag, ...directives }), 304, label);
      assert.equal(await status({ 'If-None-Match': 'W/"other"', ...directives }), 200, label);
      assert.equal(await status({ 'If-Modified-Since': lastModified, ...directives }), 304, `If-Modified-Since, ${label}`);
      assert.equal(await status({ 'If-Modified-Since': before, ...directives }), 200, `modified since, ${label}`);
      // With If-None-Match, If-Modified-Since is not evaluated (RFC 9110 §13.2.2).
      assert.equal(await status({ 'If-None-Match': etag, 'If-Modified-Since': before, ...directives }), 304, `both, ${label}`);
    }
  });

  describe('Allow', () => {
    const allowOf = async (http: Http, url: string, as?: TestUser) => {
      let req = http().get(url);
      if (as) req = req.set('Authorization', as.authorization);
      const res = await req;
      return res.headers.allow as string | undefined;
    };

    it('lists only GET for anonymous callers, on collections, records, the index and /doc', async () => {
      const { http } = await testApp();
      for (const path of ['/', '/doc', '/events', '/events/1', '/events/by-slug/x', '/venues', '/organizers/2', '/categories', '/tags/3']) {
        assert.equal(await allowOf(http, `${NS}${path}`), 'GET', path);
      }
    });

    it("lists the route's write methods, in WordPress's order, for users whose role may write", async () => {
      const { http } = await testApp();
      const admin = await createUser('administrator');
      assert.equal(await allowOf(http, `${NS}/events`, admin), 'GET, POST');
      assert.equal(await allowOf(http, `${NS}/events/123`, admin), 'GET, DELETE, POST, PUT, PATCH');
      assert.equal(await allowOf(http, `${NS}/venues/by-slug/hall`, admin), 'GET, DELETE, POST, PUT, PATCH');
      assert.equal(await allowOf(http, `${NS}/tags/5`, admin), 'GET, DELETE, POST, PUT, PATCH');
      assert.equal(await allowOf(http, `${NS}/`, admin), 'GET');
    });

    it('lists POST exactly for the roles whose create succeeds, on every collection', async () => {
      const { http } = await testApp();
      const users = await createUsers();
      for (const [role, user] of Object.entries(users)) {
        for (const kind of Object.keys(CREATE_BODIES) as Kind[]) {
          const body = { ...CREATE_BODIES[kind] };
          for (const key of ['title', 'venue', 'organizer', 'name']) if (typeof body[key] === 'string') body[key] = `${body[key]} ${role}`;
          const created = await create(http, kind, user, body);
          const allow = String(created.headers.allow ?? '').split(', ');
          assert.equal(allow.includes('POST'), created.status === 201, `${role} on /${kind}: Allow ${created.headers.allow}, create answered ${created.status}`);
          // Webhooks and subscriptions are read by administrators alone: nothing is listed for the others, so no header.
          if ((kind === 'webhooks' || kind === 'subscriptions') && role !== 'administrator') assert.equal(created.headers.allow, undefined, `${role} on /${kind}`);
          else assert.equal(allow[0], 'GET');
        }
      }
    });

    it('is sent on error answers of a route too, and not on paths that are no route', async () => {
      const { http } = await testApp();
      const editor = await createUser('editor');
      const missing = await http().get(`${NS}/events/999999`).set('Authorization', editor.authorization);
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.allow, 'GET, DELETE, POST, PUT, PATCH');
      const invalid = await http().post(`${NS}/events`).set('Authorization', editor.authorization).send({ title: '' });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.headers.allow, 'GET, POST');
      const anonymousWrite = await http().post(`${NS}/categories`).send({ name: 'x' });
      assert.equal(anonymousWrite.status, 401);
      assert.equal(anonymousWrite.headers.allow, 'GET');
      const wrongCredentials = await http().get(`${NS}/events`).set('Authorization', 'Bearer not-a-secret');
      assert.equal(wrongCredentials.status, 401);
      assert.equal(wrongCredentials.headers.allow, 'GET');
      const noRoute = await http().get(`${NS}/nothing-here`);
      assert.equal(noRoute.status, 404);
      assert.equal(noRoute.headers.allow, undefined);
    });

    it('follows BASE_PATH', async () => {
      const { http } = await testApp({ basePath: '/api' });
      const res = await http().get('/api/tribe/events/v1/events');
      assert.equal(res.status, 200);
      assert.equal(res.headers.allow, 'GET');
    });
  });

  it('carries X-Request-Id and the discovery Link on every answer, successes and errors', async () => {
    const { http } = await testApp();
    for (const res of [await http().get(`${NS}/events`), await http().get(`${NS}/events/424242`), await http().post(`${NS}/events`).send({})]) {
      assert.ok(res.headers['x-request-id'], `${res.status}: X-Request-Id`);
      assert.match(String(res.headers.link), /rel="https:\/\/api\.w\.org\/"/, `${res.status}: Link`);
    }
  });
});
