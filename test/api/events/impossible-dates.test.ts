import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { badParams, call, createEvent, eventBody, eventPath, eventsApp, eventsPath, expectNothingStored, listEvents, tableCounts, type Http } from '../../helpers/events.js';

/**
 * Days and times that do not exist are 400 naming the parameter, on every date input: PHP's
 * strtotime (and so the plugin) rolls them over (`2027-02-30` → 2 March), which turns a typo into a
 * different day. A deliberate difference, listed in docs/api-guide.md "Deliberate differences from the plugin".
 */
const IMPOSSIBLE = ['2027-02-30', '2027-02-29 10:00:00', '2027-13-01', '2027-03-01 24:30', '2027-03-01 10:60:00', '2027-04-31T10:00:00+02:00'];

describe('impossible calendar dates are refused, not rolled over', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  it('on every date filter of GET /events, with and without strict_dates', async () => {
    for (const name of ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after']) {
      for (const strict of ['false', 'true']) {
        for (const value of IMPOSSIBLE) {
          const res = await listEvents(http, { [name]: value, strict_dates: strict });
          assert.deepEqual(badParams(res), [name], `${name}=${value} strict=${strict}`);
        }
      }
      // The same day that exists is fine.
      expectStatus(await listEvents(http, { [name]: '2027-02-28' }), 200);
    }
  });

  it('on start_date and end_date of an event create and update, storing nothing', async () => {
    const event = await createEvent(http, users.editor);
    const before = await tableCounts();
    for (const name of ['start_date', 'end_date']) {
      for (const value of IMPOSSIBLE) {
        assert.deepEqual(badParams(await call(http, 'post', eventsPath, users.editor, eventBody({ [name]: value }))), [name], `create ${name}=${value}`);
        assert.deepEqual(badParams(await call(http, 'patch', eventPath(event.id), users.editor, { [name]: value })), [name], `update ${name}=${value}`);
      }
    }
    await expectNothingStored(before);
    const after = await call(http, 'get', eventPath(event.id));
    assert.equal(after.body.start_date, event.start_date);
  });

  it('on the publication date and date_utc of events, venues and organizers', async () => {
    const targets: Array<[string, Record<string, unknown>]> = [
      [eventsPath, eventBody()],
      [`${NS}/venues`, { venue: 'Hall' }],
      [`${NS}/organizers`, { organizer: 'Ann' }],
    ];
    const before = await tableCounts();
    for (const [path, body] of targets) {
      for (const name of ['date', 'date_utc']) {
        for (const value of IMPOSSIBLE) {
          assert.deepEqual(badParams(await call(http, 'post', path, users.editor, { ...body, [name]: value })), [name], `${path} ${name}=${value}`);
        }
      }
    }
    await expectNothingStored(before);
  });

  it('still reads a leap day in a leap year and the last second of a day', async () => {
    const event = await createEvent(http, users.editor, { start_date: '2028-02-29 23:59:59', end_date: '2028-03-01 00:00' });
    assert.equal(event.start_date, '2028-02-29 23:59:59');
    assert.equal(event.end_date, '2028-03-01 00:00:00');
  });
});
