import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Response } from 'supertest';
import { createUsers, NS, testApp, type TestUser } from '../../helpers/app.js';
import type { Role } from '../../../src/auth/capabilities.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase, statementsDuring } from '../../helpers/database.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { call, eventBody, eventsApp, NOW, type Http, type Rec } from '../../helpers/events.js';
import { encodeCursor } from '../../../src/records/change-feed.js';
import { noteChange } from '../../../src/db/change-log.js';
import { inTransaction } from '../../../src/db/transactions.js';
import { ChangeFeedCache, ChangeRepository } from '../../../src/repositories/changes.js';
import { insertEvent } from '../../helpers/event-rows.js';

/** `GET /changes`: the change feed (docs/contract.md §9). */

const changesPath = `${NS}/changes`;

async function feed(http: Http, query = '', as?: TestUser): Promise<Rec> {
  const res = await call(http, 'get', `${changesPath}${query ? `?${query}` : ''}`, as);
  expectStatus(res, 200);
  return res.body as Rec;
}

/** Follows the feed from `after` until nothing more follows; returns every change seen and the last cursor. */
async function follow(http: Http, after: string | undefined, as?: TestUser, extra = ''): Promise<{ changes: Rec[]; cursor: string }> {
  const changes: Rec[] = [];
  let cursor = after;
  for (;;) {
    const page = await feed(http, [cursor ? `after=${cursor}` : '', extra].filter(Boolean).join('&'), as);
    changes.push(...page.changes);
    cursor = page.next_cursor;
    if (!page.has_more) return { changes, cursor: cursor as string };
  }
}

const key = (change: Rec) => `${change.type}:${change.id}`;

/**
 * Counts the feed's queries on the test database while `counted` is on: reads of the committed
 * position (`max(seq)`) and reads of a page (`seq >`), so a test can tell when the wait polls.
 */
