import assert from 'node:assert/strict';
import { testApp, NS, createUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { UserRepository } from '../../../src/repositories/users.js';
import { corsLists } from '../../../src/http/headers.js';
import { listOperations, loadDocument } from '../../../src/openapi/document.js';

describe('HTTP behaviour shared by every route', () => {
  it('answers unknown paths and unsupported methods with rest_no_route', async () => {
    const { http } = await testApp();
    expectError(await http().get(`${NS}/nothing-here`), 404, 'rest_no_route');
    // The site root is the public events page (docs/contract.md §13) unless PAGES is off.
    const { http: withoutPages } = await testApp({ pages: false });
    expectError(await withoutPages().get('/'), 404, 'rest_no_route');
    expectError(await http().get(`${NS}/categories/abc`), 404, 'rest_no_route');
    expectError(await http().get(`${NS}/events/by-slug/`), 404, 'rest_no_route');
    const admin = await createUser('administrator');
    expectError(await http().put(`${NS}/categories`).set('Authorization', admin.authorization).send({}), 404, 'rest_no_route');
    expectError(await http().delete(`${NS}/doc`).set('Authorization', admin.authorization), 404, 'rest_no_route');
  });

  it('accepts a trailing slash on any route', async () => {
    const { http } = await testApp();
    expectStatus(await http().get(`${NS}/categories/`), 200);
    expectStatus(await http().get(`${NS}/doc/`), 200);
  });

  it('serves HEAD wherever GET works, with the same headers and no body', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const get = await http().get(`${NS}/categories?hide_empty=0`);
    const head = await http().head(`${NS}/categories?hide_empty=0`);
    expectStatus(head, 200);
    assert.equal(head.text, undefined);
    assert.equal(head.headers['x-tec-total'], get.headers['x-tec-total']);
    assert.equal(head.headers.etag, get.headers.etag);
  });

  it('sends the WordPress headers, a request id and CORS headers exposing the paging headers', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const res = await http().get(`${NS}/categories`).set('Origin', 'https://app.example');
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-robots-tag'], 'noindex');
    assert.equal(res.headers['x-powered-by'], undefined);
    assert.match(res.headers.link, /<http:\/\/api\.test\/wp-json\/>; rel="https:\/\/api\.w\.org\/"/);
    assert.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/);
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example');
    for (const header of ['X-WP-Total', 'X-WP-TotalPages', 'Link', 'X-TEC-Total', 'X-TEC-TotalPages']) {
      assert.ok(res.headers['access-control-expose-headers'].split(/,\s*/).includes(header), header);
    }
  });

  it('keeps a caller-supplied request id', async () => {
    const { http } = await testApp();
    const res = await http().get(`${NS}/categories`).set('X-Request-Id', 'trace-42');
    assert.equal(res.headers['x-request-id'], 'trace-42');
  });

  it('answers CORS preflight requests without credentials', async () => {
    const { http } = await testApp();
    const res = await http().options(`${NS}/events`).set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'POST');
    assert.equal(res.status, 204);
    assert.match(res.headers['access-control-allow-methods'], /POST/);
    assert.match(res.headers['access-control-allow-headers'], /Authorization/);
  });

  it('answers If-None-Match with 304 on public GETs', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const first = await http().get(`${NS}/categories`);
    assert.ok(first.headers.etag);
    const second = await http().get(`${NS}/categories`).set('If-None-Match', first.headers.etag);
    assert.equal(second.status, 304);
  });

  it('marks authenticated answers as not cacheable', async () => {
    const { http } = await testApp();
    const editor = await createUser('editor');
    const res = await http().get(`${NS}/categories`).set('Authorization', editor.authorization);
    assert.equal(res.headers['cache-control'], 'no-cache, must-revalidate, max-age=0, no-store, private');
    // Anonymous reads are shared (docs/contract.md §19; every case: test/api/caching/cache-headers.test.ts).
    assert.match((await http().get(`${NS}/categories`)).headers['cache-control'], /^public, /);
  });

  it('refuses malformed JSON, unsupported content types and oversized bodies in the error envelope', async () => {
    const { http } = await testApp({ bodyLimit: '1kb' });
    const admin = await createUser('administrator');
    const data = expectError(
      await http().post(`${NS}/categories`).set('Authorization', admin.authorization).set('Content-Type', 'application/json').send('{"name":'),
      400,
      'rest_invalid_json',
    );
    assert.equal(data.json_error_message, 'Syntax error');
    expectError(
      await http().post(`${NS}/categories`).set('Authorization', admin.authorization).set('Content-Type', 'text/plain').send('name=x'),
      415,
      'rest_unsupported_media_type',
    );
    expectError(
      await http()
        .post(`${NS}/categories`)
        .set('Authorization', admin.authorization)
        .send({ name: 'x', description: 'y'.repeat(5000) }),
      413,
      'rest_request_too_large',
    );
  });

  it('refuses an anonymous write before reading its body, and before its parameters or content type', async () => {
    const { http } = await testApp({ bodyLimit: '1kb' });
    // No body of an anonymous write is read: malformed, oversized or of another type, it is 401.
    expectError(await http().post(`${NS}/categories`).set('Content-Type', 'application/json').send('{"name":'), 401, 'rest_forbidden');
    expectError(
      await http()
        .post(`${NS}/categories`)
        .send({ name: 'x', description: 'y'.repeat(5000) }),
      401,
      'rest_forbidden',
    );
    expectError(await http().post(`${NS}/categories`).send({ name: 5, parent: 'not-a-number' }), 401, 'rest_forbidden');
    expectError(await http().post(`${NS}/categories`).set('Content-Type', 'text/plain').send('name=x'), 401, 'rest_forbidden');
    expectError(await http().post(`${NS}/events/999999`).send({ title: 'x' }), 401, 'rest_forbidden');
  });
});

