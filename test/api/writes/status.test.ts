import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { badParams, call, createEvent, eventBody, eventsApp, expectNothingStored, tableCounts, type Http } from '../../helpers/events.js';

/**
 * A write's `status` is one of publish, future, draft, pending, private; the plugin stores any
 * registered status (a deliberate difference, docs/api-guide.md "Deliberate differences from the plugin"): records are trashed by DELETE
 * and restored by setting one of those.
 */
describe('write status: only the five publication statuses', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  it('refuses any other status on create and update of events, venues and organizers, storing nothing', async () => {
    const event = await createEvent(http, users.administrator);
    const venue = (await call(http, 'post', `${NS}/venues`, users.administrator, { venue: 'Hall' })).body;
    const organizer = (await call(http, 'post', `${NS}/organizers`, users.administrator, { organizer: 'Ann' })).body;
    const before = await tableCounts();
    const writes: Array<[string, string, Record<string, unknown>]> = [
      ['post', `${NS}/events`, eventBody()],
      ['patch', `${NS}/events/${event.id}`, {}],
      ['post', `${NS}/venues`, { venue: 'Club' }],
      ['put', `${NS}/venues/${venue.id}`, {}],
      ['post', `${NS}/organizers`, { organizer: 'Bob' }],
      ['post', `${NS}/organizers/${organizer.id}`, {}],
    ];
    for (const [method, path, body] of writes) {
      for (const status of ['trash', 'auto-draft', 'inherit', 'PUBLISH', 'any']) {
        const res = await call(http, method as 'post', path, users.administrator, { ...body, status });
        assert.deepEqual(badParams(res), ['status'], `${method} ${path} status=${status}`);
      }
    }
    await expectNothingStored(before);
    for (const status of ['publish', 'future', 'draft', 'pending', 'private']) {
      const res = await call(http, 'patch', `${NS}/events/${event.id}`, users.administrator, { status });
      assert.equal(res.status, 200, `status=${status}: ${JSON.stringify(res.body)}`);
    }
  });
});
