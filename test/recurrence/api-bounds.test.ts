import assert from 'node:assert/strict';
import { createUsers, type TestUser } from '../helpers/app.js';
import { expectError, expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, eventPath, eventsApp, eventsPath, expectNothingStored, NOW, readEvent, tableCounts, type Http } from '../helpers/events.js';
import { extendHorizons } from '../../src/domain/events/occurrences.js';
import { expandOccurrences } from '../../src/dates/recurrence.js';
import { MAX_DATES } from '../../src/dates/recurrence-lines.js';
import type { Role } from '../../src/auth/capabilities.js';

/** The bounds of recurrence rules (docs/limits.md "Recurrence rules", docs/contract.md §14). */

const MONDAY = {
  title: 'Bounds',
  start_date: '2027-01-04 10:00:00',
  end_date: '2027-01-04 11:00:00',
  timezone: 'UTC',
  status: 'publish',
};

/** "The last weekday of every month": the most expensive common rule (docs/limits.md "Recurrence rules"). */
const LAST_WEEKDAY = 'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1';

describe('recurring events: bounds of the rules (docs/limits.md "Recurrence rules")', () => {
  let http: Http;
  let contributor: TestUser;
  let editor: TestUser;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    ({ contributor, editor } = await createUsers());
  });

  const refuses = async (cases: Array<[string, RegExp]>, start = MONDAY.start_date) => {
    const before = await tableCounts();
    for (const [line, reason] of cases) {
      const res = await call(http, 'post', eventsPath, contributor, { ...MONDAY, start_date: start, end_date: start, recurrence: [line] });
      const data = expectError(res, 400, 'rest_invalid_param') as { params: Record<string, string> };
      assert.ok(data.params.recurrence.startsWith(`recurrence[0] "${line}": `), `${line}: ${data.params.recurrence}`);
      assert.match(data.params.recurrence, reason, line);
    }
    await expectNothingStored(before);
  };

  it('answers 400, not 500, for the rules ical.js refuses when it builds the iterator', async () => {
    await refuses([
      ['RRULE:FREQ=DAILY;BYYEARDAY=5', /BYYEARDAY does not go with FREQ=DAILY/],
      ['RRULE:FREQ=DAILY;BYMONTHDAY=15;BYWEEKNO=1', /BYWEEKNO needs FREQ=YEARLY/],
      ['RRULE:FREQ=WEEKLY;BYMONTHDAY=15', /BYMONTHDAY does not go with FREQ=WEEKLY/],
      // Allowed by RFC 5545, refused by ical.js 2.2.1's iterator: its reason, as a 400.
      ['RRULE:FREQ=YEARLY;BYYEARDAY=4;BYMONTH=1', /ical\.js cannot iterate this rule \(Invalid BYYEARDAY rule\)/],
      ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYMONTHDAY=' + Array.from({ length: 31 }, (_, i) => i + 1).join(',') + ';BYMONTH=2;BYSETPOS=9', /./],
    ]);
  });

  it('refuses BYSETPOS=0 and every other value RFC 5545 §3.3.10 does not allow', async () => {
    await refuses([
      ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0', /BYSETPOS takes whole numbers from 1 to 366 or -366 to -1; "0" is not one/],
      ['RRULE:FREQ=MONTHLY;BYSETPOS=1', /BYSETPOS needs another BYxxx part/],
      ['RRULE:FREQ=DAILY;BYMONTHDAY=0', /BYMONTHDAY takes whole numbers from 1 to 31/],
      ['RRULE:FREQ=DAILY;BYMINUTE=1.5', /BYMINUTE takes whole numbers from 0 to 59; "1.5"/],
      ['RRULE:FREQ=DAILY;BYSECOND=60', /BYSECOND takes whole numbers from 0 to 59/],
      ['RRULE:FREQ=DAILY;BYHOUR=24', /BYHOUR takes whole numbers from 0 to 23/],
      ['RRULE:FREQ=YEARLY;BYWEEKNO=54', /BYWEEKNO takes whole numbers from 1 to 53/],
      ['RRULE:FREQ=YEARLY;BYYEARDAY=-367', /BYYEARDAY takes whole numbers/],
      ['RRULE:FREQ=YEARLY;BYMONTH=0', /BYMONTH takes whole numbers from 1 to 12/],
      ['RRULE:FREQ=DAILY;BYDAY=1MO', /an ordinal weekday needs FREQ=MONTHLY or FREQ=YEARLY/],
      ['RRULE:FREQ=MONTHLY;BYDAY=6MO', /the ordinal must be 1 to 5/],
      ['RRULE:FREQ=YEARLY;BYMONTH=1;BYDAY=-6MO', /the ordinal must be 1 to 5/],
      ['RRULE:FREQ=YEARLY;BYDAY=20MO', /the ordinal must be 1 to 9 .*as ical\.js reads it/],
      ['RRULE:FREQ=YEARLY;BYWEEKNO=1;BYDAY=1MO', /does not go with BYWEEKNO/],
      ['RRULE:FREQ=MONTHLY;BYDAY=0MO', /the ordinal must be 1 to 5/],
      ['RRULE:FREQ=WEEKLY;BYDAY=+MO', /a sign needs an ordinal/],
      ['RRULE:FREQ=WEEKLY;WKST=XX', /WKST must be one of/],
      ['RRULE:FREQ=FORTNIGHTLY', /FREQ must be one of/],
    ]);
  });

  it('refuses a rule whose one occurrence needs too much work with 400 naming the line', async () => {
    // Steps only: the same bound refuses it on a loaded machine as on an idle one.
    await refuses([['RRULE:FREQ=SECONDLY;COUNT=2;BYMONTH=1,5', /the rule needs too much work to find one occurrence \(more than 10000 iteration steps\)/]], '2027-01-31 23:59:59');
    await refuses([
      ['RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1MO;BYMONTHDAY=15,16,17,18,19,20,21', /the rule needs too much work to find one occurrence \(more than 10000 iteration steps\)/],
    ]);
  });

  it('shares one total budget among all the rules of a series', async () => {
    // One endless daily rule fits; a hundred copies of it (no new occurrence, the same work each) do not.
    const input = { timezone: 'UTC', startLocal: '2027-01-04 10:00:00', horizonLocal: '2029-01-04 23:59:59', max: 1000 };
    assert.equal((await expandOccurrences({ ...input, lines: ['RRULE:FREQ=DAILY'] })).length, 732);
    await assert.rejects(
      expandOccurrences({ ...input, lines: Array.from({ length: 100 }, () => 'RRULE:FREQ=DAILY') }),
      /^Error: recurrence\[\d+\] "RRULE:FREQ=DAILY": the rules need too much work to expand up to the horizon \(more than 500000 iteration steps, all lines together\)/,
    );
  });

  it('expands "the last weekday of every month" over its full 1,000 occurrences (83 years) within the total budget', async () => {
    const starts = await expandOccurrences({
      lines: [`${LAST_WEEKDAY};COUNT=1000`],
      timezone: 'UTC',
      startLocal: '2027-01-29 10:00:00',
      horizonLocal: '2110-12-31 23:59:59',
      max: 1000,
    });
    assert.equal(starts.length, 1000);
    assert.equal(starts.at(-1), '2110-04-30 10:00:00');
  });

  it('accepts a series of the last weekday of every month that started years ago, and re-expands it on a change of its times', async () => {
    // From January 2018 to the horizon (November 2028): 131 months, about 60,000 iteration steps.
    const created = await call(http, 'post', eventsPath, editor, { ...MONDAY, start_date: '2018-01-31 10:00:00', end_date: '2018-01-31 11:00:00', recurrence: [LAST_WEEKDAY] });
    expectStatus(created, 201);
    const id = created.body.id as number;
    const moved = await call(http, 'patch', `${eventPath(id)}?scope=all`, editor, { start_date: '2018-01-31 12:00:00', end_date: '2018-01-31 13:00:00' });
    expectStatus(moved, 200);
    const listed = await call(http, 'get', `${eventPath(id)}/occurrences?start_date=2028-10-01&end_date=2028-10-31`);
    expectStatus(listed, 200);
    assert.deepEqual(
      listed.body.events.map((e: { start_date: string }) => e.start_date),
      ['2028-10-31 12:00:00'],
    );
  });

  it('extends an old series of the last weekday of every month on the rolling horizon without marking it', async () => {
    const created = await call(http, 'post', eventsPath, editor, { ...MONDAY, start_date: '2026-11-30 10:00:00', end_date: '2026-11-30 11:00:00', recurrence: [LAST_WEEKDAY] });
    expectStatus(created, 201);
    const id = created.body.id as number;
    const { db } = await openTestDatabase();
    // Ten years on: expanded from November 2026 to November 2038, about 67,000 iteration steps.
    const tenYearsLater = new Date(Date.parse(NOW) + 3652 * 86_400_000);
    assert.equal(await extendHorizons(db, tenYearsLater, { maxOccurrences: 1000, horizonDays: 730 }), 1);
    assert.equal((await readEvent(http, id, editor)).recurrence_horizon_error, undefined);
    const row = await db('event_series').where('id', id).first('materialised_until', 'horizon_error');
    assert.equal(row.materialised_until.slice(0, 7), '2038-11');
    assert.equal(row.horizon_error ?? null, null);
    const listed = await call(http, 'get', `${eventPath(id)}/occurrences?start_date=2038-10-01&end_date=2038-10-31`);
    assert.deepEqual(
      listed.body.events.map((e: { start_date: string }) => e.start_date),
      ['2038-10-29 10:00:00'],
    );
  });

  it(`takes at most ${MAX_DATES} RDATE and EXDATE values in all`, async () => {
    const day = (n: number) => new Date(Date.UTC(2028, 0, 1) + n * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
    const line = (from: number) => `EXDATE;VALUE=DATE:${Array.from({ length: 200 }, (_, i) => day(from + i)).join(',')}`;
    const lines = ['RRULE:FREQ=DAILY;COUNT=3', ...Array.from({ length: 6 }, (_, k) => line(k * 200))];
    const res = await call(http, 'post', eventsPath, contributor, { ...MONDAY, recurrence: lines });
    const data = expectError(res, 400, 'rest_invalid_param') as { params: Record<string, string> };
    assert.match(data.params.recurrence, new RegExp(`^recurrence\\[6\\] .*: at most ${MAX_DATES} RDATE and EXDATE values in all\\.$`));
    expectStatus(await call(http, 'post', eventsPath, contributor, { ...MONDAY, recurrence: lines.slice(0, 6) }), 201);
  });

  it('marks a series the rolling horizon cannot extend, shows why on its first event, skips it, and tries again once it is written', async () => {
    const created = await call(http, 'post', eventsPath, editor, { ...MONDAY, recurrence: ['RRULE:FREQ=WEEKLY'] });
    expectStatus(created, 201);
    const id = created.body.id as number;
    const { db } = await openTestDatabase();
    // A rule stored before the budget existed, behind the horizon.
    const slow = ['RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1MO;BYMONTHDAY=15,16,17,18,19,20,21'];
    await db('event_series')
      .where('id', id)
      .update({ rules: JSON.stringify(slow), materialised_until: '2027-01-10 00:00:00' });
    const versionOf = async () => Number((await db('posts').where('id', id).first('version')).version);
    const versionBefore = await versionOf();
    const settings = { maxOccurrences: 1000, horizonDays: 730 };
    const later = new Date(Date.parse(NOW) + 30 * 86_400_000);

    assert.equal(await extendHorizons(db, later, settings), 0);
    const marked = await readEvent(http, id, editor);
    assert.match(
      marked.recurrence_horizon_error,
      /^recurrence\[0\] "RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1MO;BYMONTHDAY=15,16,17,18,19,20,21": the rule needs too much work to find one occurrence \(more than 10000 iteration steps\)/,
    );
    assert.equal(await versionOf(), versionBefore + 1, 'the record changed: a new version');
    const second = await call(http, 'get', `${eventPath(id)}/occurrences?start_date=2027-01-01&end_date=2027-12-31`);
    assert.equal(second.body.events.length > 0, true);
    assert.equal(second.body.events.filter((e: { recurrence_horizon_error?: string }) => e.recurrence_horizon_error !== undefined).length, 1, 'only on the first event');
    const row = await db('event_series').where('id', id).first('materialised_until');
    assert.equal(row.materialised_until, '2027-01-10 00:00:00', 'the stored occurrences stay');

    // Skipped, not tried again on every run.
    assert.equal(await extendHorizons(db, later, settings), 0);

    // A write of the rules clears the mark.
    expectStatus(await call(http, 'patch', eventPath(id), editor, { recurrence: ['RRULE:FREQ=WEEKLY'] }), 200);
    assert.equal((await readEvent(http, id, editor)).recurrence_horizon_error, undefined);
  });
});

