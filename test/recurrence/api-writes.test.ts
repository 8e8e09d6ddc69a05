import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectError, expectStatus } from '../helpers/assertions.js';
import { call, eventPath, eventsApp, eventsPath, type Http, type Rec } from '../helpers/events.js';
import type { Role } from '../../src/auth/capabilities.js';

/** Updates and deletes of recurring series, by scope (docs/contract.md §14). */

const WEEKLY = {
  title: 'Standup',
  start_date: '2027-03-01 09:00:00',
  end_date: '2027-03-01 09:30:00',
  timezone: 'Europe/Paris',
  status: 'publish',
  recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
};
const WINDOW = 'start_date=2027-02-01&end_date=2027-12-31&per_page=50';

describe('recurring events: updates and deletes by scope (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  const createSeries = async (body: Record<string, unknown> = WEEKLY, as: TestUser = users.editor): Promise<Rec> => {
    const res = await call(http, 'post', eventsPath, as, body);
    expectStatus(res, 201);
    return res.body;
  };
  const seriesEvents = async (id: number, as: TestUser = users.editor): Promise<Rec[]> => {
    const res = await call(http, 'get', `${NS}/events/${id}/occurrences?${WINDOW}`, as);
    expectStatus(res, 200);
    return res.body.events;
  };
  const write = (method: 'post' | 'put' | 'patch', id: number, body: Record<string, unknown>, scope?: string, as: TestUser = users.editor) =>
    call(http, method, `${eventPath(id)}${scope ? `?scope=${scope}` : ''}`, as, body);
  const remove = (id: number, query = '', as: TestUser = users.editor) => call(http, 'delete', `${eventPath(id)}${query ? `?${query}` : ''}`, as);

  it('answers the first event when a write of the whole series from a later occurrence removes that occurrence', async () => {
    const first = await createSeries();
    const third = (await seriesEvents(first.id))[2];
    const single = await write('patch', third.id, { recurrence: [], title: 'Just once' }, 'all');
    expectStatus(single, 200);
    assert.equal(single.body.id, first.id);
    assert.equal(single.body.title, 'Just once');
    assert.deepEqual(single.body.recurrence ?? [], []);
    assert.deepEqual(single.body.skipped_occurrences, []);
    expectError(await call(http, 'get', eventPath(third.id), users.editor), 404, 'rest-event-not-found');
  });

  it('changes the whole series from its first event by default, and only one occurrence (an exception) from a later one', async () => {
    const first = await createSeries();
    const before = await seriesEvents(first.id);
    const renamed = await write('patch', first.id, { title: 'Daily sync' });
    expectStatus(renamed, 200);
    const after = await seriesEvents(first.id);
    assert.deepEqual(
      after.map((e) => e.id),
      before.map((e) => e.id),
      'the ids stay',
    );
    assert.ok(after.every((e) => e.title === 'Daily sync'));
    assert.ok(after.every((e) => e.modified_utc >= before[0].modified_utc));

    const third = after[2];
    const own = await write('put', third.id, { title: 'Retro' });
    expectStatus(own, 200);
    assert.equal(own.body.title, 'Retro');
    assert.equal(own.body.series_id, first.id);
    await write('post', first.id, { title: 'Sync', description: 'Weekly' });
    const titles = (await seriesEvents(first.id)).map((e) => e.title);
    assert.deepEqual(titles, ['Sync', 'Sync', 'Retro', 'Sync', 'Sync', 'Sync'], 'the exception keeps its own title');
  });

  it('moves one occurrence across another; a change of the series time keeps that exception and the ids', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    // The second occurrence moves after the third.
    const moved = await write('patch', events[1].id, { start_date: '2027-03-16 10:00:00', end_date: '2027-03-16 11:00:00' });
    expectStatus(moved, 200);
    let listed = await seriesEvents(first.id);
    assert.deepEqual(
      listed.map((e) => [e.id, e.start_date]),
      [
        [events[0].id, '2027-03-01 09:00:00'],
        [events[2].id, '2027-03-15 09:00:00'],
        [events[1].id, '2027-03-16 10:00:00'],
        [events[3].id, '2027-03-22 09:00:00'],
        [events[4].id, '2027-03-29 09:00:00'],
        [events[5].id, '2027-04-05 09:00:00'],
      ],
    );
    // The series moves to 08:00, the day after (a wall-clock shift of +23 hours).
    const shifted = await write('patch', first.id, { start_date: '2027-03-02 08:00:00', end_date: '2027-03-02 08:45:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    expectStatus(shifted, 200);
    listed = await seriesEvents(first.id);
    assert.deepEqual(listed.map((e) => e.id).sort(), events.map((e) => e.id).sort(), 'every occurrence still falls on an occurrence: all ids stay');
    const byId = new Map(listed.map((e) => [e.id, e]));
    assert.equal(byId.get(events[1].id)!.start_date, '2027-03-16 10:00:00', 'the exception keeps its own time');
    assert.equal(byId.get(events[3].id)!.start_date, '2027-03-23 08:00:00');
    assert.equal(byId.get(events[3].id)!.end_date, '2027-03-23 08:45:00');
    assert.equal(byId.get(events[4].id)!.utc_start_date, '2027-03-30 06:00:00', 'summer time: 08:00 in Paris is 06:00 UTC');
  });

  it('regenerates on a rule change: occurrences that no longer fall on the rules go (exceptions too), the others keep their ids', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    await write('patch', events[4].id, { title: 'Special' });
    const shorter = await write('patch', first.id, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4', 'RDATE;TZID=Europe/Paris:20270310T090000'] });
    expectStatus(shorter, 200);
    assert.deepEqual(shorter.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=4', 'RDATE;TZID=Europe/Paris:20270310T090000']);
    const listed = await seriesEvents(first.id);
    assert.deepEqual(
      listed.map((e) => e.start_date.slice(0, 10)),
      ['2027-03-01', '2027-03-08', '2027-03-10', '2027-03-15', '2027-03-22'],
    );
    assert.deepEqual(
      listed.filter((e) => e.start_date.slice(0, 10) !== '2027-03-10').map((e) => e.id),
      events.slice(0, 4).map((e) => e.id),
    );
    assert.ok(listed.every((e) => e.recurrence[0] === 'RRULE:FREQ=WEEKLY;COUNT=4'));
    expectError(await call(http, 'get', eventPath(events[4].id)), 404, 'rest-event-not-found');
    const bad = await write('patch', first.id, { recurrence: ['RRULE:FREQ=SOMETIMES'] });
    expectError(bad, 400, 'rest_invalid_param');
    assert.equal((await seriesEvents(first.id)).length, 5, 'a refused change changes nothing');
  });

  it('changes the title and shortens the rule in one write: the dropped occurrences go, the others are found by the new title', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    const res = await write('patch', first.id, { title: 'Retrospective', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    expectStatus(res, 200);
    const listed = await seriesEvents(first.id);
    assert.deepEqual(
      listed.map((e) => [e.id, e.title]),
      events.slice(0, 3).map((e) => [e.id, 'Retrospective']),
    );
    // The search index follows (on MySQL the write's own trigram rows; on SQLite its triggers).
    const found = await call(http, 'get', `${eventsPath}?${WINDOW}&search=retrospective`, users.editor);
    expectStatus(found, 200);
    assert.deepEqual(
      found.body.events.map((e: Rec) => e.id),
      events.slice(0, 3).map((e) => e.id),
    );
  });

  it('splits the series with scope=following: the old one ends before, a new one starts there with the change', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    const split = await write('patch', events[3].id, { title: 'Standup (new room)', start_date: '2027-03-22 10:00:00', end_date: '2027-03-22 10:30:00' }, 'following');
    expectStatus(split, 200);
    assert.equal(split.body.series_id, events[3].id);
    assert.deepEqual(split.body.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    const old = await seriesEvents(first.id);
    assert.deepEqual(
      old.map((e) => e.id),
      events.slice(0, 3).map((e) => e.id),
    );
    assert.deepEqual(old[0].recurrence, ['RRULE:FREQ=WEEKLY;UNTIL=20270322T075959Z']);
    const fresh = await seriesEvents(events[3].id);
    assert.deepEqual(
      fresh.map((e) => [e.id, e.title, e.start_date]),
      [
        [events[3].id, 'Standup (new room)', '2027-03-22 10:00:00'],
        [events[4].id, 'Standup (new room)', '2027-03-29 10:00:00'],
        [events[5].id, 'Standup (new room)', '2027-04-05 10:00:00'],
      ],
    );
    const children = await call(http, 'get', `${eventsPath}?${WINDOW}&post_parent=${events[3].id}`);
    assert.deepEqual(
      children.body.events.map((e: Rec) => e.id),
      [events[4].id, events[5].id],
    );
  });

  it('makes the series a single event again with recurrence [] or false', async () => {
    for (const none of [[], false]) {
      const first = await createSeries();
      const events = await seriesEvents(first.id);
      const single = await write('patch', first.id, { recurrence: none });
      expectStatus(single, 200);
      assert.equal(single.body.series_id, null);
      assert.ok(!('recurrence' in single.body));
      for (const event of events.slice(1)) expectError(await call(http, 'get', eventPath(event.id)), 404, 'rest-event-not-found');
    }
  });

  it('refuses recurrence on one occurrence, and a change of the first event’s times with scope=this', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    expectError(await write('patch', events[2].id, { recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] }), 400, 'rest_invalid_param');
    expectError(await write('patch', first.id, { start_date: '2027-03-01 10:00:00' }, 'this'), 400, 'rest_invalid_param');
    expectStatus(await write('patch', first.id, { title: 'Only the first' }, 'this'), 200);
    assert.deepEqual(
      (await seriesEvents(first.id)).map((e) => e.title),
      ['Only the first', 'Standup', 'Standup', 'Standup', 'Standup', 'Standup'],
    );
    expectError(await write('patch', first.id, { title: 'x' }, 'sometimes'), 400, 'rest_invalid_param');
  });

  it('makes a single event a series by an update with recurrence', async () => {
    const single = await createSeries({ ...WEEKLY, recurrence: undefined });
    const res = await write('patch', single.id, { recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    expectStatus(res, 200);
    assert.equal(res.body.series_id, single.id);
    assert.equal((await seriesEvents(single.id)).length, 3);
  });

  it('deletes one later occurrence with an EXDATE, the following ones with scope=following, the whole series from the first', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    const one = await remove(events[1].id);
    expectStatus(one, 200);
    assert.equal(one.body.id, events[1].id);
    expectError(await call(http, 'get', eventPath(events[1].id)), 404, 'rest-event-not-found');
    let listed = await seriesEvents(first.id);
    assert.equal(listed.length, 5);
    assert.deepEqual(listed[0].recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Paris:20270308T090000']);

    expectStatus(await remove(events[4].id, 'scope=following'), 200);
    listed = await seriesEvents(first.id);
    assert.deepEqual(
      listed.map((e) => e.id),
      [events[0].id, events[2].id, events[3].id],
    );
    assert.match(listed[0].recurrence[0], /^RRULE:FREQ=WEEKLY;UNTIL=20270329T065959Z$/);

    const trashed = await remove(first.id);
    expectStatus(trashed, 200);
    assert.equal(trashed.body.status, 'trash');
    const asEditor = await call(http, 'get', `${eventsPath}?${WINDOW}&status=trash`, users.editor);
    assert.deepEqual(asEditor.body.events.map((e: Rec) => e.id).sort(), listed.map((e) => e.id).sort(), 'every occurrence is in the trash');
    expectError(await remove(first.id), 410, 'event-is-in-trash');
    expectStatus(await remove(first.id, 'force=true'), 200);
    for (const event of listed) expectError(await call(http, 'get', eventPath(event.id)), 404, 'rest-event-not-found');
  });

  it('restores a trashed series from its first event', async () => {
    const first = await createSeries();
    await remove(first.id);
    expectStatus(await write('patch', first.id, { status: 'publish' }), 200);
    assert.ok((await seriesEvents(first.id, users.subscriber)).every((e) => e.status === 'publish'));
    assert.equal((await seriesEvents(first.id, users.subscriber)).length, 6);
  });

  it('keeps term counts: every published occurrence counts, through status and rule changes, trash and delete', async () => {
    const category = (await call(http, 'post', `${NS}/categories`, users.editor, { name: 'Counted' })).body;
    const count = async () => (await call(http, 'get', `${NS}/categories/${category.id}`)).body.count;
    const first = await createSeries({ ...WEEKLY, categories: [category.id] });
    assert.equal(await count(), 6);
    await write('patch', first.id, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    assert.equal(await count(), 4);
    await write('patch', first.id, { status: 'draft' });
    assert.equal(await count(), 0);
    await write('patch', first.id, { status: 'publish' });
    assert.equal(await count(), 4);
    const events = await seriesEvents(first.id);
    await remove(events[3].id);
    assert.equal(await count(), 3);
    await write('patch', first.id, { categories: [] });
    assert.equal(await count(), 0);
  });

  it('applies the rights of the first event: a contributor edits its own pending series; an author may not touch another’s', async () => {
    const own = await createSeries(WEEKLY, users.contributor);
    const events = await seriesEvents(own.id, users.contributor);
    expectStatus(await write('patch', events[2].id, { title: 'Mine' }, 'all', users.contributor), 200);
    assert.ok((await seriesEvents(own.id, users.contributor)).every((e) => e.title === 'Mine' && e.status === 'pending'));
    const theirs = await createSeries(WEEKLY, users.editor);
    const theirEvents = await seriesEvents(theirs.id);
    expectError(await write('patch', theirEvents[1].id, { title: 'Not mine' }, 'all', users.author), 403, 'rest_forbidden');
    expectError(await remove(theirEvents[1].id, '', users.author), 403, 'rest_forbidden');
    expectError(await write('patch', theirEvents[1].id, { title: 'Not mine' }, 'all', users.contributor), 403, 'rest_forbidden');
  });

  it('checks If-Match per occurrence, and for scope=all against the occurrence named', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    const read = await call(http, 'get', eventPath(events[2].id));
    const tag = read.headers.etag;
    expectStatus(await write('patch', first.id, { title: 'Changed by someone else' }), 200);
    const stale = await call(http, 'patch', `${eventPath(events[2].id)}?scope=all`, users.editor, { title: 'Mine' }).set('If-Match', tag);
    expectError(stale, 412, 'rest_precondition_failed');
    const fresh = (await call(http, 'get', eventPath(events[2].id))).headers.etag;
    expectStatus(await call(http, 'patch', `${eventPath(events[2].id)}?scope=all`, users.editor, { title: 'Mine' }).set('If-Match', fresh), 200);
    expectError(
      await call(http, 'delete', eventPath(events[3].id), users.editor).set('If-Match', tag.replace(`-${events[2].id}-`, `-${events[3].id}-`)),
      412,
      'rest_precondition_failed',
    );
  });

  it('announces every occurrence whose record changed in the change feed', async () => {
    const first = await createSeries();
    const events = await seriesEvents(first.id);
    const cursor = (await call(http, 'get', `${NS}/changes`)).body.next_cursor;
    await write('patch', first.id, { title: 'Renamed' });
    const feed = await call(http, 'get', `${NS}/changes?after=${encodeURIComponent(cursor)}&types=event`);
    expectStatus(feed, 200);
    const changed = new Set(feed.body.changes.map((c: Rec) => c.id));
    for (const event of events) assert.ok(changed.has(event.id), `occurrence ${event.id} announced`);
    const cursor2 = feed.body.next_cursor;
    await remove(events[1].id);
    const after = await call(http, 'get', `${NS}/changes?after=${encodeURIComponent(cursor2)}&types=event`);
    const kinds = new Map(after.body.changes.map((c: Rec) => [c.id, c.action]));
    assert.equal(kinds.get(events[1].id), 'delete');
    assert.equal(kinds.get(events[3].id), 'upsert', 'its recurrence (a new EXDATE) changed');
  });
});

const CONCURRENT_BASE = { title: 'Fuzz', start_date: '2027-03-07 10:00:00', end_date: '2027-03-07 11:00:00', timezone: 'Europe/Paris', status: 'publish' };

describe('recurring events: concurrent whole-series edits (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  it('leave the occurrences as the stored rules and first event give them, whatever the order of the commits', async () => {
    const created = await call(http, 'post', eventsPath, users.editor, { ...CONCURRENT_BASE, title: 'Concurrent series', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as number;
    // Times and rules change at once, each planned from what it read before the others committed.
    const edits = [
      { start_date: '2027-03-07 12:00:00', end_date: '2027-03-07 13:00:00' },
      { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] },
      { start_date: '2027-03-07 15:00:00', end_date: '2027-03-07 16:00:00' },
      { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=9'] },
      { start_date: '2027-03-07 08:00:00', end_date: '2027-03-07 09:00:00' },
      { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] },
    ];
    const answers = await Promise.all(edits.map((body) => call(http, 'patch', `${eventsPath}/${id}?scope=all`, users.editor, body)));
    for (const res of answers) assert.equal(res.status, 200, res.text);
    const first = (await call(http, 'get', `${eventsPath}/${id}`, users.editor)).body;
    const listed = await call(http, 'get', `${eventsPath}/${id}/occurrences?start_date=2027-01-01&end_date=2028-12-31&per_page=50`, users.editor);
    assert.equal(listed.status, 200, listed.text);
    const count = Number(/COUNT=(\d+)/.exec(first.recurrence[0])![1]);
    const time = first.start_date.slice(11);
    assert.equal(listed.body.events.length, count, `${first.recurrence[0]}: ${listed.body.events.map((e: { start_date: string }) => e.start_date).join(', ')}`);
    for (const occurrence of listed.body.events) assert.equal(occurrence.start_date.slice(11), time, `every occurrence at the first event's time ${time}`);
  });
});
