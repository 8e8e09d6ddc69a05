import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { Role } from '../../../src/auth/capabilities.js';
import { inputShapesOf } from '../../../src/http/input.js';
import { listOperations, loadDocument } from '../../../src/openapi/document.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { call, createEvent, createOrganizer, createVenue, eventsApp, eventsPath, type Http, type Rec } from '../../helpers/events.js';

/**
 * Lists and booleans in every form the plugin's clients send (docs/contract.md §2): lists split as
 * WordPress's `wp_parse_list` splits them, booleans as the plugin reads them, `order` in any case.
 * The operations and parameters are read from the document, so a new list or boolean parameter
 * fails here until it has values to test with.
 */

const operations = listOperations(loadDocument());
const shapes = inputShapesOf(operations, NS);

/** The forms of a two-item list `a`,`b` as raw query-string fragments, and what each one stands for. */
function listForms(name: string, a: string, b: string): Array<[string, string]> {
  const e = encodeURIComponent;
  return [
    ['a,b', `${name}=${e(a)},${e(b)}`],
    ['a, b (%20)', `${name}=${e(a)},%20${e(b)}`],
    ['a, b (+)', `${name}=${e(a)},+${e(b)}`],
    ['a ,b', `${name}=${e(a)}%20,${e(b)}`],
    ['a b (%20)', `${name}=${e(a)}%20${e(b)}`],
    ['a b (+)', `${name}=${e(a)}+${e(b)}`],
    ['a,,b', `${name}=${e(a)},,${e(b)}`],
    ['a%2C%20b', `${name}=${e(`${a}, ${b}`)}`],
    ['a&a=b', `${name}=${e(a)}&${name}=${e(b)}`],
  ];
}

