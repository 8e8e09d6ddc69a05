import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { up as fillLinkTimes } from '../../../src/db/migrations/20261128000101_fill_event_terms_times.js';
import { call, createEvent, eventPath, eventsApp, listEvents, type Body, type Http, type Rec } from '../../helpers/events.js';

/**
 * Term links keep a copy of their event's local start and end (src/repositories/term-link-times.ts), read
 * by a list filtered by categories or tags with a date window. The copy must equal the event's value
 * after every kind of write, or such a list would miss an event moved into its window.
 */

/** Links whose copy differs from their event's times (none, when every write kept it). */
async function staleLinks(): Promise<Rec[]> {
  const { db } = await openTestDatabase();
  return db('event_terms as et')
    .join('events as x', 'x.post_id', 'et.event_id')
    .where((q) => q.whereNull('et.start_local').orWhereNull('et.end_local').orWhereRaw('et.start_local <> x.start_local').orWhereRaw('et.end_local <> x.end_local'))
    .select('et.event_id', 'et.term_id', 'et.start_local', 'et.end_local', { event_start: 'x.start_local', event_end: 'x.end_local' });
}

async function linkCount(): Promise<number> {
  const { db } = await openTestDatabase();
  const [{ n }] = await db('event_terms').count({ n: '*' });
  return Number(n);
}

