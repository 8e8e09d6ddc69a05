import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { createUsers, NS, testApp, type TestUser } from '../helpers/app.js';
import type { Role } from '../../src/auth/capabilities.js';
import { expectError, expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, eventBody, eventsApp, NOW, type Http, type Rec } from '../helpers/events.js';

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
    for (const value of ['0', '501', 'x']) expectError(await call(http, 'get', `${changesPath}?per_page=${value}`), 400, 'rest_invalid_param');
    for (const value of ['-1', '31']) expectError(await call(http, 'get', `${changesPath}?wait=${value}`), 400, 'rest_invalid_param');
  });

  it('refuses malformed, edited and unknown cursors with 400', async () => {
    const cursor = await head();
    const [position, mac] = cursor.split('.');
    const edited = `${(parseInt(position, 36) + 1).toString(36)}.${mac}`;
    const future = `zzzz.${mac}`;
    for (const bad of ['nonsense', '', '1', edited, future, `${cursor}x`, cursor.toUpperCase()]) {
      const res = await call(http, 'get', `${changesPath}?after=${encodeURIComponent(bad)}`);
      const data = expectError(res, 400, 'rest_invalid_param') as Rec;
      assert.ok(data.params.after, bad);
    }
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
    const { http: future } = await eventsApp({}, later);
    expectError(await call(future, 'get', `${changesPath}?after=${old}`), 410, 'rest_cursor_expired');
    // A cursor from after the purged tombstone still works; no cursor starts from what is kept.
    await feed(future, `after=${recent}`);
    assert.ok(!(await follow(future, undefined)).changes.some((change) => change.id === event.id));
    const { db } = await openTestDatabase();
    assert.equal(Number((await db('changes').where({ type: 'event', record_id: event.id }).count({ n: '*' }))[0].n), 0);
    // A shorter retention setting expires sooner.
    const other = await post('events', eventBody({ title: 'Other' }));
    const before = await head();
    expectStatus(await call(http, 'delete', `${NS}/events/${other.id}?force=true`, users.editor), 200);
    const { http: short } = await eventsApp({ changesRetentionDays: 0.5 }, new Date(Date.now() + 86_400_000).toISOString());
    expectError(await call(short, 'get', `${changesPath}?after=${before}`), 410, 'rest_cursor_expired');
  });

  it('waits for the next change when nothing follows the cursor (wait), and answers empty when the time is up', async () => {
    const cursor = await head();
    const started = Date.now();
    const empty = await feed(http, `after=${cursor}&wait=1`);
    assert.deepEqual(empty.changes, []);
    assert.ok(Date.now() - started >= 900, `waited ${Date.now() - started} ms`);

    const waiting = call(http, 'get', `${changesPath}?after=${cursor}&wait=10`) as unknown as Promise<Response>;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const tag = await post('tags', { name: 'Wake up' });
    const woken = Date.now();
    const res = await waiting;
    expectStatus(res, 200);
    assert.deepEqual(res.body.changes.map(key), [`tag:${tag.id}`]);
    assert.ok(Date.now() - woken < 2000, `answered ${Date.now() - woken} ms after the change`);
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
