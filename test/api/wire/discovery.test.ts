import assert from 'node:assert/strict';
import { testApp, NS } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { listOperations, loadDocument } from '../../../src/openapi/document.js';

describe('namespace index and /doc', () => {
  it('serves the WordPress namespace index, with and without a trailing slash', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    for (const url of [NS, `${NS}/`]) {
      const res = await http().get(url);
      expectStatus(res, 200);
      assert.deepEqual(Object.keys(res.body), ['namespace', 'routes', '_links']);
      assert.equal(res.body.namespace, 'tribe/events/v1');
      assert.deepEqual(res.body._links, { up: [{ href: 'http://api.test/wp-json/' }] });
    }
  });

  it('lists every route of the document in WordPress regex form, in document order', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const res = await http().get(NS);
    assert.deepEqual(Object.keys(res.body.routes), [
      '/tribe/events/v1',
      '/tribe/events/v1/doc',
      '/tribe/events/v1/events',
      '/tribe/events/v1/events.ics',
      '/tribe/events/v1/events.jsonld',
      '/tribe/events/v1/events/import',
      '/tribe/events/v1/events/(?P<id>\\d+)',
      '/tribe/events/v1/events/(?P<id>\\d+)/ics',
      '/tribe/events/v1/events/(?P<id>\\d+)/occurrences',
      '/tribe/events/v1/events/by-slug/(?P<slug>[^/]+)',
      '/tribe/events/v1/venues',
      '/tribe/events/v1/venues/(?P<id>\\d+)',
      '/tribe/events/v1/venues/by-slug/(?P<slug>[^/]+)',
      '/tribe/events/v1/organizers',
      '/tribe/events/v1/organizers/(?P<id>\\d+)',
      '/tribe/events/v1/organizers/by-slug/(?P<slug>[^/]+)',
      '/tribe/events/v1/categories',
      '/tribe/events/v1/categories/(?P<id>\\d+)',
      '/tribe/events/v1/tags',
      '/tribe/events/v1/tags/(?P<id>\\d+)',
      '/tribe/events/v1/changes',
      '/tribe/events/v1/webhooks',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/secret',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/deliveries',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/ping',
      '/tribe/events/v1/subscriptions',
      '/tribe/events/v1/subscriptions/(?P<id>\\d+)',
      '/tribe/events/v1/subscriptions/(?P<id>\\d+)/refresh',
      '/tribe/events/v1/subscriptions/(?P<id>\\d+)/runs',
    ]);
  });

  it('writes literal segments as WordPress does, so that index-driven clients (wpapi) can build every URL', async () => {
    // wpapi 1.2.2 (lib/route-tree.js) takes a segment without a named group as both the URL text and
    // its check, `new RegExp(segment, 'i').test(segment)`: `events\\.ics` failed it ("Invalid path
    // component"), so wpapi had no method for the feed. WordPress writes its own dots plainly
    // (`/oembed/1.0/embed`).
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const routes = Object.keys((await http().get(NS)).body.routes);
    const documented = listOperations(loadDocument()).map((op) => `/tribe/events/v1${op.path === '/' ? '' : op.path}`);
    for (const route of routes) {
      const url = route.replace('(?P<id>\\d+)', '{id}').replace('(?P<slug>[^/]+)', '{slug}');
      const literal = url.split('/').filter((segment) => !segment.startsWith('{'));
      for (const segment of literal) assert.ok(new RegExp(segment, 'i').test(segment), `${route}: ${segment}`);
      assert.ok(documented.includes(url), `${route} is the document's ${url}`);
    }
  });

  it('derives methods, endpoints and arguments from the document', async () => {
    const { http } = await testApp({ publicUrl: 'http://api.test' });
    const { routes } = (await http().get(NS)).body;
    const event = routes['/tribe/events/v1/events/(?P<id>\\d+)'];
    assert.deepEqual([...event.methods].sort(), ['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
    const edit = event.endpoints.find((e: { methods: string[] }) => e.methods.includes('PUT'));
    assert.deepEqual([...edit.methods].sort(), ['PATCH', 'POST', 'PUT'], 'POST, PUT and PATCH share one endpoint');
    assert.equal(edit.args.id.required, true);
    assert.equal(edit.args.title.required, false);
    const events = routes['/tribe/events/v1/events'];
    assert.deepEqual(events._links, { self: [{ href: 'http://api.test/wp-json/tribe/events/v1/events' }] });
    const list = events.endpoints.find((e: { methods: string[] }) => e.methods.includes('GET'));
    assert.equal(list.args.per_page.default, 10);
    assert.equal(list.args.page.default, 1);
    const create = events.endpoints.find((e: { methods: string[] }) => e.methods.includes('POST'));
    for (const name of ['title', 'start_date', 'end_date']) assert.equal(create.args[name].required, true, name);
    assert.equal(event._links, undefined, 'routes with path parameters have no self link');
  });

  it('serves the OpenAPI document with the real base URL of the request as its server', async () => {
    const { http } = await testApp();
    const res = await http().get(`${NS}/doc`).set('Host', 'calendar.example:8123');
    expectStatus(res, 200);
    assert.equal(res.body.openapi, '3.0.3');
    assert.equal(res.body.info.title, 'The Events Calendar REST API');
    assert.match(res.body.info.description, /^The Events Calendar REST API allows accessing upcoming events information easily and conveniently\./);
    assert.deepEqual(
      res.body.servers.map((s: { url: string }) => s.url),
      ['http://calendar.example:8123/wp-json/tribe/events/v1'],
    );
    const operations = listOperations(loadDocument()).map((op) => op.operationId);
    const served = Object.values(res.body.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item)
        .map((op) => op.operationId)
        .filter(Boolean),
    );
    assert.deepEqual([...served].sort(), [...operations].sort());
    assert.deepEqual({ ...res.body, servers: [] }, { ...loadDocument(), servers: [] }, 'generated/openapi.yaml as it is, but for servers');
  });

  it('lets PUBLIC_URL win over the Host header in absolute URLs', async () => {
    const { http } = await testApp({ publicUrl: 'https://events.example.org' });
    const res = await http().get(`${NS}/doc`).set('Host', 'internal:9999');
    assert.equal(res.body.servers[0].url, 'https://events.example.org/wp-json/tribe/events/v1');
  });

  it('mounts the namespace under BASE_PATH', async () => {
    const { http } = await testApp({ basePath: '/api' });
    expectStatus(await http().get('/api/tribe/events/v1/categories'), 200);
    assert.equal((await http().get(`${NS}/categories`)).status, 404);
  });
});