describe('term links keep their event’s times (category or tag + window lists)', () => {
  let http: Http;
  let editor: TestUser;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    editor = (await createUsers()).editor;
  });

  const write = async (method: 'post' | 'put' | 'patch', id: number, body: Body, scope?: string): Promise<Rec> => {
    const res = await call(http, method, `${eventPath(id)}${scope ? `?scope=${scope}` : ''}`, editor, body);
    expectStatus(res, 200);
    return res.body;
  };
  const occurrences = async (id: number): Promise<Rec[]> => {
    const res = await call(http, 'get', `${NS}/events/${id}/occurrences?start_date=2030-01-01&end_date=2031-12-31&per_page=50`, editor);
    expectStatus(res, 200);
    return res.body.events;
  };
  /** Ids of a category + window list (with an optional search), in list order. */
  const listed = async (query: Record<string, string>): Promise<number[]> => {
    const res = await listEvents(http, { per_page: '50', ...query });
    expectStatus(res, 200);
    assert.equal(Number(res.headers['x-wp-total']), res.body.events.length, 'the total counts the same set');
    return res.body.events.map((e: Rec) => e.id);
  };
  const expectExact = async (step: string) => {
    assert.deepEqual(await staleLinks(), [], `after ${step}`);
  };

  it('equals the event’s times after creates, moves, term changes, series writes, trash, restore and deletes', async () => {
    const single = await createEvent(http, editor, { status: 'publish', categories: ['Concerts'], tags: ['Free'] });
    const concerts = single.categories[0].id as number;
    await expectExact('a create with a new category and tag');
    await write('patch', single.id, { start_date: '2030-06-01 18:00:00', end_date: '2030-06-02 01:00:00' });
    await expectExact('a move of its times');
    await write('post', single.id, { categories: ['Talks', concerts], start_date: '2030-07-01 09:00:00', end_date: '2030-07-01 10:00:00' });
    await expectExact('new categories and times in one write');
    await write('put', single.id, { tags: ['Outdoors'], all_day: true });
    await expectExact('new tags and an all-day event');
    await write('patch', single.id, { timezone: 'America/New_York', start_date: '2030-07-03 20:00:00', end_date: '2030-07-03 22:00:00' });
    await expectExact('another zone');

    const series = await createEvent(http, editor, {
      status: 'publish',
      title: 'Weekly',
      start_date: '2030-09-02 19:00:00',
      end_date: '2030-09-02 21:00:00',
      categories: [concerts],
      tags: ['Free'],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    await expectExact('a new series');
    let events = await occurrences(series.id);
    assert.equal(events.length, 6);
    await write('patch', series.id, { start_date: '2030-09-02 20:00:00', end_date: '2030-09-02 23:00:00' }, 'all');
    await expectExact('a new time for the whole series');
    await write('patch', events[2].id, { start_date: '2030-09-17 08:00:00', end_date: '2030-09-17 09:00:00' });
    await expectExact('one occurrence moved (an exception)');
    await write('patch', series.id, { categories: ['Talks'] }, 'all');
    await expectExact('new categories for the whole series');
    await write('patch', events[3].id, { start_date: '2030-09-23 10:00:00', end_date: '2030-09-23 11:00:00', tags: ['Indoors'] }, 'following');
    await expectExact('a split of the series (scope=following)');
    await write('patch', series.id, { recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    await expectExact('new rules for the first part');
    events = await occurrences(events[3].id);
    expectStatus(await call(http, 'delete', eventPath(events[1].id), editor), 200);
    await expectExact('an occurrence deleted');
    expectStatus(await call(http, 'delete', eventPath(single.id), editor), 200);
    await expectExact('an event trashed');
    await write('patch', single.id, { status: 'publish' });
    await expectExact('an event restored');
    expectStatus(await call(http, 'delete', `${eventPath(single.id)}?force=true`, editor), 200);
    await expectExact('a delete');
    assert.ok((await linkCount()) >= 10, 'the checks above looked at links');
  });

  it('is filled by its data migration for links written before the copy existed', async () => {
    await createEvent(http, editor, { status: 'publish', categories: ['Concerts', 'Talks'], tags: ['Free'] });
    await createEvent(http, editor, { status: 'draft', categories: ['Concerts'], start_date: '2031-01-01 10:00:00', end_date: '2031-01-03 10:00:00' });
    const { db } = await openTestDatabase();
    await db('event_terms').update({ start_local: null, end_local: null });
    assert.equal((await staleLinks()).length, 4);
    await fillLinkTimes(db);
    await expectExact('the data migration');
  });

  it('lists an event moved into the window, out of it, and into another category, with the same total', async () => {
    const a = await createEvent(http, editor, {
      status: 'publish',
      title: 'Jazz at noon',
      categories: ['Concerts'],
      start_date: '2030-05-10 12:00:00',
      end_date: '2030-05-10 13:00:00',
    });
    const concerts = String(a.categories[0].id);
    const b = await createEvent(http, editor, {
      status: 'publish',
      title: 'Jazz at night',
      categories: [Number(concerts)],
      start_date: '2030-08-10 21:00:00',
      end_date: '2030-08-10 23:00:00',
    });
    const c = await createEvent(http, editor, { status: 'publish', title: 'Poetry', categories: ['Talks'], start_date: '2030-05-12 18:00:00', end_date: '2030-05-12 19:00:00' });
    const may = { categories: concerts, start_date: '2030-05-01', end_date: '2030-05-31' };
    assert.deepEqual(await listed(may), [a.id]);
    await write('patch', b.id, { start_date: '2030-05-20 21:00:00', end_date: '2030-05-20 23:00:00' });
    assert.deepEqual(await listed(may), [a.id, b.id], 'moved into the window');
    assert.deepEqual(await listed({ ...may, search: 'night' }), [b.id], 'and found by a search');
    // A full page: the total is counted (by the page's own statement when the links are few).
    const second = await listEvents(http, { ...may, per_page: '1', page: '2' });
    expectStatus(second, 200);
    assert.deepEqual([second.body.events.map((e: Rec) => e.id), second.headers['x-wp-total'], second.headers['x-wp-totalpages']], [[b.id], '2', '2']);
    await write('patch', a.id, { start_date: '2030-06-10 12:00:00', end_date: '2030-06-10 13:00:00' });
    assert.deepEqual(await listed(may), [b.id], 'moved out of it');
    await write('patch', c.id, { categories: [Number(concerts)] });
    assert.deepEqual(await listed(may), [c.id, b.id], 'another category, in start order');
    await write('patch', c.id, { end_date: '2030-06-02 19:00:00' });
    assert.deepEqual(await listed(may), [b.id], 'an end moved past the window');
    assert.deepEqual(await listed({ ...may, end_date: '2030-06-30' }), [c.id, b.id, a.id]);
  });

  it('lists the occurrences a series write moved into a tag’s window', async () => {
    const series = await createEvent(http, editor, {
      status: 'publish',
      title: 'Choir',
      start_date: '2030-03-04 19:00:00',
      end_date: '2030-03-04 21:00:00',
      tags: ['Singing'],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const singing = String(series.tags[0].id);
    const april = { tags: singing, start_date: '2030-04-01', end_date: '2030-04-30' };
    assert.deepEqual(await listed(april), []);
    // The whole series four weeks later: the same events, now in April.
    const before = (await occurrences(series.id)).map((e) => e.id);
    await write('patch', series.id, { start_date: '2030-04-01 19:00:00', end_date: '2030-04-01 21:00:00' }, 'all');
    assert.deepEqual(
      await listed(april),
      (await occurrences(series.id)).map((e) => e.id),
    );
    assert.equal((await listed(april)).length, 4);
    // One occurrence moved out of April on its own, and the series' rules grown by two weeks.
    const moved = (await occurrences(series.id))[1].id;
    await write('patch', moved, { start_date: '2030-05-20 19:00:00', end_date: '2030-05-20 21:00:00' });
    await write('patch', series.id, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    const april2 = await listed(april);
    assert.ok(!april2.includes(moved));
    assert.equal(april2.length, 4, 'three of the first four and the fifth (29 April)');
    assert.ok(before.some((id) => april2.includes(id)));
    const inMay = (await occurrences(series.id)).filter((e) => e.start_date >= '2030-05-01' && e.start_date < '2030-06-01');
    assert.deepEqual(
      await listed({ tags: singing, start_date: '2030-05-01', end_date: '2030-05-31' }),
      [moved, ...inMay.map((e) => e.id)].filter((id, i, all) => all.indexOf(id) === i).sort((x, y) => (x === moved ? 1 : 0) - (y === moved ? 1 : 0)),
    );
    await expectExact('the series writes');
  });
});
