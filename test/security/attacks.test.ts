import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createUser, NS, testApp } from '../helpers/app.js';
import { expectError } from '../helpers/assertions.js';

/**
 * Attacks that once worked against the service (probed black-box, with the source at hand), each as
 * the requests that reproduced it, so they stay fixed. (The read rules they found are checked in
 * leaks.test.ts and the authorization matrix; the HTML payloads in xss.test.ts.)
 */

describe('attacks that once worked (regressions)', () => {
  describe('broken %-encoding', () => {
    // `decodeURIComponent` on the image URL's file name threw URIError inside the write: a 500.
    it('an image URL with a broken %-escape is 400 rest_invalid_param on image, on every resource', async () => {
      const { http } = await testApp();
      const author = await createUser('author');
      const bodies = {
        events: { title: 'E', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' },
        venues: { venue: 'V' },
        organizers: { organizer: 'O' },
      };
      for (const [collection, body] of Object.entries(bodies)) {
        for (const image of ['https://x.example/%ff', 'https://x.example/a%ff.png', 'https://x.example/dir/%e0%a4%a.jpg', 'https://x.example/%c3']) {
          const data = expectError(
            await http()
              .post(`${NS}/${collection}`)
              .set('Authorization', author.authorization)
              .send({ ...body, image }),
            400,
            'rest_invalid_param',
          );
          assert.ok((data.params as Record<string, string>).image, `${collection} ${image}: ${JSON.stringify(data)}`);
        }
      }
      // A well-formed escape still works, and nothing was recorded by the refused requests.
      const ok = await http().post(`${NS}/venues`).set('Authorization', author.authorization).send({ venue: 'V', image: 'https://x.example/caf%C3%A9.png' });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.image.id > 0, true);
      const venues = await http().get(`${NS}/venues`);
      assert.equal(venues.body.total, 1);
    });

    // The validator decodes path parameters itself; a broken escape there named a parameter "tribe".
    it('a broken %-escape in a path parameter matches no route (404 rest_no_route), like any malformed path parameter', async () => {
      const { http } = await testApp();
      for (const path of ['events/by-slug/%ff', 'venues/by-slug/%e0%a4', 'organizers/by-slug/%', 'events/%ff']) {
        expectError(await http().get(`${NS}/${path}`), 404, 'rest_no_route');
      }
      // Express's router decodes the documentation page's file name: its URIError was a 500.
      for (const path of ['/docs/%ff', '/docs/%']) expectError(await http().get(path), 404, 'rest_no_route');
    });
  });

  describe('record passwords guessed at full speed', () => {
    // 300 wrong `?password=` guesses took 0.8 s; each answered 403 at once.
    it('counts wrong passwords per client and record: 429 rest_too_many_requests with Retry-After once the limit is used up', async () => {
      const { http } = await testApp({ passwordFailureLimit: 5, passwordFailureWindowSeconds: 120 });
      const admin = await createUser('administrator');
      const subscriber = await createUser('subscriber');
      const records: Record<string, { id: number; slug: string }> = {};
      for (const [collection, body] of [
        ['events', { title: 'Protected', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' }],
        ['venues', { venue: 'Protected venue' }],
        ['organizers', { organizer: 'Protected organizer' }],
      ] as const) {
        const res = await http()
          .post(`${NS}/${collection}`)
          .set('Authorization', admin.authorization)
          .send({ ...body, password: 'the-right-one' });
        assert.equal(res.status, 201, res.text);
        records[collection] = { id: res.body.id, slug: res.body.slug };
      }
      const code = { events: 'event', venues: 'venue', organizers: 'organizer' } as const;
      for (const [collection, { id, slug }] of Object.entries(records) as Array<[keyof typeof code, { id: number; slug: string }]>) {
        // Five wrong guesses (by id and by slug, anonymous and as a subscriber: one client) are plain 403s.
        for (let n = 0; n < 5; n++) {
          const path = n % 2 === 0 ? `${NS}/${collection}/${id}` : `${NS}/${collection}/by-slug/${slug}`;
          let req = http()
            .get(path)
            .query({ password: `guess-${n}` });
          if (n === 3) req = req.set('Authorization', subscriber.authorization);
          expectError(await req, 403, `${code[collection]}-password-protected`);
        }
        // Then every guess is refused, the right one too, until the window ends.
        for (const password of ['guess-6', 'the-right-one']) {
          const res = await http().get(`${NS}/${collection}/${id}`).query({ password });
          expectError(res, 429, 'rest_too_many_requests');
          const retryAfter = Number(res.headers['retry-after']);
          assert.ok(retryAfter > 0 && retryAfter <= 120, `Retry-After ${res.headers['retry-after']}`);
        }
        // A read without a password is not a guess: the usual 403.
        expectError(await http().get(`${NS}/${collection}/${id}`), 403, `${code[collection]}-password-protected`);
        // The administrator, who may edit the record, needs no password and is never refused.
        assert.equal((await http().get(`${NS}/${collection}/${id}`).query({ password: 'x' }).set('Authorization', admin.authorization)).status, 200);
      }
      // Another record is counted apart: its right password still opens it.
      const other = await http().post(`${NS}/venues`).set('Authorization', admin.authorization).send({ venue: 'Other protected venue', password: 'other-one' });
      expectError(await http().get(`${NS}/venues/${other.body.id}`).query({ password: 'wrong' }), 403, 'venue-password-protected');
      assert.equal((await http().get(`${NS}/venues/${other.body.id}`).query({ password: 'other-one' })).status, 200);
    });
  });

  describe('large JSON bodies parsed before authentication', () => {
    // An anonymous 800 KB deeply nested body cost up to 290 ms of parsing before its 401.
    const deep = (levels: number) => `{"title":"x","extra":${'['.repeat(levels)}${']'.repeat(levels)}}`;

    it('refuses an anonymous write before reading its body: 401 whatever the body (malformed, oversized, deep)', async () => {
      const { http } = await testApp({ bodyLimit: '1kb' });
      const bodies: Array<[string, string]> = [
        ['malformed JSON', '{"title":'],
        ['over BODY_LIMIT', JSON.stringify({ title: 'x'.repeat(5_000) })],
        ['deeply nested', deep(400_000)],
      ];
      for (const [label, body] of bodies) {
        for (const [method, path] of [
          ['post', 'events'],
          ['patch', 'venues/1'],
          ['put', 'organizers/by-slug/x'],
          ['post', 'categories'],
          ['delete', 'tags/1'],
        ] as const) {
          const res = await http()[method](`${NS}/${path}`).set('Content-Type', 'application/json').send(body);
          expectError(res, 401, 'rest_forbidden');
          assert.ok(!/json/i.test(res.body.message), `${label} ${method} ${path}: ${res.text}`);
        }
      }
      // Wrong credentials are refused before the body too.
      const res = await http().post(`${NS}/events`).auth('nobody', 'wrong-secret-123').set('Content-Type', 'application/json').send('{"title":');
      expectError(res, 401, 'rest_invalid_credentials');
    });

    it('does not parse bodies sent to routes that take none', async () => {
      const { http } = await testApp();
      const admin = await createUser('administrator');
      expectError(await http().post(`${NS}/nothing-here`).set('Content-Type', 'application/json').send('{"broken":'), 404, 'rest_no_route');
      expectError(await http().post(`${NS}/doc`).set('Authorization', admin.authorization).set('Content-Type', 'application/json').send('{"broken":'), 404, 'rest_no_route');
    });

    it('bounds the nesting depth of a JSON body while parsing it: 400 naming the body', async () => {
      const { http } = await testApp();
      const editor = await createUser('editor');
      const valid = { title: 'Deep', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' };
      for (const levels of [40, 400_000]) {
        const body = JSON.stringify({ ...valid, extra: 'PLACEHOLDER' }).replace('"PLACEHOLDER"', `${'['.repeat(levels)}${']'.repeat(levels)}`);
        const data = expectError(
          await http().post(`${NS}/events`).set('Authorization', editor.authorization).set('Content-Type', 'application/json').send(body),
          400,
          'rest_invalid_param',
        );
        assert.match(String((data.params as Record<string, string>).body), /nested too deeply/, JSON.stringify(data));
      }
      // Brackets inside strings are text, not nesting; ordinary depth is fine.
      const brackets = await http()
        .post(`${NS}/events`)
        .set('Authorization', editor.authorization)
        .send({ ...valid, title: `Deep ${'[{'.repeat(100)}` });
      assert.equal(brackets.status, 201, brackets.text);
      const nested = await http()
        .post(`${NS}/events`)
        .set('Authorization', editor.authorization)
        .send({ ...valid, venue: [{ venue: 'Nested venue' }], organizer: [{ organizer: 'Nested organizer' }] });
      assert.equal(nested.status, 201, nested.text);
      // Nothing was stored by the refused requests.
      assert.equal((await http().get(`${NS}/events?per_page=50&starts_after=2029-12-31`)).body.total, 2);
    });
  });

  describe('long and malformed Host headers', () => {
    // Every absolute URL carries the Host when PUBLIC_URL is unset: a 15,000-character Host turned a
    // 70 KB list into 9 MB and the process ran out of heap; malformed ones answered 500.
    const MALFORMED = ['a b', 'a<b', '[::1', 'a:99999', '', '%ff', 'a/b', 'a@b', 'x"y', 'caf\u00e9.example', '[::1]x', 'a:1:2', `${'h'.repeat(254)}`, 'h'.repeat(15_000)];

    it('answers a malformed or over-long Host with 400 rest_invalid_host in the error envelope, on every kind of route', async () => {
      const { http } = await testApp();
      for (const host of MALFORMED) {
        for (const path of [`${NS}/events`, `${NS}/categories?hide_empty=0`, `${NS}/doc`, `${NS}/nothing`, '/healthz', '/docs']) {
          const res = await http().get(path).set('Host', host);
          expectError(res, 400, 'rest_invalid_host');
          assert.ok(res.text.length < 1_000, `${JSON.stringify(host.slice(0, 20))} ${path}: ${res.text.length} bytes`);
          assert.ok(!res.text.includes(host.slice(0, 50)) || host === '', `${JSON.stringify(host.slice(0, 20))}: the answer repeats the Host`);
        }
      }
    });

    it('accepts every well-formed host: names, IPv4, bracketed IPv6, with or without a port, up to 253 characters', async () => {
      const { http } = await testApp();
      for (const host of ['api.example.org', 'API.Example.org:8443', 'localhost', '127.0.0.1:8080', '[::1]', '[2001:db8::1]:443', 'a-b_c~d.example', `${'h'.repeat(253)}:65535`]) {
        const res = await http().get(`${NS}/categories?hide_empty=0`).set('Host', host);
        assert.equal(res.status, 200, `${host}: ${res.text}`);
        assert.ok(res.body.rest_url.startsWith(`http://${host}/`), res.body.rest_url);
      }
    });

    it('without PUBLIC_URL answers only ALLOWED_HOSTS when it is set (health checks by address excepted)', async () => {
      const { http } = await testApp({
        allowedHosts: [
          { host: 'api.example.org', port: undefined },
          { host: 'localhost', port: 8080 },
        ],
      });
      for (const host of ['api.example.org', 'API.EXAMPLE.ORG', 'api.example.org:9000', 'localhost:8080']) {
        assert.equal((await http().get(`${NS}/events`).set('Host', host)).status, 200, host);
      }
      for (const host of ['evil.example', 'localhost', 'localhost:9999', 'api.example.org.evil.example', '127.0.0.1']) {
        expectError(await http().get(`${NS}/events`).set('Host', host), 400, 'rest_invalid_host');
        expectError(await http().post(`${NS}/events`).set('Host', host).send({}), 400, 'rest_invalid_host');
      }
      // Probes and scrapers reach a process by its address.
      assert.equal((await http().get('/healthz').set('Host', '10.0.0.7:8080')).status, 200);
      expectError(await http().get('/healthz').set('Host', 'a b'), 400, 'rest_invalid_host');
    });

    it('with PUBLIC_URL ignores ALLOWED_HOSTS and the Host in URLs, but still refuses a malformed Host', async () => {
      const { http } = await testApp({ publicUrl: 'https://api.example.org', allowedHosts: [{ host: 'other.example', port: undefined }] });
      const res = await http().get(`${NS}/categories?hide_empty=0`).set('Host', 'internal:9999');
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.rest_url.startsWith('https://api.example.org/'), res.body.rest_url);
      expectError(await http().get(`${NS}/categories`).set('Host', 'a<b'), 400, 'rest_invalid_host');
    });

    it('keeps the size of a list within the Host bound: 252 characters more per use of the host than a one-letter one', async () => {
      const { http } = await testApp();
      const admin = await createUser('administrator');
      const venues: number[] = [];
      for (let i = 0; i < 20; i++)
        venues.push(
          (
            await http()
              .post(`${NS}/venues`)
              .set('Authorization', admin.authorization)
              .send({ venue: `Venue ${i}` })
          ).body.id,
        );
      const organizers: number[] = [];
      for (let i = 0; i < 20; i++)
        organizers.push(
          (
            await http()
              .post(`${NS}/organizers`)
              .set('Authorization', admin.authorization)
              .send({ organizer: `Organizer ${i}` })
          ).body.id,
        );
      for (let i = 0; i < 10; i++) {
        const res = await http()
          .post(`${NS}/events`)
          .set('Authorization', admin.authorization)
          // As many venues and organizers as an event may have (docs/limits.md).
          .send({ title: `Event ${i}`, start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', venue: venues.slice(i, i + 3), organizer: organizers.slice(i, i + 5) });
        assert.equal(res.status, 201, res.text);
      }
      const list = (host: string) => http().get(`${NS}/events?per_page=10&starts_after=2029-12-31`).set('Host', host);
      const short = await list('a');
      const longest = await list('h'.repeat(253));
      // Each URL and global id carries the host once: the reply grows by 252 characters per use, no more.
      const uses = longest.text.split('h'.repeat(253)).length - 1;
      assert.ok(uses > 200, `${uses} uses of the host`);
      assert.equal(longest.text.length - short.text.length, uses * 252, `${short.text.length} → ${longest.text.length} bytes for ${uses} uses`);
      expectError(await list('h'.repeat(15_000)), 400, 'rest_invalid_host');
    });
  });

  describe('reply size', () => {
    const many = async (http: Awaited<ReturnType<typeof testApp>>['http'], count: number, description: string) => {
      const admin = await createUser('administrator');
      for (let i = 0; i < count; i++) {
        const res = await http()
          .post(`${NS}/events`)
          .set('Authorization', admin.authorization)
          .send({ title: `Event ${i}`, description, start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' });
        assert.equal(res.status, 201, res.text);
      }
    };

    // Response validation (on in every other test) serialises the reply itself; these tests run the
    // production path.
    it('refuses a page larger than REPLY_LIMIT before sending any of it: 400 on per_page (docs/limits.md), a record 500 rest_response_too_large', async () => {
      const { http } = await testApp({ validateResponses: false, replyLimit: 64 * 1024 });
      await many(http, 20, 'x'.repeat(5_000));
      const res = await http().get(`${NS}/events?per_page=20&starts_after=2029-12-31`);
      const data = expectError(res, 400, 'rest_invalid_param') as { params: Record<string, string>; details: Record<string, { code: string }> };
      assert.match(data.params.per_page, /per_page is too large for these records/);
      assert.equal(data.details.per_page.code, 'rest_response_too_large');
      assert.ok(res.text.length < 1_000);
      // A single record larger than REPLY_LIMIT is the server's configuration: 500.
      const { http: tiny } = await testApp({ validateResponses: false, replyLimit: 4 * 1024 });
      expectError(await tiny().get(`${NS}/events?per_page=1&starts_after=2029-12-31`), 500, 'rest_response_too_large');
      // A smaller page fits.
      const small = await http().get(`${NS}/events?per_page=5&starts_after=2029-12-31`);
      assert.equal(small.status, 200);
      assert.equal(small.body.events.length, 5);
    });

    it('streams a reply over 1 MB with its length and ETag, and answers If-None-Match with 304 as for small ones', async () => {
      const { http } = await testApp({ validateResponses: false });
      // Within the description's limit (16,384 characters, docs/limits.md): three bytes a character.
      await many(http, 30, '€'.repeat(16_000));
      const path = `${NS}/events?per_page=30&starts_after=2029-12-31`;
      // One Host for all requests (supertest's own names a new port each time, and URLs carry it).
      const get = () => http().get(path).set('Host', 'api.test');
      const res = await get();
      assert.equal(res.status, 200);
      assert.ok(Buffer.byteLength(res.text) > 1024 * 1024, `${Buffer.byteLength(res.text)} bytes`);
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)));
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.body.events.length, 30);
      assert.match(res.headers.etag, /^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
      const again = await get().set('If-None-Match', res.headers.etag);
      assert.equal(again.status, 304, `${res.headers.etag} then ${again.headers.etag}`);
      const head = await http().head(path).set('Host', 'api.test');
      assert.equal(head.status, 200);
      assert.equal(head.headers['content-length'], res.headers['content-length']);
      // The ETag is the one Express gives the same bytes sent in one piece (as it does for small replies).
      const etagOf = (text: string) => `W/"${Buffer.byteLength(text).toString(16)}-${crypto.createHash('sha1').update(text).digest('base64').slice(0, 27)}"`;
      assert.equal(res.headers.etag, etagOf(res.text));
      const small = await http().get(`${NS}/events?per_page=1&starts_after=2029-12-31`);
      assert.equal(small.headers.etag, etagOf(small.text));
    });
  });

  describe('CORS', () => {
    it('answers any origin with credentials by default, as WordPress does', async () => {
      const { http } = await testApp();
      const res = await http().get(`${NS}/categories`).set('Origin', 'https://anywhere.example');
      assert.equal(res.headers['access-control-allow-origin'], 'https://anywhere.example');
      assert.equal(res.headers['access-control-allow-credentials'], 'true');
      assert.match(String(res.headers.vary), /Origin/);
    });

    it('with CORS_ORIGINS answers only the listed origins, preflights included', async () => {
      const { http } = await testApp({ corsOrigins: ['https://app.example', 'http://localhost:3000'] });
      for (const origin of ['https://app.example', 'http://localhost:3000', 'HTTPS://APP.EXAMPLE', 'https://app.example:443']) {
        const res = await http().get(`${NS}/categories`).set('Origin', origin);
        assert.equal(res.status, 200);
        assert.equal(res.headers['access-control-allow-origin'], origin, origin);
        assert.equal(res.headers['access-control-allow-credentials'], 'true', origin);
        const preflight = await http().options(`${NS}/events`).set('Origin', origin).set('Access-Control-Request-Method', 'POST');
        assert.equal(preflight.headers['access-control-allow-origin'], origin, `preflight ${origin}`);
      }
      for (const origin of ['https://evil.example', 'https://app.example.evil.example', 'http://app.example', 'http://localhost:3001', 'null']) {
        const res = await http().get(`${NS}/categories`).set('Origin', origin);
        // The answer itself is the same (CORS is enforced by the browser), without the headers that share it.
        assert.equal(res.status, 200);
        assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
        assert.equal(res.headers['access-control-allow-credentials'], undefined, origin);
        const preflight = await http().options(`${NS}/events`).set('Origin', origin).set('Access-Control-Request-Method', 'DELETE');
        assert.equal(preflight.headers['access-control-allow-origin'], undefined, `preflight ${origin}`);
      }
    });
  });
});
