import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { loadDocument, resolveSchema } from '../../../src/openapi/document.js';
import { createUser, NS, testApp } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { linkRels } from '../../helpers/terms.js';

/**
 * WordPress discovery outside the namespace: the REST index at `{BASE_PATH}/` that every answer's
 * `Link: <…/wp-json/>; rel="https://api.w.org/"` points at, and `?rest_route=` on the site root for
 * clients of sites without pretty permalinks. Neither is part of the OpenAPI document (see
 * src/operations/rest-index.ts), so the index's routes are checked here against the document's
 * RouteDescription schema.
 */
const document = loadDocument();
const validateRoute = new Ajv({ strict: false, allErrors: true }).compile(resolveSchema(document, { $ref: '#/components/schemas/RouteDescription' }));

const INDEX_KEYS = ['name', 'description', 'url', 'home', 'gmt_offset', 'timezone_string', 'namespaces', 'authentication', 'routes'];

describe('WordPress discovery: the REST index and ?rest_route=', () => {
  describe('GET {BASE_PATH}/', () => {
    it('serves the REST index where the discovery Link points, with and without a trailing slash', async () => {
      const { http } = await testApp({ publicUrl: 'http://api.test', siteUrl: 'https://www.example.org' });
      const discovered = linkRels(await http().get(`${NS}/categories`))['https://api.w.org/'];
      assert.equal(discovered, 'http://api.test/wp-json/');
      for (const path of [new URL(discovered).pathname, '/wp-json']) {
        const res = await http().get(path);
        expectStatus(res, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(Object.keys(res.body), INDEX_KEYS, path);
        assert.equal(res.body.name, 'The Events Calendar REST API');
        assert.equal(res.body.description, 'The Events Calendar REST API allows accessing upcoming events information easily and conveniently.');
        assert.equal(res.body.url, 'http://api.test');
        assert.equal(res.body.home, 'https://www.example.org');
        assert.deepEqual(res.body.namespaces, ['tribe/events/v1']);
        assert.deepEqual(res.body.authentication, {});
        assert.equal(linkRels(res)['https://api.w.org/'], discovered, 'the index carries the discovery Link too');
      }
    });

    it('lists the index route and every route of the namespace, as the namespace index shows them', async () => {
      const { http } = await testApp({ publicUrl: 'http://api.test' });
      const index = (await http().get('/wp-json/')).body;
      const namespace = (await http().get(NS)).body;
      assert.deepEqual(Object.keys(index.routes), ['/', ...Object.keys(namespace.routes)]);
      assert.deepEqual(index.routes['/'], {
        namespace: '',
        methods: ['GET'],
        endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
        _links: { self: [{ href: 'http://api.test/wp-json/' }] },
      });
      for (const [key, route] of Object.entries(namespace.routes)) assert.deepEqual(index.routes[key], route, key);
      for (const [key, route] of Object.entries(index.routes)) assert.ok(validateRoute(route), `${key}: ${JSON.stringify(validateRoute.errors)}`);
      // Every route without path parameters links to itself, as WordPress links them whatever their
      // methods, and the link of each that can be read works (webhooks and subscriptions are for
      // administrators: without credentials their lists answer 401, as documented).
      for (const route of Object.values(index.routes) as Array<{ methods: string[]; _links?: { self: Array<{ href: string }> } }>) {
        if (!route._links || !route.methods.includes('GET')) continue;
        const path = new URL(route._links.self[0].href).pathname;
        expectStatus(await http().get(path), [`${NS}/webhooks`, `${NS}/subscriptions`].includes(path) ? 401 : 200);
      }
    });

    it('reports the site time zone as WordPress does: the offset now, and the zone name unless it is a fixed offset', async () => {
      const winter = () => new Date('2027-01-15T12:00:00Z');
      const summer = () => new Date('2027-07-15T12:00:00Z');
      const cases: Array<[string, () => Date, number, string]> = [
        ['UTC', winter, 0, 'UTC'],
        ['America/New_York', winter, -5, 'America/New_York'],
        ['America/New_York', summer, -4, 'America/New_York'],
        ['Asia/Kolkata', summer, 5.5, 'Asia/Kolkata'],
        ['UTC-3.5', winter, -3.5, ''],
      ];
      for (const [zone, now, offset, name] of cases) {
        const { http } = await testApp({ siteTimezone: zone }, now);
        const res = await http().get('/wp-json/');
        assert.deepEqual([res.body.gmt_offset, res.body.timezone_string], [offset, name], zone);
      }
    });

    it('answers HEAD, and 404 for other methods, as any route', async () => {
      const { http } = await testApp();
      const head = await http().head('/wp-json/');
      expectStatus(head, 200);
      assert.equal(head.text, undefined);
      expectError(await http().post('/wp-json/').send({}), 404, 'rest_no_route');
      expectError(await http().get('/wp-json/unknown'), 404, 'rest_no_route');
    });

    it('follows BASE_PATH', async () => {
      const { http } = await testApp({ basePath: '/api', publicUrl: 'http://api.test' });
      const res = await http().get('/api/');
      expectStatus(res, 200);
      assert.deepEqual(res.body.routes['/']._links.self, [{ href: 'http://api.test/api/' }]);
      assert.equal((await http().get('/wp-json/')).status, 404);
    });
  });

  describe('?rest_route= on the site root', () => {
    it('answers exactly as the pretty URL, with the other parameters', async () => {
      const { http } = await testApp({ publicUrl: 'http://api.test' });
      const editor = await createUser('editor');
      for (const name of ['Jazz', 'Blues']) expectStatus(await http().post(`${NS}/categories`).set('Authorization', editor.authorization).send({ name }), 201);
      const pretty = await http().get(`${NS}/categories?hide_empty=0&per_page=1&order=desc`);
      expectStatus(pretty, 200);
      for (const url of [
        '/?rest_route=/tribe/events/v1/categories&hide_empty=0&per_page=1&order=desc',
        '/?hide_empty=0&rest_route=/tribe/events/v1/categories/&per_page=1&order=desc',
        '/index.php?rest_route=%2Ftribe%2Fevents%2Fv1%2Fcategories&hide_empty=0&per_page=1&order=desc',
      ]) {
        const res = await http().get(url);
        expectStatus(res, 200);
        assert.deepEqual(res.body, pretty.body, url);
        assert.equal(res.headers['x-wp-total'], '2', url);
      }
    });

    it('reaches the REST index, the namespace index and /doc', async () => {
      const { http } = await testApp();
      assert.deepEqual(Object.keys((await http().get('/?rest_route=/')).body), INDEX_KEYS);
      assert.equal((await http().get('/?rest_route=/tribe/events/v1')).body.namespace, 'tribe/events/v1');
      assert.equal((await http().get('/?rest_route=/tribe/events/v1/doc')).body.openapi, '3.0.3');
    });

    it('serves writes with their credentials and body, and by-slug routes with encoded slugs', async () => {
      const { http } = await testApp();
      const editor = await createUser('editor');
      const created = await http().post('/?rest_route=/tribe/events/v1/categories').set('Authorization', editor.authorization).send({ name: 'Café' });
      expectStatus(created, 201);
      expectError(await http().post('/?rest_route=/tribe/events/v1/categories').send({ name: 'x' }), 401, 'rest_forbidden');
      const venue = await http().post('/?rest_route=/tribe/events/v1/venues').set('Authorization', editor.authorization).type('form').send({ venue: 'Salle Été' });
      expectStatus(venue, 201);
      const bySlug = await http().get(`/?rest_route=${encodeURIComponent(`/tribe/events/v1/venues/by-slug/${venue.body.slug}`)}`);
      expectStatus(bySlug, 200);
      assert.equal(bySlug.body.id, venue.body.id);
    });

    it('answers unknown routes and malformed rest_route values as any unknown URL', async () => {
      const { http } = await testApp();
      for (const url of [
        '/?rest_route=/tribe/events/v1/nothing',
        '/?rest_route=/wp/v2/posts',
        '/?rest_route=tribe/events/v1/events',
        '/?rest_route=',
        `/?rest_route=${encodeURIComponent('/tribe/events/v1/events?per_page=1')}`,
        `/?rest_route=${encodeURIComponent('/../healthz')}`,
        '/elsewhere?rest_route=/tribe/events/v1/events',
      ]) {
        expectError(await http().get(url), 404, 'rest_no_route');
      }
    });
  });
});
