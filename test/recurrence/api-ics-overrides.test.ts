import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { call, eventsApp, eventsPath, type Http, type Rec } from '../helpers/events.js';
import { instancesOf, text } from '../helpers/calendar-instances.js';
import type { Role } from '../../src/auth/capabilities.js';
import { calendarWithin, type FeedEntry } from '../../src/records/events/ical.js';

/**
 * One event's calendar is right on its own (docs/contract.md §11, §14): a series' first event writes
 * the whole series (its overrides with RECURRENCE-ID, an EXDATE for each occurrence the caller may not
 * read), a later occurrence is an event of its own under its own UID, and `/events.ics` writes a
 * series the same way whatever its window. Read back with ical.js, which expands the rules.
 */

describe('a series in one calendar: overrides and exclusions (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;
  let first: Rec;
  let occurrences: Rec[];

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
    const created = await call(http, 'post', eventsPath, users.editor, {
      title: 'Choir',
      start_date: '2027-03-03 18:00:00',
      end_date: '2027-03-03 19:30:00',
      timezone: 'Europe/Berlin',
      status: 'publish',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    expectStatus(created, 201);
    first = created.body as Rec;
    occurrences = (await call(http, 'get', `${NS}/events/${first.id}/occurrences?start_date=2027-03-01&end_date=2027-12-31`)).body.events as Rec[];
    assert.equal(occurrences.length, 6);
    // The third moves an hour later and two days on, with a new title; the fourth is deleted; the fifth becomes a draft.
    expectStatus(
      await call(http, 'patch', `${NS}/events/${occurrences[2].id}?scope=this`, users.editor, {
        title: 'Choir (moved)',
        start_date: '2027-03-19 19:00:00',
        end_date: '2027-03-19 20:30:00',
      }),
      200,
    );
    expectStatus(await call(http, 'delete', `${NS}/events/${occurrences[3].id}?scope=this`, users.editor), 200);
    expectStatus(await call(http, 'patch', `${NS}/events/${occurrences[4].id}?scope=this`, users.editor, { status: 'draft' }), 200);
  });

  const expected = (withDraft: boolean) =>
    [
      ['Choir', '2027-03-03 18:00:00'],
      ['Choir', '2027-03-10 18:00:00'],
      ['Choir (moved)', '2027-03-19 19:00:00'],
      ...(withDraft ? [['Choir', '2027-03-31 18:00:00']] : []),
      ['Choir', '2027-04-07 18:00:00'],
    ] as Array<[string, string]>;

  it("the first event's calendar carries the series' overrides and exclusions; ical.js shows every occurrence as the list does", async () => {
    const anonymous = await text(call(http, 'get', `${NS}/events/${first.id}/ics`));
    expectStatus(anonymous, 200);
    const body = anonymous.body as string;
    assert.equal(body.match(/BEGIN:VEVENT/g)?.length, 2, 'the master and the moved occurrence');
    assert.match(body, /RECURRENCE-ID;TZID=Europe\/Berlin:20270317T180000\r\n/);
    assert.match(body, /EXDATE;TZID=Europe\/Berlin:20270324T180000\r\n/, 'the deleted occurrence');
    assert.match(body, /EXDATE;TZID=Europe\/Berlin:20270331T180000\r\n/, 'the draft the caller may not read');
    assert.deepEqual(
      instancesOf(body, '2027-12-31T00:00:00').map((i) => [i.summary, i.local]),
      expected(false),
    );
    assert.ok(instancesOf(body, '2027-12-31T00:00:00').every((i) => i.uid === `${first.id}@api.test`));
    const listed = (await call(http, 'get', `${NS}/events/${first.id}/occurrences?start_date=2027-03-01&end_date=2027-12-31`)).body.events as Rec[];
    assert.deepEqual(
      listed.map((e) => [e.title, e.start_date]),
      expected(false),
    );

    // An editor reads the draft: it is an override (TENTATIVE), not excluded.
    const editor = await text(call(http, 'get', `${NS}/events/${first.id}/ics`, users.editor));
    assert.equal(editor.body.match(/BEGIN:VEVENT/g)?.length, 3);
    assert.doesNotMatch(editor.body, /EXDATE;TZID=Europe\/Berlin:20270331T180000/);
    assert.match(editor.body, /RECURRENCE-ID;TZID=Europe\/Berlin:20270331T180000\r\nSUMMARY:Choir\r\n(.*\r\n)*?STATUS:TENTATIVE/);
    assert.deepEqual(
      instancesOf(editor.body, '2027-12-31T00:00:00').map((i) => [i.summary, i.local]),
      expected(true),
    );
  });

  it("a later occurrence's calendar is an event of its own: its UID, its times and title, no RECURRENCE-ID", async () => {
    const moved = await text(call(http, 'get', `${NS}/events/${occurrences[2].id}/ics?uid=plugin`));
    expectStatus(moved, 200);
    assert.equal(moved.body.match(/BEGIN:VEVENT/g)?.length, 1);
    assert.match(moved.body, new RegExp(`UID:${occurrences[2].id}-\\d+-\\d+@api.test\\r\\n`));
    assert.match(moved.body, /DTSTART;TZID=Europe\/Berlin:20270319T190000\r\n/);
    assert.match(moved.body, /SUMMARY:Choir \(moved\)\r\n/);
    assert.doesNotMatch(moved.body, /RECURRENCE-ID|RRULE|EXDATE/);
    const plain = await text(call(http, 'get', `${NS}/events/${occurrences[1].id}/ics`));
    assert.match(plain.body, new RegExp(`UID:${occurrences[1].id}@api.test\\r\\n`));
    assert.doesNotMatch(plain.body, /RECURRENCE-ID|RRULE/);
  });

  it('/events.ics writes the series whole whatever the window: an override outside it too, the same VEVENTs as the first event calendar', async () => {
    // A window holding only the first week: the moved occurrence (17 → 19 March) is outside it.
    const early = await text(call(http, 'get', `${NS}/events.ics?start_date=2027-03-01&end_date=2027-03-05`));
    expectStatus(early, 200);
    const late = await text(call(http, 'get', `${NS}/events.ics?start_date=2027-04-01&end_date=2027-04-30`));
    const single = await text(call(http, 'get', `${NS}/events/${first.id}/ics`));
    const vevents = (calendar: string) => calendar.slice(calendar.indexOf('BEGIN:VEVENT'));
    assert.equal(vevents(early.body), vevents(single.body));
    assert.equal(vevents(late.body), vevents(single.body));
    assert.deepEqual(
      instancesOf(early.body, '2027-12-31T00:00:00').map((i) => [i.summary, i.local]),
      expected(false),
    );
  });

  it('when the caller may not read the first event, /events.ics writes the occurrences it lists as events of their own', async () => {
    expectStatus(await call(http, 'patch', `${NS}/events/${first.id}?scope=this`, users.editor, { status: 'draft' }), 200);
    const feed = await text(call(http, 'get', `${NS}/events.ics?start_date=2027-03-01&end_date=2027-12-31`));
    expectStatus(feed, 200);
    assert.doesNotMatch(feed.body, /RRULE|RECURRENCE-ID|EXDATE/);
    const uids = [...feed.body.matchAll(/^UID:(\d+)@api\.test\r$/gm)].map((m) => Number(m[1]));
    assert.deepEqual(uids, [occurrences[1].id, occurrences[2].id, occurrences[5].id]);
    assert.deepEqual(
      instancesOf(feed.body, '2027-12-31T00:00:00').map((i) => [i.summary, i.local]),
      [expected(false)[1], expected(false)[2], expected(false)[3]],
    );
  });

  it('a feed whose series overrides pass ICAL_MAX_EVENTS is cut before that series, with X-TEC-Truncated', async () => {
    const small = (await eventsApp({ icalMaxEvents: 2 })).http;
    expectStatus(
      await call(small, 'post', eventsPath, users.editor, { title: 'Before', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', status: 'publish' }),
      201,
    );
    const feed = await text(call(small, 'get', `${NS}/events.ics?start_date=2027-03-01&end_date=2027-12-31`));
    expectStatus(feed, 200);
    assert.equal(feed.headers['x-tec-truncated'], 'true');
    assert.equal(feed.body.match(/BEGIN:VEVENT/g)?.length, 1, 'the single event; the series and its override would make three');
    // First in its feed, a series keeps the overrides that fit.
    const alone = await text(call(small, 'get', `${NS}/events/${first.id}/ics`));
    assert.equal(alone.body.match(/BEGIN:VEVENT/g)?.length, 2);
  });

  it('a feed cut at REPLY_LIMIT is cut before a series, never between its master and its overrides', async () => {
    const entry = (part?: FeedEntry['part']) => ({ part }) as FeedEntry;
    const entries = [entry(), entry('master'), entry('override'), entry('override'), entry()];
    // Each entry weighs 100 bytes, the calendar around them 10.
    const build = async (some: FeedEntry[]) => Buffer.alloc(10 + 100 * some.length);
    assert.equal((await calendarWithin(entries, build, 350)).count, 1, 'the single event; the series would need 300 more');
    assert.equal((await calendarWithin(entries, build, 410)).count, 4);
    assert.equal((await calendarWithin(entries, build, 1000)).count, 5);
  });
});