/** Inputs of the recurrence field ical.js reads too leniently, or loops on (docs/contract.md §14). */
const LENIENT_BASE = { title: 'Fuzz', start_date: '2027-03-07 10:00:00', end_date: '2027-03-07 11:00:00', timezone: 'Europe/Paris', status: 'publish' };

describe('recurring events: review of the recurrence field (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  const refused = [
    // ical.js's iterator never returns on a huge INTERVAL: the request hung for ever.
    'RRULE:FREQ=WEEKLY;INTERVAL=99999999999999999999;COUNT=3',
    // ical.js reads INTERVAL=0 as 1.
    'RRULE:FREQ=WEEKLY;INTERVAL=0;COUNT=3',
    'RRULE:FREQ=YEARLY;INTERVAL=1001;COUNT=3',
    // parseInt leniency: these were stored as COUNT=3, COUNT=1, COUNT=3.
    'RRULE:FREQ=DAILY;COUNT=3=4',
    'RRULE:FREQ=DAILY;COUNT=1e3',
    'RRULE:FREQ=DAILY;COUNT= 3',
    // A line break smuggled a second line in: stored and answered as one "line".
    'RRULE:FREQ=WEEKLY;COUNT=2\r\nRDATE:20280101T100000',
    'RRULE:FREQ=DAILY;COUNT=3\u0000',
  ];
  for (const line of refused) {
    it(`refuses ${JSON.stringify(line)} with 400 naming the line, storing nothing`, async () => {
      const before = await tableCounts();
      const res = await call(http, 'post', eventsPath, users.editor, { ...LENIENT_BASE, recurrence: ['RDATE:20280101T100000', line] });
      expectError(res, 400, 'rest_invalid_param');
      assert.match(String((res.body as { data: { params: { recurrence: string } } }).data.params.recurrence), /^recurrence\[1\] /);
      await expectNothingStored(before);
    });
  }

  it('still takes INTERVAL=1000', async () => {
    const res = await call(http, 'post', eventsPath, users.editor, { ...LENIENT_BASE, recurrence: ['RRULE:FREQ=DAILY;INTERVAL=1000;COUNT=2'] });
    assert.equal(res.status, 201);
  });
});
