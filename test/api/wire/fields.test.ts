import assert from 'node:assert/strict';
import { createUser, NS, testApp, type TestUser } from '../../helpers/app.js';

/**
 * `_fields` on every GET, through HTTP: records, lists (each record; the envelope stays), the index
 * and /doc, nested names, the list forms, errors left whole, and the production path (response
 * validation off, remembered replies).
 */

type Http = Awaited<ReturnType<typeof testApp>>['http'];

async function seed(http: Http, admin: TestUser) {
  const post = (path: string, body: Record<string, unknown>) => http().post(`${NS}${path}`).set('Authorization', admin.authorization).send(body);
  const venue = (await post('/venues', { venue: 'Town Hall', city: 'Springfield', status: 'publish' })).body;
  const organizer = (await post('/organizers', { organizer: 'Music Society', email: 'info@example.org', status: 'publish' })).body;
  const event = await post('/events', {
    title: 'Spring Concert',
    start_date: 'tomorrow 7pm',
    end_date: 'tomorrow 9pm',
    status: 'publish',
    venue: venue.id,
    organizer: [organizer.id],
    image: 'https://images.example.org/concert.jpg',
    categories: ['Concerts'],
  });
  assert.equal(event.status, 201, JSON.stringify(event.body));
  return { event: event.body, venue, organizer };
}

