import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, eventsApp, eventsPath, NOW, type Http, type Rec } from '../helpers/events.js';
import { extendHorizons } from '../../src/domain/events/occurrences.js';

/** The rolling horizon of endless series (docs/contract.md §14): extended as time passes, in the background. */
describe('recurring events: the rolling horizon (docs/contract.md §14)', () => {
  let http: Http;
  let editor: TestUser;
  const settings = { maxOccurrences: 1000, horizonDays: 30 };

  beforeEach(async () => {
    http = (await eventsApp({ recurrenceHorizonDays: 30 })).http;
    editor = (await createUsers()).editor;
  });

  const listed = async (id: number): Promise<Rec[]> => {
    const res = await call(http, 'get', `${NS}/events/${id}/occurrences?start_date=2026-01-01&end_date=2030-12-31&per_page=50`);
    expectStatus(res, 200);
    return res.body.events;
  };

  it('stores the occurrences of an endless rule up to the horizon, then extends them as time passes, keeping ids and exceptions', async () => {
    const created = await call(http, 'post', eventsPath, editor, {
      title: 'Endless',
      start_date: '2026-11-23 18:00:00',
      end_date: '2026-11-23 19:00:00',
      status: 'publish',
      recurrence: ['RRULE:FREQ=WEEKLY'],
    });
    expectStatus(created, 201);
    const before = await listed(created.body.id);
    // 2026-11-21 + 30 days: up to 21 December.
    assert.deepEqual(
      before.map((e) => e.start_date.slice(0, 10)),
      ['2026-11-23', '2026-11-30', '2026-12-07', '2026-12-14', '2026-12-21'],
    );
    expectStatus(await call(http, 'patch', `${NS}/events/${before[2].id}`, editor, { title: 'Special' }), 200);

    const { db } = await openTestDatabase();
    const later = new Date(Date.parse(NOW) + 21 * 86_400_000);
    assert.equal(await extendHorizons(db, later, settings), 1);
    const after = await listed(created.body.id);
    assert.deepEqual(
      after.map((e) => e.start_date.slice(0, 10)),
      ['2026-11-23', '2026-11-30', '2026-12-07', '2026-12-14', '2026-12-21', '2026-12-28', '2027-01-04', '2027-01-11'],
    );
    assert.deepEqual(
      after.slice(0, 5).map((e) => e.id),
      before.map((e) => e.id),
    );
    assert.equal(after[2].title, 'Special');
    assert.equal(after[6].title, 'Endless');
    assert.equal(await extendHorizons(db, later, settings), 0, 'nothing left to do the same day');
  });

  it('extends a series once when several processes run the extension at the same time (WORKERS>1)', async () => {
    const category = (await call(http, 'post', `${NS}/categories`, editor, { name: 'Weekly' })).body;
    const created = await call(http, 'post', eventsPath, editor, {
      title: 'Endless',
      start_date: '2026-11-23 18:00:00',
      end_date: '2026-11-23 19:00:00',
      status: 'publish',
      categories: [category.id],
      recurrence: ['RRULE:FREQ=WEEKLY'],
    });
    expectStatus(created, 201);
    const { db } = await openTestDatabase();
    const later = new Date(Date.parse(NOW) + 21 * 86_400_000);
    const runs = await Promise.allSettled([extendHorizons(db, later, settings), extendHorizons(db, later, settings), extendHorizons(db, later, settings)]);
    assert.deepEqual(
      runs.map((run) => run.status),
      ['fulfilled', 'fulfilled', 'fulfilled'],
    );
    const after = await listed(created.body.id);
    assert.equal(after.length, 8);
    assert.equal(new Set(after.map((e) => e.start_date)).size, 8);
    assert.equal((await call(http, 'get', `${NS}/categories/${category.id}`)).body.count, 8);
  });
});
