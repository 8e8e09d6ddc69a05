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