for (const validateResponses of [true, false]) {
  describe(`_fields (response validation ${validateResponses ? 'on' : 'off, as in production'})`, () => {
    let http: Http;
    let admin: TestUser;

    beforeEach(async () => {
      ({ http } = await testApp({ publicUrl: 'http://api.test', validateResponses }));
      admin = await createUser('administrator');
    });

    it("keeps only the named keys of a record, in the record's order, by id and by slug", async () => {
      const { event } = await seed(http, admin);
      const byId = await http().get(`${NS}/events/${event.id}?_fields=title,id,slug`);
      assert.equal(byId.status, 200, JSON.stringify(byId.body));
      assert.deepEqual(Object.keys(byId.body), ['id', 'title', 'slug']);
      assert.deepEqual(byId.body, { id: event.id, title: 'Spring Concert', slug: event.slug });
      const bySlug = await http().get(`${NS}/events/by-slug/${event.slug}`).query({ _fields: 'id' });
      assert.deepEqual(bySlug.body, { id: event.id });
    });

    it('reads nested names with dots: event.venue.venue, event.image.url, each organizer of the list', async () => {
      const { event } = await seed(http, admin);
      const res = await http().get(`${NS}/events/${event.id}`).query({ _fields: 'venue.venue,image.url,organizer.organizer,venue.city' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {
        image: { url: 'https://images.example.org/concert.jpg' },
        venue: { venue: 'Town Hall', city: 'Springfield' },
        organizer: [{ organizer: 'Music Society' }],
      });
      const whole = await http().get(`${NS}/events/${event.id}?_fields=venue.venue,venue`);
      assert.equal(whole.body.venue.id, event.venue.id, 'naming the object keeps it whole');
      assert.ok(Object.keys(whole.body.venue).length > 2);
    });

    it('accepts the list forms: spaces, repeated keys, brackets', async () => {
      const { event } = await seed(http, admin);
      for (const query of ['_fields=id,%20title', '_fields=id%20title', '_fields=id&_fields=title', '_fields[]=id&_fields[]=title', '_fields=id,,title,']) {
        const res = await http().get(`${NS}/events/${event.id}?${query}`);
        assert.deepEqual(res.body, { id: event.id, title: 'Spring Concert' }, query);
      }
    });

    it('leaves out names that match nothing, and filters nothing when the list is empty', async () => {
      const { event } = await seed(http, admin);
      assert.deepEqual((await http().get(`${NS}/events/${event.id}?_fields=nothing`)).body, {});
      assert.deepEqual((await http().get(`${NS}/events/${event.id}?_fields=title,nothing.at.all`)).body, { title: 'Spring Concert' });
      const unfiltered = await http().get(`${NS}/events/${event.id}?_fields=`);
      assert.equal(unfiltered.status, 200);
      assert.equal(unfiltered.body.id, event.id);
      assert.ok('json_ld' in unfiltered.body);
    });

    it('applies to each record of a list and keeps the envelope and the paging headers', async () => {
      await seed(http, admin);
      const res = await http().get(`${NS}/events?_fields=id,title&per_page=1`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body), ['events', 'rest_url', 'total', 'total_pages']);
      assert.deepEqual(Object.keys(res.body.events[0]), ['id', 'title']);
      assert.equal(res.headers['x-wp-total'], '1');
      for (const [path, key] of [
        ['/venues', 'venues'],
        ['/organizers', 'organizers'],
        ['/categories', 'categories'],
        ['/tags?hide_empty=0', 'tags'],
      ]) {
        const list = await http().get(`${NS}${path}`).query({ _fields: 'id' });
        assert.equal(list.status, 200, `${path}: ${JSON.stringify(list.body)}`);
        assert.ok(Array.isArray(list.body[key]), path);
        for (const record of list.body[key]) assert.deepEqual(Object.keys(record), ['id'], path);
        assert.ok('rest_url' in list.body && 'total' in list.body, path);
      }
    });

    it('applies to the namespace index and /doc, and is no route argument of the index (a global parameter, as in WordPress)', async () => {
      assert.deepEqual((await http().get(`${NS}/?_fields=namespace`)).body, { namespace: 'tribe/events/v1' });
      const index = (await http().get(`${NS}/`)).body;
      const list = index.routes['/tribe/events/v1/events'].endpoints.find((e: { methods: string[] }) => e.methods.includes('GET'));
      assert.ok('per_page' in list.args);
      assert.ok(!('_fields' in list.args));
      const doc = await http().get(`${NS}/doc?_fields=openapi,info.title`);
      assert.deepEqual(doc.body, { openapi: '3.0.3', info: { title: 'The Events Calendar REST API' } });
    });

    it('never filters errors, and is ignored by writes', async () => {
      const missing = await http().get(`${NS}/events/987654?_fields=code`);
      assert.equal(missing.status, 404);
      assert.deepEqual(Object.keys(missing.body), ['code', 'message', 'data']);
      const created = await http().post(`${NS}/categories?_fields=id`).set('Authorization', admin.authorization).send({ name: 'Jazz' });
      assert.equal(created.status, 201);
      assert.equal(created.body.name, 'Jazz');
    });

    it('gives the filtered answer its own ETag, answered with 304 while unchanged', async () => {
      const { event } = await seed(http, admin);
      const full = await http().get(`${NS}/events/${event.id}`);
      const filtered = await http().get(`${NS}/events/${event.id}?_fields=id`);
      assert.notEqual(filtered.headers.etag, full.headers.etag);
      const again = await http().get(`${NS}/events/${event.id}?_fields=id`).set('If-None-Match', filtered.headers.etag);
      assert.equal(again.status, 304);
      const head = await http().head(`${NS}/events/${event.id}?_fields=id`);
      assert.equal(head.headers['content-length'], filtered.headers['content-length']);
    });

    it('does not leak into the remembered reply of the same read without _fields', async () => {
      const { event } = await seed(http, admin);
      for (let round = 0; round < 2; round++) {
        assert.deepEqual((await http().get(`${NS}/events/${event.id}?_fields=id`)).body, { id: event.id });
        assert.equal((await http().get(`${NS}/events/${event.id}`)).body.title, 'Spring Concert');
        assert.deepEqual((await http().get(`${NS}/categories?_fields=name`)).body.categories, [{ name: 'Concerts' }]);
        assert.equal((await http().get(`${NS}/categories`)).body.categories[0].slug, 'concerts');
      }
    });

    it('refuses more than 100 names', async () => {
      const res = await http().get(`${NS}/events?_fields=${Array.from({ length: 101 }, (_, i) => `f${i}`).join(',')}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.ok('_fields' in res.body.data.params, JSON.stringify(res.body));
    });
  });
}