describe('wire inputs: lists and booleans in every form', () => {
  let http: Http;
  let users: Record<Role, TestUser>;
  let world: {
    categories: Rec[];
    tags: Rec[];
    venues: Rec[];
    organizers: Rec[];
    events: Rec[];
  };

  /** A GET as the administrator (every status readable), or as `as`; `null` for the anonymous visitor. */
  const get = (path: string, as: TestUser | null = users.administrator) => call(http, 'get', path, as ?? undefined) as unknown as Promise<Response>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
    const admin = users.administrator;
    const venues = [await createVenue(http, admin, { venue: 'Hall' }), await createVenue(http, admin, { venue: 'Club', status: 'draft' })];
    const organizers = [await createOrganizer(http, admin, { organizer: 'Ann' }), await createOrganizer(http, admin, { organizer: 'Bob', status: 'draft' })];
    const first = await createEvent(http, admin, {
      title: 'First',
      start_date: '2027-03-01 10:00:00',
      end_date: '2027-03-01 11:00:00',
      status: 'publish',
      categories: ['Music'],
      tags: ['Loud'],
      venue: venues[0].id,
      organizer: [organizers[0].id],
    });
    const second = await createEvent(http, admin, {
      title: 'Second',
      start_date: '2027-03-02 10:00:00',
      end_date: '2027-03-02 11:00:00',
      status: 'draft',
      categories: ['Theatre'],
      tags: ['Quiet'],
      venue: venues[1].id,
      organizer: [organizers[1].id],
    });
    const third = await createEvent(http, admin, { title: 'Third', start_date: '2027-03-03 10:00:00', end_date: '2027-03-03 11:00:00', status: 'publish' });
    world = {
      categories: [first.categories[0], second.categories[0]],
      tags: [first.tags[0], second.tags[0]],
      venues,
      organizers,
      events: [first, second, third],
    };
  });

  /** What an answer says: its JSON, or the text of an iCalendar feed. */
  const answerOf = (res: Response): unknown => (String(res.headers['content-type']).startsWith('text/calendar') ? res.text : res.body);

  /** Two values of a list parameter of an operation, that select something different from no filter. */
  function valuesFor(operationId: string, name: string): [string, string] {
    const pair = (records: Rec[], key = 'id'): [string, string] => [String(records[0][key]), String(records[1][key])];
    const terms = operationId === 'listCategories' ? world.categories : operationId === 'listTags' ? world.tags : undefined;
    if (name === 'status') return ['publish', 'draft'];
    if (terms && (name === 'include' || name === 'exclude')) return pair(terms);
    // The feeds take the list's parameters (docs/contract.md §11, §12).
    if (operationId === 'listEvents' || operationId === 'listEventsIcs' || operationId === 'listEventsJsonLd') {
      if (name === 'include') return pair(world.events);
      if (name === 'categories') return pair(world.categories, 'slug');
      if (name === 'tags') return pair(world.tags, 'slug');
      if (name === 'venue') return pair(world.venues);
      if (name === 'organizer') return pair(world.organizers);
    }
    if (operationId === 'listChanges' && name === 'types') return ['event', 'venue'];
    throw new Error(`no test values for the list parameter ${name} of ${operationId}: add them here`);
  }

  it('reads every list query parameter of every operation in every form as a list of two', async () => {
    let checked = 0;
    for (const op of operations) {
      // `_fields` (every GET) selects keys rather than records; its list forms are tested in test/api/wire/fields.test.ts.
      const lists = op.parameters.filter((p) => p.in === 'query' && shapes.queryLists.has(p.name) && p.name !== '_fields');
      if (!lists.length) continue;
      assert.equal(op.method, 'GET', `${op.operationId}: list parameters are only tested on GET`);
      const path = `${NS}${op.path === '/' ? '/' : op.path}`;
      // Term lists hide terms no published event uses unless told otherwise.
      const base = op.operationId === 'listCategories' || op.operationId === 'listTags' ? 'hide_empty=0&' : '';
      for (const p of lists) {
        const [a, b] = valuesFor(op.operationId, p.name);
        const canonical = await get(`${path}?${base}${p.name}[]=${encodeURIComponent(a)}&${p.name}[]=${encodeURIComponent(b)}`);
        expectStatus(canonical, 200);
        const single = await get(`${path}?${base}${p.name}=${encodeURIComponent(a)}`);
        expectStatus(single, 200);
        assert.notDeepEqual(answerOf(canonical), answerOf(single), `${op.operationId} ${p.name}: the second item must change the answer`);
        for (const [form, query] of listForms(p.name, a, b)) {
          const res = await get(`${path}?${base}${query}`);
          assert.equal(res.status, 200, `${op.operationId} ${p.name} ${form}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.deepEqual(answerOf(res), answerOf(canonical), `${op.operationId} ${p.name} ${form}`);
          checked++;
        }
      }
    }
    assert.ok(checked >= 9 * 12, `only ${checked} forms checked`);
  });

  it('refuses a list parameter given as nothing but separators, as an empty one', async () => {
    for (const query of ['include=', 'include=,', 'include=%20,%20']) {
      const res = await get(`${eventsPath}?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), ['include']);
    }
  });

  it('has tests below for every list field of every body', () => {
    const bodyLists = new Set(shapes.bodies.flatMap((body) => [...body.lists, ...body.nameLists]));
    assert.deepEqual([...bodyLists].sort(), ['categories', 'tags', 'types'], 'a new body list field needs its tests here');
  });

  describe('event bodies', () => {
    /** Creates an event with extra fields sent as JSON or as a form, and returns the record. */
    const create = async (kind: 'json' | 'form', extra: Record<string, unknown>): Promise<Rec> => {
      const body = { title: 'Lists', start_date: '2027-04-01 10:00:00', end_date: '2027-04-01 11:00:00', ...extra };
      let req = http().post(eventsPath).set('Authorization', users.administrator.authorization);
      if (kind === 'form') req = req.type('form');
      const res = await req.send(body);
      expectStatus(res, 201);
      return res.body as Rec;
    };
    const ids = (records: Rec | Rec[]) => (Array.isArray(records) ? records : [records]).map((r) => r.id).sort((x, y) => x - y);

    it('reads venue and organizer ID strings in every list form, in JSON and form bodies', async () => {
      const [v1, v2] = world.venues.map((v) => v.id);
      const [o1, o2] = world.organizers.map((o) => o.id);
      for (const kind of ['json', 'form'] as const) {
        for (const separator of [',', ', ', ' ,', ' ', ',,', ' \t ']) {
          const event = await create(kind, { venue: `${v1}${separator}${v2}`, organizer: `${o2}${separator}${o1}` });
          assert.deepEqual(ids(event.venue), [v1, v2], `${kind} venue "${separator}"`);
          assert.deepEqual(
            event.organizer.map((o: Rec) => o.id),
            [o2, o1],
            `${kind} organizer "${separator}", order kept`,
          );
        }
      }
    });

    it('reads category and tag lists by slug and ID in every list form, in JSON and form bodies', async () => {
      const [c1, c2] = world.categories;
      const [t1, t2] = world.tags;
      for (const kind of ['json', 'form'] as const) {
        for (const separator of [',', ', ', ' ,', ',,']) {
          const event = await create(kind, { categories: `${c1.slug}${separator}${c2.slug}`, tags: `${t1.id}${separator}${t2.id}` });
          assert.deepEqual(ids(event.categories), ids([c1, c2]), `${kind} categories "${separator}"`);
          assert.deepEqual(ids(event.tags), ids([t1, t2]), `${kind} tags "${separator}"`);
        }
        const spaced = await create(kind, { categories: `${c1.id} ${c2.id}`, tags: `${t1.id}  ${t2.id}` });
        assert.deepEqual(ids(spaced.categories), ids([c1, c2]), `${kind}: IDs separated by spaces`);
        assert.deepEqual(ids(spaced.tags), ids([t1, t2]), `${kind}: IDs separated by spaces`);
      }
    });

    it('keeps the spaces of category and tag names, as the plugin does', async () => {
      const json = await create('json', { categories: 'Live Music, Open Air', tags: 'Late Night ,, Free Entry' });
      assert.deepEqual(json.categories.map((c: Rec) => c.name).sort(), ['Live Music', 'Open Air']);
      assert.deepEqual(json.tags.map((t: Rec) => t.name).sort(), ['Free Entry', 'Late Night']);
      const form = await create('form', { categories: 'Live Music,Jazz Club' });
      assert.deepEqual(form.categories.map((c: Rec) => c.name).sort(), ['Jazz Club', 'Live Music']);
      const array = await create('json', { categories: ['Live Music', 'Big Band'] });
      assert.deepEqual(array.categories.map((c: Rec) => c.name).sort(), ['Big Band', 'Live Music']);
    });
  });

  describe('webhook bodies', () => {
    it('reads the types of a webhook in every list form, in JSON bodies (docs/webhooks.md)', async () => {
      for (const separator of [',', ', ', ' ,', ' ', ',,']) {
        const res = await http()
          .post(`${NS}/webhooks`)
          .set('Authorization', users.administrator.authorization)
          .send({ url: 'https://93.184.216.34/lists', types: `venue${separator}event` });
        expectStatus(res, 201);
        assert.deepEqual(res.body.types, ['event', 'venue'], `"${separator}"`);
      }
    });
  });

  describe('booleans', () => {
    it('reads yes/no/on/off in any case like true/false in every boolean query parameter of every GET', async () => {
      let checked = 0;
      for (const op of operations.filter((o) => o.method === 'GET')) {
        const booleans = op.parameters.filter((p) => p.in === 'query' && shapes.queryBooleans.has(p.name));
        const path = `${NS}${op.path}`.replace('{id}', String(world.events[0].id)).replace('{slug}', String(world.events[0].slug));
        for (const p of booleans) {
          for (const [spelling, meaning] of [
            ['yes', 'true'],
            ['YES', 'true'],
            ['On', 'true'],
            ['no', 'false'],
            ['OFF', 'false'],
            ['No', 'false'],
          ]) {
            const expected = await get(`${path}?${p.name}=${meaning}`);
            const res = await get(`${path}?${p.name}=${spelling}`);
            assert.equal(res.status, expected.status, `${op.operationId} ${p.name}=${spelling}: ${JSON.stringify(res.body)}`);
            assert.deepEqual(res.body, expected.body, `${op.operationId} ${p.name}=${spelling}`);
            checked++;
          }
          const bad = await get(`${path}?${p.name}=maybe`);
          assert.equal(bad.status, 400, `${op.operationId} ${p.name}=maybe`);
        }
      }
      assert.ok(checked >= 6 * 8, `only ${checked} spellings checked`);
    });

    it('lets a yes/no query boolean change the answer (hide_empty, featured)', async () => {
      const shown = await get(`${NS}/categories?hide_empty=no`);
      const hidden = await get(`${NS}/categories?hide_empty=YES`);
      assert.ok(shown.body.total > hidden.body.total, 'hide_empty=no shows unused categories');
      await call(http, 'post', `${NS}/events/${world.events[2].id}`, users.administrator, { featured: 'on' });
      const featured = await get(`${eventsPath}?featured=On`, null);
      assert.deepEqual(
        featured.body.events.map((e: Rec) => e.title),
        ['Third'],
      );
      const notFeatured = await get(`${eventsPath}?featured=off`, null);
      assert.deepEqual(
        notFeatured.body.events.map((e: Rec) => e.title),
        ['First'],
      );
    });

    it('deletes permanently with force=yes', async () => {
      const res = await call(http, 'delete', `${NS}/events/${world.events[2].id}?force=Yes`, users.administrator);
      expectStatus(res, 200);
      const gone = await get(`${NS}/events/${world.events[2].id}`);
      assert.equal(gone.status, 404, 'force=Yes deleted the event instead of trashing it');
    });

    it('reads yes/no/on/off in any case in JSON and form bodies', async () => {
      for (const kind of ['json', 'form'] as const) {
        let req = http().post(eventsPath).set('Authorization', users.administrator.authorization);
        if (kind === 'form') req = req.type('form');
        const res = await req.send({
          title: 'Flags',
          start_date: '2027-05-01 10:00:00',
          end_date: '2027-05-01 11:00:00',
          featured: 'YES',
          sticky: 'on',
          hide_from_listings: 'No',
          show_map: 'OFF',
          show_map_link: 'off',
          all_day: 'Yes',
        });
        expectStatus(res, 201);
        const event = res.body as Rec;
        assert.deepEqual(
          [event.featured, event.sticky, event.hide_from_listings, event.show_map, event.show_map_link, event.all_day],
          [true, true, false, false, false, true],
          kind,
        );
        const bad = await call(http, 'post', `${NS}/events/${event.id}`, users.administrator, { featured: 'maybe' });
        assert.equal(bad.status, 400, `${kind}: featured=maybe`);
        const venue = await call(http, 'post', `${NS}/venues`, users.administrator, { venue: `Flags ${kind}`, show_map: 'No', show_map_link: 'ON' });
        expectStatus(venue, 201);
        assert.deepEqual([venue.body.show_map, venue.body.show_map_link], [false, true]);
      }
    });
  });

  describe('numbers', () => {
    it('refuses a JSON boolean where a number is expected instead of reading it as 1', async () => {
      for (const [path, body] of [
        [`${NS}/categories`, { name: 'Child', parent: true }],
        [`${NS}/categories/${world.categories[1].id}`, { parent: true }],
        [`${NS}/events/${world.events[0].id}`, { author: true }],
        [`${NS}/events/${world.events[0].id}`, { author: false }],
      ] as Array<[string, Record<string, unknown>]>) {
        const res = await call(http, 'post', path, users.administrator, body);
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
        assert.deepEqual(
          Object.keys(res.body.data.params),
          Object.keys(body).filter((k) => k !== 'name'),
        );
      }
      const category = await get(`${NS}/categories/${world.categories[1].id}`);
      assert.equal(category.body.parent, 0, 'the refused update changed nothing');
    });
  });

  describe('term list order', () => {
    it('accepts order in any case', async () => {
      const names = async (query: string) => {
        const res = await get(`${NS}/categories?hide_empty=0&${query}`);
        expectStatus(res, 200);
        return res.body.categories.map((c: Rec) => c.name);
      };
      const ascending = await names('order=asc');
      assert.deepEqual(ascending, ['Music', 'Theatre']);
      for (const order of ['desc', 'DESC', 'Desc']) assert.deepEqual(await names(`order=${order}`), ['Theatre', 'Music'], order);
      assert.deepEqual(await names('order=ASC'), ascending);
      const bad = await get(`${NS}/categories?order=sideways`);
      assert.equal(bad.status, 400);
    });
  });
});