describe('authentication', () => {
  it('accepts HTTP Basic with an application password, with or without spaces', async () => {
    const { http } = await testApp();
    const editor = await createUser('editor');
    expectStatus(await http().post(`${NS}/tags`).set('Authorization', editor.authorization).send({ name: 'One' }), 201);
    const spaced = editor.secret.replace(/(.{4})/g, '$1 ');
    expectStatus(await http().post(`${NS}/tags`).auth(editor.login, spaced).send({ name: 'Two' }), 201);
  });

  it('accepts Authorization: Bearer with the secret alone', async () => {
    const { http } = await testApp();
    const editor = await createUser('editor');
    expectStatus(await http().post(`${NS}/tags`).set('Authorization', `Bearer ${editor.secret}`).send({ name: 'One' }), 201);
  });

  it('answers 401 rest_invalid_credentials alike for a wrong secret, an unknown login and a bad token', async () => {
    const { http } = await testApp();
    const editor = await createUser('editor');
    const attempts = [
      http().get(`${NS}/categories`).auth(editor.login, 'wrong-secret-123'),
      http().get(`${NS}/categories`).auth('nobody', editor.secret),
      http().post(`${NS}/tags`).set('Authorization', 'Bearer not-a-secret').send({ name: 'x' }),
      http().get(`${NS}/categories`).set('Authorization', 'Digest abc'),
      http().get(`${NS}/categories`).set('Authorization', 'Basic !!!'),
    ];
    const bodies: unknown[] = [];
    for (const attempt of attempts) {
      const res = await attempt;
      expectError(res, 401, 'rest_invalid_credentials');
      bodies.push(res.body);
    }
    assert.ok(
      bodies.every((body) => JSON.stringify(body) === JSON.stringify(bodies[0])),
      'the same answer every time',
    );
  });

  it('refuses a Bearer secret shared by two users instead of guessing which one', async () => {
    const { http } = await testApp();
    const { db } = await openTestDatabase();
    await new UserRepository(db).add('one', 'editor', 'shared-secret-1');
    await new UserRepository(db).add('two', 'subscriber', 'shared-secret-1');
    expectError(await http().post(`${NS}/tags`).set('Authorization', 'Bearer shared-secret-1').send({ name: 'x' }), 401, 'rest_invalid_credentials');
    expectStatus(await http().post(`${NS}/tags`).auth('one', 'shared-secret-1').send({ name: 'x' }), 201);
  });

  it('treats a request without credentials as the anonymous visitor: reads pass, writes get 401 before validation', async () => {
    const { http } = await testApp();
    expectStatus(await http().get(`${NS}/tags`), 200);
    expectError(await http().post(`${NS}/tags`).send({ name: '' }), 401, 'rest_forbidden');
    expectError(await http().post(`${NS}/events`).send({}), 401, 'rest_forbidden');
  });
});

