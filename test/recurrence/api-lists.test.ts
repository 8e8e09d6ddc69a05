import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectError, expectStatus } from '../helpers/assertions.js';
import { call, eventsApp, eventsPath, listEvents, pathOf, type Http, type Rec } from '../helpers/events.js';
import type { Role } from '../../src/auth/capabilities.js';

/** A series' occurrences: `GET /events/{id}/occurrences` and `hide_subsequent_recurrences` (docs/contract.md §14). */

const WEEKLY = {
  title: 'Choir',
  start_date: '2027-03-02 19:00:00',
  end_date: '2027-03-02 21:00:00',
  timezone: 'Europe/Paris',
  status: 'publish',
  recurrence: ['RRULE:FREQ=WEEKLY;COUNT=8'],
};

describe('recurring events: listing a series (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;
  let first: Rec;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
    const res = await call(http, 'post', eventsPath, users.editor, WEEKLY);
    expectStatus(res, 201);
    first = res.body;
  });

  const occurrences = (id: number, query = '', as?: TestUser) => call(http, 'get', `${NS}/events/${id}/occurrences${query ? `?${query}` : ''}`, as);

  it('lists the whole series from any of its occurrences, paged like /events', async () => {
    const all = await occurrences(first.id, 'start_date=2027-03-01&end_date=2027-12-31&per_page=3');
    expectStatus(all, 200);
    assert.equal(all.body.total, 8);
    assert.equal(all.body.total_pages, 3);
    assert.equal(all.headers['x-wp-total'], '8');
    assert.deepEqual(
      all.body.events.map((e: Rec) => e.start_date),
      ['2027-03-02 19:00:00', '2027-03-09 19:00:00', '2027-03-16 19:00:00'],
    );
    assert.ok(all.body.rest_url.startsWith(`http://api.test${NS}/events/${first.id}/occurrences/?`));
    const next = await call(http, 'get', pathOf(all.body.next_rest_url));
    expectStatus(next, 200);
    assert.equal(next.body.events[0].start_date, '2027-03-23 19:00:00');
    const fromLater = await occurrences(all.body.events[2].id, 'start_date=2027-03-01&end_date=2027-12-31&per_page=20');
    assert.deepEqual(
      fromLater.body.events.map((e: Rec) => e.id),
      (await occurrences(first.id, 'start_date=2027-03-01&end_date=2027-12-31&per_page=20')).body.events.map((e: Rec) => e.id),
    );
  });

  it('applies the date window, and answers a single event as its own only occurrence', async () => {
    const window = await occurrences(first.id, 'start_date=2027-03-10&end_date=2027-03-31');
    assert.deepEqual(
      window.body.events.map((e: Rec) => e.start_date.slice(0, 10)),
      ['2027-03-16', '2027-03-23', '2027-03-30'],
    );
    const single = await call(http, 'post', eventsPath, users.editor, { title: 'Once', start_date: '2027-03-05 10:00:00', end_date: '2027-03-05 11:00:00', status: 'publish' });
    const alone = await occurrences(single.body.id, 'start_date=2027-03-01&end_date=2027-12-31');
    expectStatus(alone, 200);
    assert.deepEqual(
      alone.body.events.map((e: Rec) => e.id),
      [single.body.id],
    );
  });

  it('reads the id as GET /events/{id} does: 404, 400 for another type, 403 for what the caller may not read', async () => {
    expectError(await occurrences(999999), 404, 'rest-event-not-found');
    const venue = await call(http, 'post', `${NS}/venues`, users.editor, { venue: 'Hall', status: 'publish' });
    expectError(await occurrences(venue.body.id), 400, 'rest-invalid-event-id');
    const draft = await call(http, 'post', eventsPath, users.editor, { ...WEEKLY, status: 'draft' });
    expectError(await occurrences(draft.body.id), 403, 'event-not-accessible');
    expectStatus(await occurrences(draft.body.id, '', users.editor), 200);
    expectError(await occurrences(first.id, 'start_date=someday'), 400, 'rest_invalid_param');
    expectError(await occurrences(first.id, 'start_date=2027-03-01&page=9'), 404, 'event-archive-page-not-found');
    const wrong = await http().get(`${NS}/events/${first.id}/occurrences`).set('Authorization', 'Bearer not-a-secret');
    expectError(wrong, 401, 'rest_invalid_credentials');
  });

  it('answers If-None-Match with 304 while the series is unchanged', async () => {
    const res = await occurrences(first.id, 'start_date=2027-03-01');
    assert.ok(res.headers.etag);
    const again = await http().get(`${NS}/events/${first.id}/occurrences?start_date=2027-03-01`).set('If-None-Match', res.headers.etag);
    assert.equal(again.status, 304);
  });

  it('lists only the first occurrence of each series inside the window with hide_subsequent_recurrences', async () => {
    await call(http, 'post', eventsPath, users.editor, { title: 'Single', start_date: '2027-03-20 10:00:00', end_date: '2027-03-20 11:00:00', status: 'publish' });
    const hidden = await listEvents(http, { start_date: '2027-03-10', end_date: '2027-04-30', hide_subsequent_recurrences: 'true' });
    expectStatus(hidden, 200);
    assert.deepEqual(
      hidden.body.events.map((e: Rec) => [e.title, e.start_date]),
      [
        ['Choir', '2027-03-16 19:00:00'],
        ['Single', '2027-03-20 10:00:00'],
      ],
    );
    assert.equal(hidden.body.total, 2);
    assert.match(hidden.body.rest_url, /hide_subsequent_recurrences=true/);
    const shown = await listEvents(http, { start_date: '2027-03-10', end_date: '2027-04-30', hide_subsequent_recurrences: 'false' });
    assert.equal(shown.body.total, 7);
  });
});
