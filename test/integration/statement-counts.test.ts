import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Role } from '../../src/auth/capabilities.js';
import { NS, createUser, createUsers, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase, statementsDuring } from '../helpers/database.js';
import {
  PUBLIC_URL,
  call,
  createEvent,
  createOrganizer,
  createVenue,
  eventPath,
  eventSlugPath,
  eventsApp,
  listEvents,
  type Body,
  type Http,
  type Rec as EventRec,
} from '../helpers/events.js';

/*
 * Every test that counts the SQL statements an operation sends is in this file (issue 49), each
 * counting with the one helper `statementsDuring` (test/helpers/database.ts). The describe titles
 * are those of the feature files the tests came from, so a test keeps its full title.
 */

/**
 * How many SQL statements each common operation sends, on the engine the tests run on (issue 31:
 * "statement counts per operation in a test"). Each round trip costs a write its turn behind the
 * reads in flight on MySQL (docs/performance.md "What limits it"), so a change that adds a statement
 * to one of these fails here; one that removes statements lowers the number below.
 *
 * The numbers are upper bounds, per engine (MySQL sends a few statements SQLite does not, e.g. the
 * search index's grams and the change feed's lock), counting BEGIN and COMMIT. A write before issue 31
 * was: create 20 / 22, PATCH 13 / 16, DELETE 14 / 15 (SQLite / MySQL), with a second commit for the
 * data version, and a single event read 2 (the row, then its links). `STATEMENTS_PRINT=1` prints each operation's statements.
 */
const AT_MOST: Record<string, { sqlite: number; mysql: number }> = {
  // Rendered texts (src/db/rendered-texts.ts, docs/architecture.md "Rendered texts"): a record built
  // with texts loads their stored forms in one statement (a page of records: one for all, a series'
  // shared text once), so every read and every write's reply below sends one more; a write of a text
  // holds its row (one share-locked read when it is stored already, as the warm-up's description here;
  // a new text adds its insert, and on MySQL a second locked read). In exchange no read cleans HTML.
  // MySQL: the search index's shared texts (db/search-index.ts) cost a create 5 statements, whatever
  // the number of its texts (insert them; when some were there, hold them all in one statement and
  // find in one which lack trigrams; write the trigrams; point the event at them), and a text change 7
  // (the same for the new text; let go of the old one).
  'POST /events (venue, organizer, 2 terms)': { sqlite: 19, mysql: 25 },
  // One more than before issue 48: an update that leaves an event published looks for draft venues and
  // organizers it links, to publish them as the plugin does (domain/events/writes.ts publishLinkedDrafts).
  'PATCH /events/{id} (title, cost)': { sqlite: 11, mysql: 21 },
  // MySQL: two more since the terms are locked before the event's links (a plain read of the links,
  // then the terms' locks: repositories/events.ts countedTerms), which closed a deadlock.
  'DELETE /events/{id}': { sqlite: 15, mysql: 18 },
  // With the reply cache (REPLY_CACHE=on, set below): a read first reads the data version; a repeated
  // read reads nothing else. The rows the record embeds come from the related-row cache.
  'GET /events/{id}, first': { sqlite: 3, mysql: 3 },
  'GET /events/{id}, repeated': { sqlite: 1, mysql: 1 },
  'GET /events/by-slug/{slug}': { sqlite: 3, mysql: 3 },
  'GET /events': { sqlite: 8, mysql: 10 },
  'GET /venues/{id}': { sqlite: 2, mysql: 2 },
};

type Rec = Record<string, unknown> & { id: number; slug: string };