describe('security headers and CORS on every kind of answer', () => {
  /** One answer of each kind: record, list, doc, HEAD, 304, every error family, preflight, health. */
  async function answers() {
    const { http } = await testApp({ bodyLimit: '1kb' });
    const admin = await createUser('administrator');
    const origin = 'https://app.example';
    const first = await http().get(`${NS}/categories`).set('Origin', origin);
    return {
      list: first,
      doc: await http().get(`${NS}/doc`).set('Origin', origin),
      head: await http().head(`${NS}/categories`).set('Origin', origin),
      notModified: await http().get(`${NS}/categories`).set('Origin', origin).set('If-None-Match', first.headers.etag),
      created: await http().post(`${NS}/tags`).set('Origin', origin).set('Authorization', admin.authorization).send({ name: 'Headers' }),
      noRoute: await http().get(`${NS}/nothing-here`).set('Origin', origin),
      notFound: await http().get(`${NS}/events/999999`).set('Origin', origin),
      anonymousWrite: await http().post(`${NS}/events`).set('Origin', origin).send({}),
      badCredentials: await http().get(`${NS}/events`).set('Origin', origin).auth('nobody', 'wrong-secret-123'),
      invalidParam: await http().get(`${NS}/events?per_page=abc`).set('Origin', origin),
      invalidJson: await http().post(`${NS}/tags`).set('Origin', origin).set('Authorization', admin.authorization).set('Content-Type', 'application/json').send('{'),
      unsupportedType: await http().post(`${NS}/tags`).set('Origin', origin).set('Authorization', admin.authorization).set('Content-Type', 'text/html').send('<b>x</b>'),
      tooLarge: await http()
        .post(`${NS}/tags`)
        .set('Origin', origin)
        .set('Authorization', admin.authorization)
        .send({ name: 'x', description: 'y'.repeat(5000) }),
      preflight: await http()
        .options(`${NS}/events/1`)
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'DELETE')
        .set('Access-Control-Request-Headers', 'authorization,content-type'),
      health: await http().get('/healthz').set('Origin', origin),
    };
  }

  it('sends helmet\u2019s headers for a JSON API and no X-Powered-By, whatever the answer', async () => {
    for (const [kind, res] of Object.entries(await answers())) {
      const h = res.headers;
      assert.equal(h['x-powered-by'], undefined, kind);
      assert.equal(h['x-content-type-options'], 'nosniff', kind);
      // A restrictive Content-Security-Policy: nothing a browser could run or embed from an answer.
      const csp = String(h['content-security-policy']);
      for (const directive of ["object-src 'none'", "script-src-attr 'none'", 'frame-ancestors', 'base-uri', 'default-src'])
        assert.ok(csp.includes(directive), `${kind} CSP ${directive}: ${csp}`);
      assert.ok(!/unsafe-eval/.test(csp) && !/script-src[^;]*unsafe-inline/.test(csp), `${kind} CSP allows scripts: ${csp}`);
      assert.ok(['SAMEORIGIN', 'DENY'].includes(h['x-frame-options']), `${kind} X-Frame-Options ${h['x-frame-options']}`);
      assert.equal(h['referrer-policy'], 'no-referrer', kind);
      assert.equal(h['x-permitted-cross-domain-policies'], 'none', kind);
      assert.equal(h['x-dns-prefetch-control'], 'off', kind);
      // The legacy XSS auditor is switched off (it caused leaks of its own), as helmet recommends.
      assert.equal(h['x-xss-protection'], '0', kind);
      assert.equal(h['cross-origin-opener-policy'], 'same-origin', kind);
      // Other origins read the API through CORS; CORP must not block them.
      assert.equal(h['cross-origin-resource-policy'], 'cross-origin', kind);
      // Bodies are JSON, never something a browser would render as a page.
      if (res.status !== 204 && res.status !== 304 && kind !== 'head') assert.match(h['content-type'], /^application\/json; charset=utf-8$/, kind);
    }
  });

  it('lets browser clients of any origin read every answer, errors included, with the WordPress CORS headers', async () => {
    for (const [kind, res] of Object.entries(await answers())) {
      assert.equal(res.headers['access-control-allow-origin'], 'https://app.example', kind);
      assert.equal(res.headers['access-control-allow-credentials'], 'true', kind);
      assert.match(String(res.headers.vary), /Origin/, kind);
      if (kind !== 'preflight') {
        const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
        for (const header of ['X-WP-Total', 'X-WP-TotalPages', 'Link', 'X-TEC-Total', 'X-TEC-TotalPages']) assert.ok(exposed.includes(header), `${kind} ${header}`);
      }
    }
  });

  it('answers preflights for every method with the request headers WordPress clients send', async () => {
    const { preflight } = await answers();
    assert.equal(preflight.status, 204);
    assert.equal(preflight.text, '');
    const methods = String(preflight.headers['access-control-allow-methods']).split(/,\s*/);
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) assert.ok(methods.includes(method), method);
    const headers = String(preflight.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    for (const header of ['authorization', 'content-type', 'x-wp-nonce']) assert.ok(headers.includes(header), header);
  });

  it('sends the CORS lists derived from the document: its request headers allowed, its response headers exposed', async () => {
    const document = loadDocument();
    const lists = corsLists(document, listOperations(document));
    const { preflight, list } = await answers();
    // The cors middleware joins with ',' (over WordPress's headers middleware, which joins with ', ';
    // cors sends Access-Control-Allow-Headers on preflights only).
    assert.equal(preflight.headers['access-control-allow-headers'], lists.allowedHeaders.join(','));
    assert.equal(preflight.headers['access-control-allow-methods'], lists.methods.join(','));
    assert.equal(preflight.headers['access-control-expose-headers'], lists.exposedHeaders.join(','));
    assert.equal(list.headers['access-control-expose-headers'], lists.exposedHeaders.join(','));
    assert.equal(list.headers['access-control-allow-headers'], lists.allowedHeaders.join(', '));
    for (const header of ['Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id']) assert.ok(lists.allowedHeaders.includes(header), header);
  });

  it('sends no Access-Control-Allow-Origin to a request without an Origin header', async () => {
    const { http } = await testApp();
    assert.equal((await http().get(`${NS}/categories`)).headers['access-control-allow-origin'], undefined);
  });
});
