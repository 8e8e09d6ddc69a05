import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { NS, createUser, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { openTestDatabase, statementsDuring } from '../helpers/database.js';
import { PUBLIC_URL, createOrganizer, createVenue } from '../helpers/events.js';

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
  // MySQL: the search index's shared texts (db/search-index.ts) cost a create 6 statements and a text
  // change 7 (hold the text, write its trigrams when new, point the event at it; let go of the old one).
  'POST /events (venue, organizer, 2 terms)': { sqlite: 17, mysql: 25 },
  // One more than before issue 48: an update that leaves an event published looks for draft venues and
  // organizers it links, to publish them as the plugin does (domain/events/writes.ts publishLinkedDrafts).
  'PATCH /events/{id} (title, cost)': { sqlite: 10, mysql: 20 },
  // MySQL: two more since the terms are locked before the event's links (a plain read of the links,
  // then the terms' locks: repositories/events.ts countedTerms), which closed a deadlock.
  'DELETE /events/{id}': { sqlite: 14, mysql: 17 },
  // With the reply cache (REPLY_CACHE=on, set below): a read first reads the data version; a repeated
  // read reads nothing else. The rows the record embeds come from the related-row cache.
  'GET /events/{id}, first': { sqlite: 2, mysql: 2 },
  'GET /events/{id}, repeated': { sqlite: 1, mysql: 1 },
  'GET /events/by-slug/{slug}': { sqlite: 2, mysql: 2 },
  'GET /events': { sqlite: 7, mysql: 9 },
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