describe('statement counts per operation (issue 31)', () => {
  let http: TestApp['http'];
  let db: Knex;
  let engine: 'sqlite' | 'mysql';
  let editor: TestUser;
  let venue: Rec;
  let organizer: Rec;
  let terms: number[];
  const counted: Record<string, number> = {};

  /** The statements the app's database handle sends while `run` runs. */
  async function count(name: string, run: () => Promise<unknown>): Promise<number> {
    const seen = await statementsDuring(db, run);
    counted[name] = seen.length;
    if (process.env.STATEMENTS_PRINT) console.log(`${name}: ${seen.length}\n  ${seen.join('\n  ')}`);
    return seen.length;
  }

  function expectAtMost(name: string, n: number) {
    const bound = AT_MOST[name][engine];
    assert.ok(n <= bound, `${name}: ${n} statements, at most ${bound} expected`);
  }

  const send = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object, as?: TestUser) => {
    const req = http()[method](`${NS}${path}`);
    if (as) req.set('Authorization', as.authorization);
    return body ? req.send(body) : req;
  };

  const eventBody = (title: string) => ({
    title,
    description: 'A concert.',
    status: 'publish',
    start_date: '2027-03-01 19:00:00',
    end_date: '2027-03-01 22:00:00',
    cost: '$15',
    venue: venue.id,
    organizer: organizer.id,
    categories: [terms[0]],
    tags: [terms[1]],
  });

  // The root hooks empty the database before every test (test/hooks.ts): each starts from these.
  beforeEach(async () => {
    ({ db } = await openTestDatabase());
    ({ engine } = (await openTestDatabase()).target);
    ({ http } = await testApp({ publicUrl: PUBLIC_URL, replyCache: true }));
    editor = await createUser('editor', 'counts-editor');
    venue = (await createVenue(http, editor, { venue: 'Main Hall', city: 'Springfield' })) as Rec;
    organizer = (await createOrganizer(http, editor, { organizer: 'The Org' })) as Rec;
    const category = await send('post', '/categories', { name: 'Music' }, editor).expect(201);
    const tag = await send('post', '/tags', { name: 'Jazz' }, editor).expect(201);
    terms = [category.body.id, tag.body.id];
    // One write first: the caller's first request and the app's first write warm what a process
    // keeps (credentials, prepared statements); the counts are of a process that is running.
    await send('post', '/events', eventBody('Warm-up'), editor).expect(201);
  });

  after(() => {
    if (process.env.STATEMENTS_PRINT) console.log(JSON.stringify(counted, null, 2));
  });

  it('creates an event with a venue, an organizer and two terms', async () => {
    const name = 'POST /events (venue, organizer, 2 terms)';
    expectAtMost(name, await count(name, () => send('post', '/events', eventBody('Counted concert'), editor).expect(201)));
  });

  it('patches an event’s title and cost', async () => {
    const created = await send('post', '/events', eventBody('To patch'), editor).expect(201);
    const name = 'PATCH /events/{id} (title, cost)';
    expectAtMost(name, await count(name, () => send('patch', `/events/${created.body.id}`, { title: 'Patched', cost: '$20' }, editor).expect(200)));
  });

  it('deletes an event', async () => {
    const created = await send('post', '/events', eventBody('To delete'), editor).expect(201);
    const name = 'DELETE /events/{id}';
    expectAtMost(name, await count(name, () => send('delete', `/events/${created.body.id}`, undefined, editor).expect(200)));
  });

  it('reads an event, first and again, and by slug', async () => {
    const created = await send('post', '/events', eventBody('To read'), editor).expect(201);
    const first = 'GET /events/{id}, first';
    expectAtMost(first, await count(first, () => send('get', `/events/${created.body.id}`).expect(200)));
    const repeated = 'GET /events/{id}, repeated';
    expectAtMost(repeated, await count(repeated, () => send('get', `/events/${created.body.id}`).expect(200)));
    const bySlug = 'GET /events/by-slug/{slug}';
    expectAtMost(bySlug, await count(bySlug, () => send('get', `/events/by-slug/${created.body.slug}`).expect(200)));
  });

  it('lists events', async () => {
    const name = 'GET /events';
    expectAtMost(name, await count(name, () => send('get', '/events?start_date=2027-01-01').expect(200)));
  });

  it('reads a venue', async () => {
    const name = 'GET /venues/{id}';
    expectAtMost(name, await count(name, () => send('get', `/venues/${venue.id}`).expect(200)));
  });
});

/**
 * A single read of an event costs one statement when its reply is cached: the data version
 * (docs/contract.md §16). The read after a write of the event, of a venue it embeds, or of another
 * event that moves its term's count shows that write.
 */
describe('single event reads: one statement, always exact', () => {
  const anonymousRead = async (http: Http, path: string): Promise<EventRec> => {
    const res = await call(http, 'get', path);
    assert.equal(res.status, 200, res.text);
    return res.body as EventRec;
  };

  it('answers a cached reply to an anonymous caller with one statement, by id and by slug', async () => {
    const { http } = await eventsApp({ replyCache: true });
    const { editor } = await createUsers();
    const category = (await call(http, 'post', `${NS}/categories`, editor, { name: 'Counted' })).body as EventRec;
    const venue = (await call(http, 'post', `${NS}/venues`, editor, { venue: 'One look hall' })).body as EventRec;
    const event = await createEvent(http, editor, { title: 'One look', slug: 'one-look', venue: venue.id, categories: [category.id] });
    for (const path of [eventPath(event.id as number), eventSlugPath('one-look')]) {
      const first = await anonymousRead(http, path);
      let again: EventRec = {};
      const statements = await statementsDuring((await openTestDatabase()).db, async () => (again = await anonymousRead(http, path)));
      assert.deepEqual(again, first);
      assert.equal(statements.length, 1, statements.join('\n'));
    }
  });

  it('shows an edit of the event, of its venue and a change of its term count on the next read', async () => {
    const { http } = await eventsApp();
    const { editor } = await createUsers();
    const category = (await call(http, 'post', `${NS}/categories`, editor, { name: 'Moving count' })).body as EventRec;
    const venue = (await call(http, 'post', `${NS}/venues`, editor, { venue: 'Before', city: 'Springfield' })).body as EventRec;
    const event = await createEvent(http, editor, { title: 'Watched', venue: venue.id, categories: [category.id] });
    const path = eventPath(event.id as number);
    const read = async () => {
      await anonymousRead(http, path);
      return anonymousRead(http, path);
    };
    const before = await read();
    assert.equal(before.venue.city, 'Springfield');
    assert.equal(before.categories[0].count, 1);

    assert.equal((await call(http, 'post', `${NS}/venues/${venue.id}`, editor, { city: 'Shelbyville' })).status, 200);
    assert.equal((await read()).venue.city, 'Shelbyville');

    await createEvent(http, editor, { title: 'Neighbour', categories: [category.id] });
    assert.equal((await read()).categories[0].count, 2);

    assert.equal((await call(http, 'patch', path, editor, { title: 'Watched, renamed' })).status, 200);
    const after = await read();
    assert.equal(after.title, 'Watched, renamed');
    assert.equal(after.venue.city, 'Shelbyville');
    assert.equal(after.categories[0].count, 2);
  });
});

