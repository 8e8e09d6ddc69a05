import assert from 'node:assert/strict';
import { createUsers, type TestUser } from '../helpers/app.js';
import { expectError } from '../helpers/assertions.js';
import { call, eventsApp, eventsPath, expectNothingStored, tableCounts, type Http } from '../helpers/events.js';
import type { Role } from '../../src/auth/capabilities.js';

/** Review findings on the recurrence field (docs/contract.md §14): inputs ical.js reads too leniently, or loops on. */

const BASE = { title: 'Fuzz', start_date: '2027-03-07 10:00:00', end_date: '2027-03-07 11:00:00', timezone: 'Europe/Paris', status: 'publish' };

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
      const res = await call(http, 'post', eventsPath, users.editor, { ...BASE, recurrence: ['RDATE:20280101T100000', line] });
      expectError(res, 400, 'rest_invalid_param');
      assert.match(String((res.body as { data: { params: { recurrence: string } } }).data.params.recurrence), /^recurrence\[1\] /);
      await expectNothingStored(before);
    });
  }

  it('still takes INTERVAL=1000', async () => {
    const res = await call(http, 'post', eventsPath, users.editor, { ...BASE, recurrence: ['RRULE:FREQ=DAILY;INTERVAL=1000;COUNT=2'] });
    assert.equal(res.status, 201);
  });
});

describe('recurring events: concurrent whole-series edits (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  it('leave the occurrences as the stored rules and first event give them, whatever the order of the commits', async () => {
    const created = await call(http, 'post', eventsPath, users.editor, { ...BASE, title: 'Concurrent series', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
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
