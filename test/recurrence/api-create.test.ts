import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectError, expectStatus } from '../helpers/assertions.js';
import { call, eventPath, eventsApp, eventsPath, expectNothingStored, listEvents, readEvent, tableCounts, type Http, type Rec } from '../helpers/events.js';
import type { Role } from '../../src/auth/capabilities.js';

/** Recurring events: creating a series, and its occurrences in every list (docs/contract.md §14). */

const PARIS_WEEKLY = {
  title: 'Yoga',
  start_date: '2027-03-07 10:00:00',
  end_date: '2027-03-07 11:30:00',
  timezone: 'Europe/Paris',
  status: 'publish',
};

describe('recurring events: creating a series (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  const createSeries = async (body: Record<string, unknown>, as: TestUser = users.editor): Promise<Rec> => {
    const res = await call(http, 'post', eventsPath, as, body);
    expectStatus(res, 201);
    return res.body as Rec;
  };

  const allOf = async (query: Record<string, string>, as?: TestUser): Promise<Rec[]> => {
    const res = await listEvents(http, { per_page: '50', ...query }, as);
    expectStatus(res, 200);
    return res.body.events as Rec[];
  };

  it('answers the first event with series_id (its own id) and recurrence; every occurrence is an event of its own in the list, with its own id', async () => {
    const first = await createSeries({ ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    assert.equal(first.series_id, first.id);
    assert.deepEqual(first.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6']);
    const listed = await allOf({ start_date: '2027-03-01', end_date: '2027-05-01' });
    assert.equal(listed.length, 6);
    assert.equal(listed[0].id, first.id);
    assert.equal(new Set(listed.map((e) => e.id)).size, 6);
    for (const event of listed) {
      assert.equal(event.series_id, first.id);
      assert.deepEqual(event.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6']);
      assert.equal(event.title, 'Yoga');
      assert.equal(event.status, 'publish');
    }
    const res = await listEvents(http, { start_date: '2027-03-01', end_date: '2027-05-01', per_page: '2' });
    assert.equal(res.body.total, 6);
    assert.equal(res.headers['x-wp-total'], '6');
    // Each occurrence is readable on its own, with its own slug.
    const third = await readEvent(http, listed[2].id);
    assert.equal(third.start_date, '2027-03-21 10:00:00');
    assert.equal(third.series_id, first.id);
    assert.notEqual(third.slug, first.slug);
    assert.equal((await call(http, 'get', `${NS}/events/by-slug/${third.slug}`)).body.id, third.id);
  });

  it('keeps the wall-clock time in the event zone across DST: 10:00 in Paris stays 10:00, the UTC time moves', async () => {
    await createSeries({ ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const listed = await allOf({ start_date: '2027-03-01', end_date: '2027-04-30' });
    assert.deepEqual(
      listed.map((e) => [e.start_date, e.utc_start_date, e.end_date, e.timezone_abbr]),
      [
        ['2027-03-07 10:00:00', '2027-03-07 09:00:00', '2027-03-07 11:30:00', 'CET'],
        ['2027-03-14 10:00:00', '2027-03-14 09:00:00', '2027-03-14 11:30:00', 'CET'],
        ['2027-03-21 10:00:00', '2027-03-21 09:00:00', '2027-03-21 11:30:00', 'CET'],
        ['2027-03-28 10:00:00', '2027-03-28 08:00:00', '2027-03-28 11:30:00', 'CEST'],
      ],
    );
  });

  it('keeps the wall-clock time in the southern hemisphere too (Sydney, April change)', async () => {
    await createSeries({
      ...PARIS_WEEKLY,
      timezone: 'Australia/Sydney',
      start_date: '2027-03-28 10:00:00',
      end_date: '2027-03-28 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    });
    const listed = await allOf({ start_date: '2027-03-01', end_date: '2027-04-30' });
    assert.deepEqual(
      listed.map((e) => [e.start_date, e.utc_start_date]),
      [
        ['2027-03-28 10:00:00', '2027-03-27 23:00:00'],
        ['2027-04-04 10:00:00', '2027-04-04 00:00:00'],
      ],
    );
  });

  it('gives single events series_id null and no recurrence key', async () => {
    const res = await call(http, 'post', eventsPath, users.editor, { ...PARIS_WEEKLY, title: 'Once' });
    expectStatus(res, 201);
    assert.equal(res.body.series_id, null);
    assert.ok(!('recurrence' in res.body));
    const empty = await call(http, 'post', eventsPath, users.editor, { ...PARIS_WEEKLY, title: 'Also once', recurrence: [] });
    expectStatus(empty, 201);
    assert.equal(empty.body.series_id, null);
    assert.equal((await allOf({ start_date: '2027-03-01', end_date: '2027-03-31' })).length, 2);
  });

  it('adds RDATEs and leaves out EXDATEs (monthly on the 31st skips shorter months)', async () => {
    const first = await createSeries({
      ...PARIS_WEEKLY,
      start_date: '2027-01-31 19:00:00',
      end_date: '2027-01-31 21:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4', 'EXDATE;TZID=Europe/Paris:20270331T190000', 'RDATE:20270415T170000Z'],
    });
    const listed = await allOf({ start_date: '2027-01-01', end_date: '2027-12-31' });
    assert.deepEqual(
      listed.map((e) => e.start_date),
      ['2027-01-31 19:00:00', '2027-04-15 19:00:00', '2027-05-31 19:00:00', '2027-07-31 19:00:00'],
    );
    assert.ok(listed.every((e) => e.series_id === first.id));
  });

  it('selects the occurrences after the first with post_parent, as the plugin add-on does', async () => {
    const first = await createSeries({ ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=DAILY;COUNT=5'] });
    await call(http, 'post', eventsPath, users.editor, { ...PARIS_WEEKLY, title: 'Other' });
    const children = await allOf({ start_date: '2027-03-01', end_date: '2027-03-31', post_parent: String(first.id) });
    assert.equal(children.length, 4);
    assert.ok(children.every((e) => e.series_id === first.id && e.id !== first.id));
  });

  it('puts every occurrence in the filters and the term counts (a category of the series)', async () => {
    const category = await call(http, 'post', `${NS}/categories`, users.editor, { name: 'Sport' });
    await createSeries({ ...PARIS_WEEKLY, categories: [category.body.id], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const listed = await allOf({ start_date: '2027-03-01', end_date: '2027-04-30', categories: 'sport' });
    assert.equal(listed.length, 3);
    assert.ok(listed.every((e) => e.categories.length === 1));
    assert.equal((await call(http, 'get', `${NS}/categories/${category.body.id}`)).body.count, 3);
  });

  it('makes a contributor series pending throughout, visible to its author and not to the public', async () => {
    const first = await createSeries({ ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] }, users.contributor);
    assert.equal(first.status, 'pending');
    const own = await allOf({ start_date: '2027-03-01', end_date: '2027-04-30', status: 'pending' }, users.contributor);
    assert.equal(own.length, 3);
    assert.ok(own.every((e) => e.status === 'pending'));
    assert.equal((await allOf({ start_date: '2027-03-01', end_date: '2027-04-30' })).length, 0);
  });

  it('refuses bad recurrence lines with 400 rest_invalid_param naming the line, and stores nothing', async () => {
    const before = await tableCounts();
    const cases: Array<[unknown, RegExp]> = [
      [['RRULE:FREQ=WEEKLY', 'nonsense'], /recurrence\[1\] "nonsense"/],
      [['DTSTART:20270307T100000'], /unknown property DTSTART/],
      [['RRULE:FREQ=WEEKLY;BYDAI=MO'], /"BYDAI=MO" is not an RRULE part/],
      [['RRULE:FREQ=WEEKLY;UNTIL=20200101T000000Z'], /yields no occurrence/],
      [['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3'], /not the event's start/],
      [['RRULE:FREQ=HOURLY'], /more than 1000 occurrences/],
      [['EXDATE:20270307T090000Z', 'RRULE:FREQ=DAILY;COUNT=2'], /recurrence\[0\].*removes the first occurrence/],
      [[42], /recurrence\[0\] "42": not an iCalendar content line/],
      [true, /array of RFC 5545 content lines/],
    ];
    for (const [recurrence, message] of cases) {
      const res = await call(http, 'post', eventsPath, users.editor, { ...PARIS_WEEKLY, recurrence });
      const data = expectError(res, 400, 'rest_invalid_param') as { params: Record<string, string> };
      assert.match(data.params.recurrence, message, JSON.stringify(recurrence));
    }
    await expectNothingStored(before);
  });

  it('follows RECURRENCE_MAX_OCCURRENCES and RECURRENCE_HORIZON_DAYS', async () => {
    const limited = (await eventsApp({ recurrenceMaxOccurrences: 3 })).http;
    const tooMany = await call(limited, 'post', eventsPath, users.editor, { ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    assert.match((expectError(tooMany, 400, 'rest_invalid_param') as { params: Record<string, string> }).params.recurrence, /more than 3 occurrences/);
    // An endless weekly rule: the series' start plus 30 days.
    const near = (await eventsApp({ recurrenceHorizonDays: 30 })).http;
    const endless = await call(near, 'post', eventsPath, users.editor, { ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=WEEKLY'] });
    expectStatus(endless, 201);
    assert.equal((await allOf({ start_date: '2027-03-01', end_date: '2027-12-31' })).length, 5);
  });

  it('reads a form body: recurrence[] lines, commas inside a line kept', async () => {
    const res = await http()
      .post(eventsPath)
      .set('Authorization', users.editor.authorization)
      .type('form')
      .send('title=Form&start_date=2027-03-01 18:00:00&end_date=2027-03-01 19:00:00&status=publish&recurrence[]=RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4');
    expectStatus(res, 201);
    assert.deepEqual(res.body.recurrence, ['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4']);
    assert.deepEqual(
      (await allOf({ start_date: '2027-03-01', end_date: '2027-03-31' })).map((e) => e.start_date.slice(0, 10)),
      ['2027-03-01', '2027-03-03', '2027-03-08', '2027-03-10'],
    );
  });

  it('shows an occurrence on GET /events/{id} with its series', async () => {
    const first = await createSeries({ ...PARIS_WEEKLY, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] });
    const [, second] = await allOf({ start_date: '2027-03-01', end_date: '2027-03-31' });
    const read = await readEvent(http, second.id);
    assert.equal(read.series_id, first.id);
    assert.equal(read.start_date, '2027-03-14 10:00:00');
    assert.ok(read.json_ld);
    expectStatus(await call(http, 'get', eventPath(second.id)), 200);
  });
});