async function queryCounter(): Promise<{ position: number; page: number; stop: () => void }> {
  const { db } = await openTestDatabase();
  const counts = { position: 0, page: 0, stop: () => void db.off('query', listener) };
  function listener(query: { sql: string }) {
    if (/max\([`"]seq[`"]\)/.test(query.sql)) counts.position++;
    if (/from [`"]changes[`"] where [`"]seq[`"] >/.test(query.sql)) counts.page++;
  }
  db.on('query', listener);
  return counts;
}

describe('GET /changes: the change feed', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  const post = async (path: string, body: Rec, as = users.editor) => {
    const res = await call(http, 'post', `${NS}/${path}`, as, body);
    assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.status} ${res.text}`);
    return res.body as Rec;
  };
  const head = async () => (await call(http, 'get', `${NS}/events?per_page=1`, users.editor)).headers['x-tec-change-cursor'] as string;

  it('announces every kind of record, once per page at its latest change, as GET returns it to the caller', async () => {
    const start = await head();
    const venue = await post('venues', { venue: 'Hall' });
    const organizer = await post('organizers', { organizer: 'Org' });
    const category = await post('categories', { name: 'Music' });
    const tag = await post('tags', { name: 'Jazz' });
    const event = await post('events', eventBody({ title: 'Gig', venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id] }));
    await call(http, 'patch', `${NS}/events/${event.id}`, users.editor, { title: 'Gig, updated' });

    for (const as of [undefined, users.editor]) {
      const { changes } = await follow(http, start, as);
      assert.deepEqual(changes.map(key).sort(), [`category:${category.id}`, `event:${event.id}`, `organizer:${organizer.id}`, `tag:${tag.id}`, `venue:${venue.id}`].sort());
      for (const change of changes) {
        assert.equal(change.action, 'upsert');
        const collection = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'categories', tag: 'tags' }[change.type as string];
        assert.equal(change.rest_url, `http://api.test${NS}/${collection}/${change.id}`);
        const single = await call(http, 'get', `${NS}/${collection}/${change.id}`, as);
        assert.deepEqual(change.record, single.body, `${change.type} ${change.id} as GET returns it`);
        assert.match(change.modified_utc, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      }
      // The event comes last: its update is its latest change.
      assert.equal(changes[changes.length - 1].id, event.id);
      assert.equal(changes[changes.length - 1].record.title, 'Gig, updated');
    }
  });

  it('starts from the oldest change kept without a cursor, and an empty page keeps a cursor that follows on', async () => {
    const event = await post('events', eventBody({ title: 'First' }));
    const all = await follow(http, undefined, users.editor);
    assert.ok(all.changes.some((change) => change.id === event.id));
    const empty = await feed(http, `after=${all.cursor}`, users.editor);
    assert.deepEqual(empty.changes, []);
    assert.equal(empty.has_more, false);
    const second = await post('events', eventBody({ title: 'Second' }));
    const next = await feed(http, `after=${empty.next_cursor}`, users.editor);
    assert.deepEqual(next.changes.map(key), [`event:${second.id}`]);
  });

  it('reports deletes: trashed, force-deleted, unpublished and protected records, without content', async () => {
    const trashed = await post('events', eventBody({ title: 'Trashed' }));
    const deleted = await post('events', eventBody({ title: 'Deleted' }));
    const unpublished = await post('events', eventBody({ title: 'Unpublished' }));
    const locked = await post('venues', { venue: 'Locked' });
    const term = await post('tags', { name: 'Gone' });
    const start = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${trashed.id}`, users.editor), 200);
    expectStatus(await call(http, 'delete', `${NS}/events/${deleted.id}?force=true`, users.editor), 200);
    expectStatus(await call(http, 'patch', `${NS}/events/${unpublished.id}`, users.editor, { status: 'draft' }), 200);
    expectStatus(await call(http, 'patch', `${NS}/venues/${locked.id}`, users.editor, { password: 'secret' }), 200);
    expectStatus(await call(http, 'delete', `${NS}/tags/${term.id}`, users.editor), 200);

    const anonymous = await follow(http, start);
    const actions = Object.fromEntries(anonymous.changes.map((change) => [key(change), change.action]));
    assert.deepEqual(actions, {
      [`event:${trashed.id}`]: 'delete',
      [`event:${deleted.id}`]: 'delete',
      [`event:${unpublished.id}`]: 'delete',
      [`venue:${locked.id}`]: 'delete',
      [`tag:${term.id}`]: 'delete',
    });
    for (const change of anonymous.changes) assert.ok(!('record' in change) || change.record === null, `${key(change)} carries no record`);
    assert.ok(!JSON.stringify(anonymous.changes).includes('Unpublished'));
    // An editor reads the draft and the protected venue: upserts.
    const editor = Object.fromEntries((await follow(http, start, users.editor)).changes.map((change) => [key(change), change.action]));
    assert.equal(editor[`event:${unpublished.id}`], 'upsert');
    assert.equal(editor[`venue:${locked.id}`], 'upsert');
    assert.equal(editor[`event:${trashed.id}`], 'delete');
  });

  it('filters by types, in every list form, and announces terms whose count moved', async () => {
    const start = await head();
    const tag = await post('tags', { name: 'Counted' });
    const venue = await post('venues', { venue: 'Place' });
    const event = await post('events', eventBody({ tags: [tag.id] }));
    const types = async (query: string) => (await follow(http, start, undefined, query)).changes.map(key);
    assert.deepEqual(await types('types=event'), [`event:${event.id}`]);
    for (const query of ['types=venue,tag', 'types=venue%20tag', 'types=venue&types=tag', 'types[]=venue&types[]=tag']) {
      assert.deepEqual(await types(query), [`venue:${venue.id}`, `tag:${tag.id}`], query);
    }
    // The tag's count moved with the event: it comes after the event, with its new count.
    const all = (await follow(http, start)).changes;
    assert.deepEqual(all.map(key), [`venue:${venue.id}`, `event:${event.id}`, `tag:${tag.id}`]);
    assert.equal(all[2].record.count, 1);
    // Changes of several types come in the order they happened, not type by type.
    const later = await head();
    const first = await post('tags', { name: 'First tag' });
    const place = await post('venues', { venue: 'Between' });
    const second = await post('tags', { name: 'Second tag' });
    assert.deepEqual((await follow(http, later, undefined, 'types=venue,tag')).changes.map(key), [`tag:${first.id}`, `venue:${place.id}`, `tag:${second.id}`]);
    // A page with none of the types asked for still moves the cursor past the changes it skipped.
    const skipped = await feed(http, `after=${later}&types=organizer`);
    assert.deepEqual(skipped.changes, []);
    assert.equal(skipped.next_cursor, await head());
    const bad = await call(http, 'get', `${changesPath}?types=event,post`);
    expectError(bad, 400, 'rest_invalid_param');
  });

  it('pages by per_page (1 to 500) with has_more', async () => {
    const start = await head();
    for (const n of [1, 2, 3]) await post('tags', { name: `Tag ${n}` });
    const first = await feed(http, `after=${start}&per_page=2`);
    assert.equal(first.changes.length, 2);
    assert.equal(first.has_more, true);
    assert.equal(first.next_cursor, first.changes[1].cursor);
    const second = await feed(http, `after=${first.next_cursor}&per_page=2`);
    assert.equal(second.changes.length, 1);
    assert.equal(second.has_more, false);
    // Exactly per_page changes left: no more.
    const exact = await feed(http, `after=${start}&per_page=3`);
    assert.equal(exact.changes.length, 3);
    assert.equal(exact.has_more, false);
    for (const value of ['0', '501', 'x']) expectError(await call(http, 'get', `${changesPath}?per_page=${value}`), 400, 'rest_invalid_param');
    for (const value of ['-1', '31']) expectError(await call(http, 'get', `${changesPath}?wait=${value}`), 400, 'rest_invalid_param');
  });

  it('refuses malformed, edited and unknown cursors with 400', async () => {
    await post('tags', { name: 'Moves the feed' });
    const cursor = await head();
    const [position, mac] = cursor.split('.');
    const edited = `${(parseInt(position, 36) + 1).toString(36)}.${mac}`;
    const editedDown = `${(parseInt(position, 36) - 1).toString(36)}.${mac}`;
    const future = `zzzz.${mac}`;
    // Signed here, but for a position the feed has not reached.
    const { db } = await openTestDatabase();
    const { secret } = await db('change_sequence').where('id', 1).first('secret');
    const ahead = encodeCursor({ secret: String(secret), history: '' }, parseInt(position, 36) + 5);
    for (const bad of ['nonsense', '', '1', edited, editedDown, future, ahead, `${cursor}x`, cursor.toUpperCase()]) {
      const res = await call(http, 'get', `${changesPath}?after=${encodeURIComponent(bad)}`);
      const data = expectError(res, 400, 'rest_invalid_param') as Rec;
      assert.ok(data.params.after, bad);
    }
  });

  it('after a restore (docs/durability.md): cursors up to the copy go on, later ones and other histories are 410, edited ones 400', async () => {
    await post('tags', { name: 'Before the copy' });
    const atCopy = await head();
    await post('tags', { name: 'After the copy' });
    const afterCopy = await head();
    // What `cli restore` does to the restored database, done here to this one: a new history, and the
    // original one fenced at the copy's position.
    const { db } = await openTestDatabase();
    const { secret } = await db('change_sequence').where('id', 1).first('secret');
    await db('change_sequence').where('id', 1).update({ history: 'restored1' });
    await db('change_history_fences').insert({ history: '', upto: parseInt(atCopy.split('.')[0], 36) });

    const continued = await follow(http, atCopy);
    assert.deepEqual(
      continued.changes.map((change) => change.record?.name),
      ['After the copy'],
    );
    assert.match(continued.cursor, /^[0-9a-z]+\.restored1\.[A-Za-z0-9_-]{22}$/);
    assert.deepEqual((await follow(http, continued.cursor)).changes, []);
    for (const gone of [afterCopy, encodeCursor({ secret: String(secret), history: 'elsewhere' }, 1)]) {
      expectError(await call(http, 'get', `${changesPath}?after=${encodeURIComponent(gone)}`), 410, 'rest_cursor_expired');
    }
    const edited = continued.cursor.replace('.restored1.', '.restored2.');
    expectError(await call(http, 'get', `${changesPath}?after=${encodeURIComponent(edited)}`), 400, 'rest_invalid_param');
  });

  it('answers 410 for a cursor older than the retention, once a tombstone after it is older than that', async () => {
    const old = await head();
    const event = await post('events', eventBody({ title: 'Soon gone' }));
    expectStatus(await call(http, 'delete', `${NS}/events/${event.id}?force=true`, users.editor), 200);
    // Still kept now.
    assert.ok((await follow(http, old)).changes.some((change) => change.id === event.id && change.action === 'delete'));
    const recent = await head();
    // 31 days later (CHANGES_RETENTION_DAYS=30): the tombstone is purged.
    const later = new Date(Date.now() + 31 * 86_400_000).toISOString();
    // An hour later it is still kept (the retention is days).
    const { http: hourLater } = await eventsApp({}, new Date(Date.now() + 3_600_000).toISOString());
    assert.ok((await follow(hourLater, old)).changes.some((change) => change.id === event.id && change.action === 'delete'));
    const { http: future } = await eventsApp({}, later);
    const expired = await call(future, 'get', `${changesPath}?after=${old}`);
    expectError(expired, 410, 'rest_cursor_expired');
    assert.match(expired.body.message, /no longer kept/);
    // A cursor from after the purged tombstone still works; no cursor starts from what is kept.
    await feed(future, `after=${recent}`);
    assert.ok(!(await follow(future, undefined)).changes.some((change) => change.id === event.id));
    const { db } = await openTestDatabase();
    assert.equal(Number((await db('changes').where({ type: 'event', record_id: event.id }).count({ n: '*' }))[0].n), 0);
    // A purge forgets the tombstones before the cutoff only: a newer one stays, with cursors before it.
    const aged = await post('events', eventBody({ title: 'Aged' }));
    const fresh = await post('events', eventBody({ title: 'Fresh' }));
    const beforeAged = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${aged.id}?force=true`, users.editor), 200);
    const between = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${fresh.id}?force=true`, users.editor), 200);
    await db('changes').where({ type: 'event', record_id: aged.id }).update({ changed_utc: '2000-01-01 00:00:00' });
    expectError(await call(http, 'get', `${changesPath}?after=${beforeAged}`), 410, 'rest_cursor_expired');
    assert.deepEqual((await follow(http, between)).changes.map(key), [`event:${fresh.id}`]);
    // A shorter retention setting expires sooner.
    const other = await post('events', eventBody({ title: 'Other' }));
    const before = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${other.id}?force=true`, users.editor), 200);
    const { http: short } = await eventsApp({ changesRetentionDays: 0.5 }, new Date(Date.now() + 86_400_000).toISOString());
    expectError(await call(short, 'get', `${changesPath}?after=${before}`), 410, 'rest_cursor_expired');
  });

  it('keeps a tombstone recorded at the cutoff second itself', async () => {
    // The app's clock is NOW and the retention 30 days: the cutoff is 30 days before NOW, to the second.
    const cutoff = new Date(new Date(NOW).getTime() - 30 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
    const older = new Date(new Date(NOW).getTime() - 30 * 86_400_000 - 1000).toISOString().slice(0, 19).replace('T', ' ');
    const aged = await post('events', eventBody({ title: 'Just too old' }));
    const edge = await post('events', eventBody({ title: 'At the cutoff' }));
    const beforeAged = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${aged.id}?force=true`, users.editor), 200);
    const between = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${edge.id}?force=true`, users.editor), 200);
    const { db } = await openTestDatabase();
    await db('changes').where({ type: 'event', record_id: aged.id }).update({ changed_utc: older });
    await db('changes').where({ type: 'event', record_id: edge.id }).update({ changed_utc: cutoff });
    const page = await feed(http, `after=${between}`);
    assert.deepEqual(
      page.changes.map((change: Rec) => [key(change), change.action]),
      [[`event:${edge.id}`, 'delete']],
    );
    // The older tombstone was purged: a cursor from before it has expired.
    expectError(await call(http, 'get', `${changesPath}?after=${beforeAged}`), 410, 'rest_cursor_expired');
  });

  it('waits for the next change when nothing follows the cursor (wait), and answers empty when the time is up', async () => {
    const cursor = await head();
    const started = Date.now();
    const empty = await feed(http, `after=${cursor}&wait=1`);
    assert.deepEqual(empty.changes, []);
    assert.ok(Date.now() - started >= 900, `waited ${Date.now() - started} ms`);

    // supertest sends a request only when it is awaited (then): start it now, so it waits while the tag is made.
    const counts = await queryCounter();
    try {
      const waiting: Promise<Response> = call(http, 'get', `${changesPath}?after=${cursor}&wait=10`).then((res) => res);
      // The request is waiting once it has read its (empty) page and then polled the position.
      await waitFor(() => counts.page >= 1 && counts.position >= 2, 'the long poll to begin waiting');
      const tag = await post('tags', { name: 'Wake up' });
      const woken = Date.now();
      const res = await waiting;
      expectStatus(res, 200);
      assert.deepEqual(res.body.changes.map(key), [`tag:${tag.id}`]);
      assert.ok(Date.now() - woken < 2000, `answered ${Date.now() - woken} ms after the change`);
    } finally {
      counts.stop();
    }
  });

  it('polls only the position while it waits, and stops polling once it has answered', async () => {
    const cursor = await head();
    const counts = await queryCounter();
    try {
      assert.deepEqual((await feed(http, `after=${cursor}&wait=1`)).changes, []);
      // One page read before the wait; the wait itself reads the position only (every 250 ms).
      assert.equal(counts.page, 1, 'pages read');
      assert.ok(counts.position >= 3, `positions read: ${counts.position}`);
      // Nobody waits any more: the poll stops. These pauses are the point (kept, issue 49): a stretch of
      // time in which no poll may come; an in-flight poll (every 250 ms) ends within the first.
      await sleep(400);
      counts.position = 0;
      await sleep(800);
      assert.equal(counts.position, 0, 'positions read after the answer');
    } finally {
      counts.stop();
    }
  });

  it('shares one poll between the requests that wait', async () => {
    const cursor = await head();
    const counts = await queryCounter();
    try {
      const both = await Promise.all([feed(http, `after=${cursor}&wait=1`), feed(http, `after=${cursor}&wait=1`)]);
      assert.deepEqual(
        both.map((page) => page.changes),
        [[], []],
      );
      // Each request reads the position once before its page; the wait polls it once per 250 ms for
      // both (about 4 to 5 reads in a second); a poll per request would read it about 8 to 10 times.
      assert.ok(counts.position <= 8, `positions read: ${counts.position}`);
    } finally {
      counts.stop();
    }
  });

  it('stops waiting when the client has gone', async () => {
    const cursor = await head();
    const counts = await queryCounter();
    try {
      await assert.rejects(call(http, 'get', `${changesPath}?after=${cursor}&wait=10`).timeout(300), /timeout/i);
      // The request notices at its next poll (250 ms) and answers nobody; the poll stops. The pauses
      // are the point (kept, issue 49): a stretch of time in which no poll may come.
      await sleep(600);
      counts.position = 0;
      await sleep(800);
      assert.equal(counts.position, 0, 'positions read after the client left');
    } finally {
      counts.stop();
    }
  });

  it('answers 100 changes per page unless per_page says otherwise', async () => {
    const start = await head();
    const { db } = await openTestDatabase();
    // 101 tombstones in one write (records that no longer exist: deletes, cheap to announce).
    await inTransaction(db, async (trx) => {
      for (let id = 1; id <= 101; id++) noteChange(trx, 'event', 800_000 + id, true);
    });
    const page = await feed(http, `after=${start}`);
    assert.equal(page.changes.length, 100);
    assert.equal(page.has_more, true);
    assert.deepEqual((await feed(http, `after=${page.next_cursor}`)).changes.map(key), ['event:800101']);
  });

  it('builds a page of more than one slice of events and of venues, in order, each as GET returns it', async () => {
    const start = await head();
    const { db } = await openTestDatabase();
    // Venues and events interleaved, more of each than one slice (RECORDS_PER_SLICE, 100).
    const expected: string[] = [];
    for (let i = 0; i < 105; i++) {
      const id = await insertEvent(db, { title: `Sliced ${i}`, startUtc: '2027-03-01 10:00:00', endUtc: '2027-03-01 11:00:00' });
      expected.push(`event:${id}`);
      expected.push(`venue:${(await post('venues', { venue: `Hall ${i}` })).id}`);
    }
    const page = await feed(http, `after=${start}&per_page=500`, users.editor);
    assert.deepEqual(page.changes.map(key), expected);
    assert.equal(page.has_more, false);
    for (const change of page.changes) {
      assert.equal(change.action, 'upsert');
      assert.equal(change.record.id, change.id);
    }
    for (const at of [0, 201, 209]) {
      const change = page.changes[at];
      const single = await call(http, 'get', `${NS}/${change.type === 'event' ? 'events' : 'venues'}/${change.id}`, users.editor);
      assert.deepEqual(change.record, single.body, `${key(change)} as GET returns it`);
    }
  });

  it('is never cached', async () => {
    const res = await call(http, 'get', changesPath);
    expectStatus(res, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('is not cut by the request timeout while it waits', async () => {
    const { http: strict } = await testApp({ requestTimeoutSeconds: 0.5, publicUrl: 'http://api.test' });
    const cursor = (await call(strict, 'get', `${NS}/tags`)).headers['x-tec-change-cursor'] as string;
    const res = await call(strict, 'get', `${changesPath}?after=${cursor}&wait=1`);
    expectStatus(res, 200);
  });

  it('every list sends X-TEC-Change-Cursor, read before its page (also when the reply is remembered)', async () => {
    for (const collection of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      const first = await call(http, 'get', `${NS}/${collection}`);
      expectStatus(first, 200);
      const cursor = first.headers['x-tec-change-cursor'] as string;
      assert.match(cursor, /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/, collection);
      // Remembered: the same cursor, and following the feed from it yields nothing yet.
      assert.equal((await call(http, 'get', `${NS}/${collection}`)).headers['x-tec-change-cursor'], cursor);
      assert.deepEqual((await feed(http, `after=${cursor}`)).changes, []);
    }
    const cursor = (await call(http, 'get', `${NS}/tags`)).headers['x-tec-change-cursor'] as string;
    const tag = await post('tags', { name: 'After the list' });
    const next = await call(http, 'get', `${NS}/tags`);
    assert.notEqual(next.headers['x-tec-change-cursor'], cursor);
    assert.deepEqual((await feed(http, `after=${cursor}`)).changes.map(key), [`tag:${tag.id}`]);
    assert.deepEqual((await feed(http, `after=${next.headers['x-tec-change-cursor']}`)).changes, []);
  });

  it('lists read neither the signing secret nor the position again while no write has committed', async () => {
    await head();
    const { db } = await openTestDatabase();
    // Another list than head()'s, so its reply is not the one remembered.
    const seen = await statementsDuring(db, async () => assert.match((await call(http, 'get', `${NS}/tags?per_page=2`)).headers['x-tec-change-cursor'] as string, /^[0-9a-z]+\./));
    assert.deepEqual(
      seen.filter((sql) => /max\([`"]seq[`"]\)|from [`"]change_sequence[`"]/.test(sql)),
      [],
    );
  });

  it('reads the signing secret and history once per cache (the repository)', async () => {
    const { db } = await openTestDatabase();
    await inTransaction(db, async (trx) => {
      const repo = new ChangeRepository(trx, new ChangeFeedCache(trx));
      let keys: unknown[] = [];
      const seen = await statementsDuring(db, async () => (keys = [await repo.cursorKey(), await repo.cursorKey()]));
      assert.deepEqual(keys[0], keys[1]);
      assert.equal(seen.filter((sql) => /from [`"]change_sequence[`"]/.test(sql)).length, 1);
    });
  });

  it('reads at most `limit` changes for some types, merged in order (the repository)', async () => {
    const start = await head();
    const venue = await post('venues', { venue: 'First' });
    const tag = await post('tags', { name: 'Second' });
    await post('venues', { venue: 'Third' });
    const { db } = await openTestDatabase();
    const repo = new ChangeRepository(db);
    const after = Number.parseInt(start.split('.')[0], 36);
    const rows = await repo.page(after, await repo.position(), ['venue', 'tag'], 2);
    assert.deepEqual(
      rows.map((row) => `${row.type}:${row.recordId}`),
      [`venue:${venue.id}`, `tag:${tag.id}`],
    );
  });

  it('refuses a change noted on a transaction that has ended, committed or rolled back', async () => {
    const { db } = await openTestDatabase();
    let ended: Knex.Transaction | undefined;
    await inTransaction(db, async (trx) => {
      ended = trx;
    });
    assert.throws(() => noteChange(ended as Knex.Transaction, 'event', 1), /inside inTransaction/);
    await assert.rejects(
      inTransaction(db, async (trx) => {
        ended = trx;
        throw new Error('the work fails');
      }),
      /the work fails/,
    );
    assert.throws(() => noteChange(ended as Knex.Transaction, 'event', 1), /inside inTransaction/);
  });

  it('records nothing for a write that fails, and a record changed twice in one request once', async () => {
    const start = await head();
    const res = await call(http, 'post', `${NS}/events`, users.editor, eventBody({ end_date: '2000-01-01 00:00:00' }));
    expectStatus(res, 400);
    assert.deepEqual((await feed(http, `after=${start}`)).changes, []);
    const event = await post('events', eventBody({ venue: { venue: 'Nested venue' } }));
    const changes = (await follow(http, start, users.editor)).changes;
    assert.deepEqual(changes.map((change) => change.type).sort(), ['event', 'venue']);
    assert.ok(changes.some((change) => change.id === event.id));
    assert.ok(NOW);
  });
});