/** The reply cache's read of the data version (from test/api/caching/reply-cache.test.ts). */
describe('the reply cache follows every write', function () {
  // As in the reply cache's own file: on MariaDB on a busy machine the requests take longer than the default.
  this.timeout(90_000);
  it('answers a repeated read with one statement, the data version, and REPLY_CACHE=off reads the rows every time', async () => {
    const { db } = await openTestDatabase();
    const { editor } = await createUsers();
    const on = await testApp({ publicUrl: 'http://api.test', replyCache: true });
    const off = await testApp({ publicUrl: 'http://api.test', replyCache: false });
    const created = await on
      .http()
      .post(`${NS}/events`)
      .set('Authorization', editor.authorization)
      .send({ title: 'Counted', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
    const path = `${NS}/events/${created.body.id}`;
    for (const { http } of [on, off]) expectStatus(await http().get(path), 200);
    const cached = await statementsDuring(db, async () => expectStatus(await on.http().get(path), 200));
    assert.equal(cached.length, 1, cached.join('\n'));
    assert.match(cached[0], /data_version/);
    const uncached = await statementsDuring(db, async () => expectStatus(await off.http().get(path), 200));
    assert.ok(uncached.some((sql) => /from [`"]posts[`"]/.test(sql)) && !uncached.some((sql) => /data_version/.test(sql)), uncached.join('\n'));
  });
});

/** A page of events loads its related rows per page, not per event (from test/api/lists/events-list.test.ts). */
describe('events: GET /events', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  /** Creates an event (as an editor by default) starting and ending at the given site-local times. */
  const add = (title: string, start: string, end: string, extra: Body = {}, as: TestUser = users.editor) =>
    createEvent(http, as, { title, start_date: start, end_date: end, ...extra });
  const YEAR_2030 = 'start_date=2030-01-01&end_date=2030-12-31';

  describe('envelope, paging and headers', () => {
    it('loads a page in the same number of queries whatever its size (no query per event)', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Hall', image: 'https://cdn.example.test/hall.png' });
      const organizers = [(await createOrganizer(http, users.editor, { organizer: 'One' })).id, (await createOrganizer(http, users.editor, { organizer: 'Two' })).id];
      const related = { venue: venue.id, organizer: organizers, categories: ['Cat A', 'Cat B'], tags: ['Tag A'], image: 'https://cdn.example.test/e.png' };
      for (let day = 1; day <= 12; day++)
        await add(`Related ${day}`, `2030-05-${String(day).padStart(2, '0')} 10:00:00`, `2030-05-${String(day).padStart(2, '0')} 11:00:00`, related);
      const { db } = await openTestDatabase();
      const queriesFor = async (query: string) => {
        const seen = await statementsDuring(db, async () => expectStatus(await listEvents(http, query), 200));
        // The total is counted once per filter and data version (db/versioned-cache.ts): not per page.
        return seen.filter((sql) => !/count\(\*\)/i.test(sql)).length;
      };
      // The first list after the writes also reads the change feed's position, which later lists reuse
      // while the data version holds (repositories/changes.ts): not per page either.
      await queriesFor(`${YEAR_2030}&per_page=3`);
      const small = await queriesFor(`${YEAR_2030}&per_page=2`);
      const large = await queriesFor(`${YEAR_2030}&per_page=12`);
      assert.equal(large, small, `${small} queries for 2 events, ${large} for 12`);
      assert.ok(small <= 15, `${small} queries for one page`);
    });
  });
});
