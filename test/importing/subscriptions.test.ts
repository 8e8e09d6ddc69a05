import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { backoffMs, MAX_BACKOFF_MS, startSubscriptionScheduler, SubscriptionRuns } from '../../src/importing/scheduler.js';
import { projectRoot } from '../../src/openapi/document.js';
import { SubscriptionRepository } from '../../src/repositories/subscriptions.js';
import { createUser, NS, testApp, testConfig, type TestApp, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/wait.js';
import { startIcsServer, type IcsServer } from '../helpers/ics-server.js';
import { loadRecording, replaySite, type RecordedAnswer, type SiteRecording } from '../helpers/tec-site-server.js';

/**
 * Subscriptions (docs/importing.md "Subscribing to a calendar"): the API and its permissions, runs
 * against a local iCalendar feed (created, 304 unchanged, changed and removed, a local edit kept until
 * the source changes that event), the events' `managed_by`, the change feed, and the schedule's
 * back-off with an injected clock.
 */

const google = fs.readFileSync(path.join(projectRoot(), 'test/fixtures/ics/google.ics'), 'utf8');
/** The outbound allowance the tests' local servers need (127.0.0.1). */
const OVERRIDES: Partial<Config> = { publicUrl: 'http://api.test', outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'] } };
const JAM = '4fjq1b0d2m8o3kqk4rs0t3vq5h@google.com';

type Rec = Record<string, any>;

/**
 * The recorded site read 50 records a page, as a subscription reads it: the recording's pages of 10
 * (every list holds fewer than 50) served as one.
 */
function wholePage(recording: SiteRecording, url: string): RecordedAnswer | undefined {
  if (!url.includes('per_page=50&page=1')) return undefined;
  const base = url.replace('per_page=50&page=1', 'per_page=10&page=');
  const first = recording.anonymous[`${base}1`];
  if (!first) return undefined;
  const body = JSON.parse(first.body) as Rec;
  const key = Object.keys(body).find((name) => Array.isArray(body[name])) as string;
  for (let page = 2; recording.anonymous[`${base}${page}`]; page++) body[key].push(...(JSON.parse(recording.anonymous[`${base}${page}`].body) as Rec)[key]);
  delete body.next_rest_url;
  return { ...first, headers: { ...first.headers, 'x-tec-totalpages': '1' }, body: JSON.stringify({ ...body, total_pages: 1 }) };
}

describe('subscriptions', () => {
  let server: IcsServer;
  let admin: TestUser;
  let http: TestApp['http'];

  before(async () => {
    server = await startIcsServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(async () => {
    admin = await createUser('administrator', 'sub-admin');
    ({ http } = await testApp(OVERRIDES));
    server.requests.length = 0;
  });

  async function subscribe(body: Rec): Promise<Rec> {
    const res = await http().post(`${NS}/subscriptions`).set('Authorization', admin.authorization).send(body);
    expectStatus(res, 201);
    return res.body;
  }

  async function refresh(id: number): Promise<Rec> {
    const res = await http().post(`${NS}/subscriptions/${id}/refresh`).set('Authorization', admin.authorization);
    expectStatus(res, 200);
    return res.body;
  }

  async function events(): Promise<Rec[]> {
    const res = await http().get(`${NS}/events?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish,draft`).set('Authorization', admin.authorization);
    expectStatus(res, 200);
    return res.body.events;
  }

  const counts = (run: Rec) => [run.created, run.updated, run.unchanged, run.removed, run.failed];

  it('is managed by administrators only: anonymous 401, others 403, in the WordPress envelope; create, read, list, change, delete, with their 400s, 404s and 304s', async () => {
    const editor = await createUser('editor');
    const anonymous = await http().get(`${NS}/subscriptions`);
    expectStatus(anonymous, 401);
    assert.deepEqual(Object.keys(anonymous.body).sort(), ['code', 'data', 'message']);
    expectStatus(
      await http()
        .post(`${NS}/subscriptions`)
        .send({ url: `${server.origin}/a.ics`, type: 'ical' }),
      401,
    );
    for (const req of [
      http().get(`${NS}/subscriptions`),
      http()
        .post(`${NS}/subscriptions`)
        .send({ url: `${server.origin}/a.ics`, type: 'ical' }),
      http().get(`${NS}/subscriptions/1`),
      http().patch(`${NS}/subscriptions/1`).send({ refresh_minutes: 10 }),
      http().delete(`${NS}/subscriptions/1`),
      http().post(`${NS}/subscriptions/1/refresh`),
      http().get(`${NS}/subscriptions/1/runs`),
    ]) {
      const res = await req.set('Authorization', editor.authorization);
      expectStatus(res, 403);
      assert.equal(res.body.data.status, 403);
    }

    const category = await http().post(`${NS}/categories`).set('Authorization', admin.authorization).send({ name: 'Imported' });
    expectStatus(category, 201);
    const created = await subscribe({ url: `${server.origin}/a.ics`, type: 'ical', categories: [category.body.id] });
    assert.deepEqual(
      [created.type, created.refresh_minutes, created.categories, created.status, created.failures, created.last_run, created.last_error],
      ['ical', 60, [category.body.id], null, 0, null, null],
    );
    for (const [body, param] of [
      [{ url: `${server.origin}/a.ics`, type: 'ical', refresh_minutes: 4 }, 'refresh_minutes'],
      [{ url: 'ftp://example.org/a.ics', type: 'ical' }, 'url'],
      // The outbound rule, at creation: plain http only within OUTBOUND_ALLOWED_NETWORKS, no special-purpose address.
      [{ url: 'http://192.0.2.1/a.ics', type: 'ical' }, 'url'],
      [{ url: 'https://[::1]/a.ics', type: 'ical' }, 'url'],
      [{ url: 'https://169.254.169.254/latest/meta-data', type: 'ical' }, 'url'],
      [{ url: 'https://user:secret@calendar.example.org/a.ics', type: 'ical' }, 'url'],
      [{ url: `${server.origin}/a.ics`, type: 'caldav' }, 'type'],
      [{ url: `${server.origin}/a.ics`, type: 'ical', categories: [999999] }, 'categories'],
      [{ url: `${server.origin}/a.ics`, type: 'ical', status: 'trash' }, 'status'],
    ] as const) {
      const res = await http().post(`${NS}/subscriptions`).set('Authorization', admin.authorization).send(body);
      expectStatus(res, 400);
      assert.ok(JSON.stringify(res.body).includes(param), `${param}: ${JSON.stringify(res.body)}`);
    }

    const item = `${NS}/subscriptions/${created.id}`;
    const read = await http().get(item).set('Authorization', admin.authorization);
    expectStatus(read, 200);
    assert.deepEqual(read.body, created);
    assert.equal(read.headers['cache-control'], 'no-store');
    expectStatus(await http().get(item).set('Authorization', admin.authorization).set('If-None-Match', read.headers.etag), 304);
    const list = await http().get(`${NS}/subscriptions`).set('Authorization', admin.authorization);
    expectStatus(list, 200);
    assert.deepEqual(list.body.subscriptions, [created]);
    expectStatus(await http().get(`${NS}/subscriptions`).set('Authorization', admin.authorization).set('If-None-Match', list.headers.etag), 304);
    expectStatus(await http().get(`${NS}/subscriptions`).set('Authorization', admin.authorization).set('If-None-Match', 'x'.repeat(9000)), 400);

    const patched = await http().patch(item).set('Authorization', admin.authorization).send({ refresh_minutes: 15, status: 'draft', categories: [] });
    expectStatus(patched, 200);
    assert.deepEqual([patched.body.refresh_minutes, patched.body.status, patched.body.categories], [15, 'draft', []]);
    expectStatus(await http().patch(item).set('Authorization', admin.authorization).send({ refresh_minutes: 100000 }), 400);
    const internal = await http().patch(item).set('Authorization', admin.authorization).send({ url: 'https://10.0.0.1/a.ics' });
    expectStatus(internal, 400);
    assert.equal(internal.body.data.params.url !== undefined, true, JSON.stringify(internal.body));
    expectStatus(await http().patch(`${NS}/subscriptions/999999`).set('Authorization', admin.authorization).send({ refresh_minutes: 15 }), 404);
    expectStatus(await http().get(`${NS}/subscriptions/999999`).set('Authorization', admin.authorization), 404);
    expectStatus(await http().get(item).set('Authorization', admin.authorization).set('If-None-Match', 'x'.repeat(9000)), 400);
    expectStatus(await http().get(`${NS}/subscriptions/999999/runs`).set('Authorization', admin.authorization), 404);
    expectStatus(await http().get(`${item}/runs?per_page=0`).set('Authorization', admin.authorization), 400);
    expectStatus(await http().get(`${item}/runs?page=2`).set('Authorization', admin.authorization), 404);
    const runs = await http().get(`${item}/runs`).set('Authorization', admin.authorization);
    expectStatus(runs, 200);
    assert.deepEqual([runs.body.total, runs.body.runs], [0, []]);
    expectStatus(await http().get(`${item}/runs`).set('Authorization', admin.authorization).set('If-None-Match', runs.headers.etag), 304);
    expectStatus(await http().post(`${NS}/subscriptions/999999/refresh`).set('Authorization', admin.authorization), 404);

    const deleted = await http().delete(item).set('Authorization', admin.authorization);
    expectStatus(deleted, 200);
    assert.deepEqual([deleted.body.deleted, deleted.body.previous.id], [true, created.id]);
    expectStatus(await http().delete(item).set('Authorization', admin.authorization), 404);
  });

  it('keeps at most 100 subscriptions (409)', async () => {
    const { db } = await openTestDatabase();
    const row = {
      url: 'https://example.org/a.ics',
      type: 'ical',
      refresh_minutes: 60,
      categories: '[]',
      owner_id: admin.id,
      created_utc: '2026-12-03 09:00:00',
      modified_utc: '2026-12-03 09:00:00',
    };
    await db('subscriptions').insert(Array.from({ length: 100 }, () => row));
    const res = await http()
      .post(`${NS}/subscriptions`)
      .set('Authorization', admin.authorization)
      .send({ url: `${server.origin}/a.ics`, type: 'ical' });
    expectStatus(res, 409);
    assert.deepEqual([res.body.code, res.body.data.limit], ['rest_subscription_limit_reached', 100]);
  });

  /** Drops the weekly series from the Google file: its master and its changed occurrence (same UID). */
  const dropWeekly = (block: string) => (block.includes('UID:0weekly8g7h6j5k4l3m2n1b0v@google.com') ? '' : block);

  it('runs an iCalendar feed: created, 304 unchanged, changed and removed at the source; a local edit stays until the source changes that event; managed_by; the runs; /changes', async () => {
    const category = (await http().post(`${NS}/categories`).set('Authorization', admin.authorization).send({ name: 'From Google' })).body;
    server.serve('/google.ics', google);
    const sub = await subscribe({ url: `${server.origin}/google.ics`, type: 'ical', categories: [category.id] });
    const start = (await http().get(`${NS}/changes`)).body.next_cursor;

    const first = await refresh(sub.id);
    assert.deepEqual([first.outcome, first.http_status, first.cause, first.subscription, first.errors], ['applied', 200, 'refresh', sub.id, []]);
    assert.deepEqual(counts(first), [3, 0, 0, 0, 0]);
    let listed = await events();
    // Nine occurrences of the weekly series, the jam, the fair.
    assert.equal(listed.length, 11);
    const jam = listed.find((e) => e.title === 'Open jam session')!;
    assert.deepEqual(jam.managed_by, { subscription: sub.id, source_id: JAM });
    // One of them moved at the source (a RECURRENCE-ID override with its own title).
    const rehearsals = listed.filter((e) => e.title.startsWith('Weekly choir rehearsal'));
    assert.ok(rehearsals.length === 9 && rehearsals.every((e) => e.managed_by?.source_id === '0weekly8g7h6j5k4l3m2n1b0v@google.com'), 'every occurrence of a managed series');
    assert.deepEqual(
      jam.categories.map((c: Rec) => c.id),
      [category.id],
    );
    // The run's writes are ordinary writes: in the change feed, anonymous readers too.
    const feed = await http().get(`${NS}/changes?after=${start}`);
    expectStatus(feed, 200);
    assert.ok(feed.body.changes.some((c: Rec) => c.type === 'event' && c.id === jam.id && c.record?.managed_by?.source_id === JAM));

    const second = await refresh(sub.id);
    assert.deepEqual([second.outcome, second.http_status], ['not-modified', 304]);
    assert.deepEqual(counts(second), [0, 0, 0, 0, 0]);
    assert.ok(server.requests.at(-1)!.ifNoneMatch, 'the second fetch sent If-None-Match');
    assert.ok(server.requests.at(-1)!.ifModifiedSince, 'and If-Modified-Since');

    // A local edit of a managed event; managed_by sent back is ignored, as every read-only field.
    const edit = await http().patch(`${NS}/events/${jam.id}`).set('Authorization', admin.authorization).send({ title: 'Jam (edited here)', managed_by: null });
    expectStatus(edit, 200);
    assert.deepEqual(edit.body.managed_by, { subscription: sub.id, source_id: JAM });

    // The source changes the fair and drops the weekly series; the jam is unchanged there.
    server.serve(
      '/google.ics',
      google.replace('SUMMARY:Spring fair (two days)', 'SUMMARY:Spring fair (three days)').replace(/BEGIN:VEVENT\r?\n[\s\S]*?END:VEVENT\r?\n/g, dropWeekly),
    );
    const third = await refresh(sub.id);
    assert.deepEqual([third.outcome, third.http_status], ['applied', 200]);
    assert.deepEqual(counts(third), [0, 1, 1, 1, 0]);
    listed = await events();
    assert.deepEqual(listed.map((e) => e.title).sort(), ['Jam (edited here)', 'Spring fair (three days)']);

    // Now the source changes the jam: its version wins over the local edit.
    server.serve('/google.ics', google.replace('SUMMARY:Open jam session', 'SUMMARY:Open jam session (moved)').replace(/BEGIN:VEVENT\r?\n[\s\S]*?END:VEVENT\r?\n/g, dropWeekly));
    const fourth = await refresh(sub.id);
    assert.deepEqual(counts(fourth), [0, 2, 0, 0, 0], 'the jam, and the fair back to two days');
    assert.ok((await events()).some((e) => e.title === 'Open jam session (moved)'));

    const runs = await http().get(`${NS}/subscriptions/${sub.id}/runs`).set('Authorization', admin.authorization);
    expectStatus(runs, 200);
    assert.deepEqual(
      runs.body.runs.map((r: Rec) => [r.outcome, r.http_status]),
      [
        ['applied', 200],
        ['applied', 200],
        ['not-modified', 304],
        ['applied', 200],
      ],
    );
    const read = (await http().get(`${NS}/subscriptions/${sub.id}`).set('Authorization', admin.authorization)).body;
    assert.ok(read.last_run !== null && read.failures === 0);

    // Deleted: its events stay as ordinary events.
    expectStatus(await http().delete(`${NS}/subscriptions/${sub.id}`).set('Authorization', admin.authorization), 200);
    listed = await events();
    assert.equal(listed.length, 2);
    assert.ok(listed.every((e) => e.managed_by === null));
  });

  it('backs off a failing source without holding another (the schedule, with an injected clock); a subscription another process holds is queued', async () => {
    const { db } = await openTestDatabase();
    server.fail('/down.ics', 503);
    server.serve('/up.ics', google);
    const down = await subscribe({ url: `${server.origin}/down.ics`, type: 'ical', refresh_minutes: 5 });
    const up = await subscribe({ url: `${server.origin}/up.ics`, type: 'ical', refresh_minutes: 5 });
    let clock = Date.now();
    const config = testConfig({ ...OVERRIDES, subscriptions: { schedule: true, concurrency: 1, pollSeconds: 30 } });
    const scheduler = startSubscriptionScheduler({ db, config, logger: createLogger('silent'), now: () => clock, runs: new SubscriptionRuns() }, false);
    try {
      // One at a time: the failing source runs first (it is the oldest) and fails; it does not hold the other.
      await scheduler.tick();
      await scheduler.tick();
      const runsOf = async (id: number) => (await http().get(`${NS}/subscriptions/${id}/runs`).set('Authorization', admin.authorization)).body.runs as Rec[];
      assert.deepEqual(
        (await runsOf(down.id)).map((r) => [r.outcome, r.http_status, r.cause]),
        [['failed', 503, 'schedule']],
      );
      assert.deepEqual(
        (await runsOf(up.id)).map((r) => [r.outcome, r.created]),
        [['applied', 3]],
      );
      const failing = (await http().get(`${NS}/subscriptions/${down.id}`).set('Authorization', admin.authorization)).body;
      assert.deepEqual([failing.failures, failing.last_error], [1, `${server.origin}/down.ics answered HTTP 503`]);

      // Five minutes on: the working one runs again (304); the failing one waits twice its interval.
      clock += 5 * 60_000 + 1000;
      await scheduler.tick();
      await scheduler.tick();
      assert.equal((await runsOf(down.id)).length, 1);
      assert.deepEqual(
        (await runsOf(up.id)).map((r) => r.outcome),
        ['not-modified', 'applied'],
      );
      clock += 5 * 60_000;
      await scheduler.tick();
      assert.equal((await runsOf(down.id)).length, 2);
      assert.equal((await http().get(`${NS}/subscriptions/${down.id}`).set('Authorization', admin.authorization)).body.failures, 2);

      // Held by another process: neither the schedule nor a refresh runs it here; the refresh makes it due.
      await db('subscriptions')
        .where('id', up.id)
        .update({ lease_holder: 'elsewhere', lease_until_ms: clock + 3_600_000, next_run_ms: clock + 3_600_000 });
      const queued = await http().post(`${NS}/subscriptions/${up.id}/refresh`).set('Authorization', admin.authorization);
      expectStatus(queued, 202);
      assert.equal(queued.body.status, 'queued');
      clock += 10 * 60_000;
      await scheduler.tick();
      assert.equal((await runsOf(up.id)).length, 2, 'not run while another process holds it');
      assert.ok(Number((await db('subscriptions').where('id', up.id).first()).next_run_ms) <= 0, 'due at once for its holder');
      // The holder's run ends: the refresh asked for meanwhile keeps it due.
      const ran = { subscription_id: up.id, cause: 'schedule' as const, started_utc: '2026-12-03 10:00:00', duration_ms: 1, http_status: 304, outcome: 'not-modified' as const };
      const nothing = { created: 0, updated: 0, unchanged: 0, removed: 0, failed: 0, errors: [] };
      assert.ok(
        await new SubscriptionRepository(db).finishRun({ id: up.id, holder: 'elsewhere' }, { ...ran, ...nothing }, { nextRunMs: clock + 3_600_000, failures: 0, lastError: null }),
      );
      assert.equal(Number((await db('subscriptions').where('id', up.id).first()).next_run_ms), 0, 'still due after the run of its holder');
      await scheduler.tick();
      assert.equal((await runsOf(up.id)).length, 4, 'the run of its holder, then the one asked for');
    } finally {
      await scheduler.stop(1000);
    }
  });

  it('runs a site running The Events Calendar (tec-site): its events created once, managed by the subscription, unchanged on the next run', async () => {
    const recording = loadRecording();
    const site = await replaySite(recording, (url) => wholePage(recording, url));
    try {
      const sub = await subscribe({ url: site.origin, type: 'tec-site', status: 'draft' });
      const first = await refresh(sub.id);
      assert.deepEqual([first.outcome, first.http_status, first.errors], ['applied', 200, []]);
      assert.ok(first.created > 0);
      const { db } = await openTestDatabase();
      assert.equal((await db('events').where('managed_subscription', sub.id).pluck('post_id')).length, first.created);
      const managed = (await events()).filter((e) => e.managed_by?.subscription === sub.id);
      assert.ok(managed.length > 0);
      assert.ok(managed.every((e) => e.status === 'draft' && /^\d+$/.test(e.managed_by.source_id) && e.author === String(admin.id)));
      const second = await refresh(sub.id);
      assert.deepEqual(counts(second), [0, 0, first.created, 0, 0]);
    } finally {
      await site.close();
    }
  });

  it('runs on its timer once started, and one process at a time: two processes looking at once run a due subscription once', async () => {
    const { db } = await openTestDatabase();
    server.serve('/timer.ics', google);
    const sub = await subscribe({ url: `${server.origin}/timer.ics`, type: 'ical' });
    const config = testConfig(OVERRIDES);
    const logger = createLogger('silent');
    const runCount = async () => Number((await db('subscription_runs').where('subscription_id', sub.id).count({ n: '*' }))[0].n);
    // Two processes on the same database: each its own lease holder and runs.
    const one = startSubscriptionScheduler({ db, config, logger, runs: new SubscriptionRuns() }, false);
    const two = startSubscriptionScheduler({ db, config, logger, runs: new SubscriptionRuns() }, false);
    try {
      await Promise.all([one.tick(), two.tick()]);
      assert.equal(server.requests.filter((r) => r.path === '/timer.ics').length, 1, 'fetched once');
      assert.equal(await runCount(), 1);
    } finally {
      await Promise.all([one.stop(1000), two.stop(1000)]);
    }
    // Started as the service starts it: the timer finds the subscription made due and runs it.
    await db('subscriptions').where('id', sub.id).update({ next_run_ms: 0 });
    const timed = startSubscriptionScheduler({ db, config, logger, pollMs: 20, runs: new SubscriptionRuns() });
    try {
      await waitFor(async () => (await runCount()) >= 2, 'the timer to run the subscription made due', 5_000, 25);
    } finally {
      await timed.stop(1000);
    }
    assert.deepEqual(await db('subscription_runs').where('subscription_id', sub.id).orderBy('id').pluck('outcome'), ['applied', 'not-modified']);
    assert.equal((await db('subscriptions').where('id', sub.id).first()).lease_holder, null, 'stopped: the lease given up');
  });

  it('deleted while a run is under way: what the run wrote is released too (no event names a deleted subscription)', async () => {
    const { db } = await openTestDatabase();
    server.serve('/slow.ics', google);
    const sub = await subscribe({ url: `${server.origin}/slow.ics`, type: 'ical' });
    const scheduler = startSubscriptionScheduler({ db, config: testConfig(OVERRIDES), logger: createLogger('silent'), runs: new SubscriptionRuns() }, false);
    try {
      const held = server.hold('/slow.ics');
      const ticked = scheduler.tick();
      await held.arrived;
      expectStatus(await http().delete(`${NS}/subscriptions/${sub.id}`).set('Authorization', admin.authorization), 200);
      held.release();
      await ticked;
    } finally {
      await scheduler.stop(1000);
    }
    const listed = await events();
    assert.equal(listed.length, 11, 'the run wrote its events');
    assert.ok(listed.every((e) => e.managed_by === null));
    assert.equal((await db('import_origins').where('source_key', `subscription:${sub.id}`).count({ n: '*' }))[0].n, 0);
    assert.equal((await db('subscription_runs').where('subscription_id', sub.id).count({ n: '*' }))[0].n, 0);
  });

  it('backs off by doubling the interval, at most a day', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((n) => backoffMs(60, n) / 60_000),
      [60, 120, 240, 480],
    );
    assert.equal(backoffMs(60, 10), MAX_BACKOFF_MS);
    assert.equal(backoffMs(10080, 3), 10080 * 60_000, 'an interval longer than a day is the pause');
  });
});
