import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, createEvent, eventsApp, readEvent, type Http, type Rec } from '../helpers/events.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { MIGRATION_TOOLS } from '../../src/db/migrate.js';
import { up as fillTimeForms } from '../../src/db/migrations/20261209000101_fill_event_time_forms.js';
import { timeFormsOnRead } from '../../src/dates/event-times.js';
import { wrongTimeForms } from '../helpers/time-forms.js';
import { text as utf8Text } from '../helpers/calendar-instances.js';

/**
 * The forms of an event's times stored when written (src/dates/event-times.ts `TimeForms`,
 * docs/architecture.md "Rendered texts"): `timezone_abbr` and the `json_ld`'s `startDate` and
 * `endDate`, and the days pages write, are read as stored, never formatted on a read; every write path that writes times
 * stores them, in the event's zone, occurrence by occurrence across a DST change.
 */

const CLOCK = '2030-01-20T12:00:00Z';

describe('time forms stored when written (src/dates/event-times.ts)', function () {
  this.timeout(60_000);
  let http: Http;
  let db: Knex;
  let users: Record<string, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp({}, CLOCK));
    ({ db } = await openTestDatabase());
    users = await createUsers();
  });

  const patch = async (path: string, body: object) => {
    const res = await call(http, 'patch', `${NS}/${path}`, users.administrator, body);
    expectStatus(res, 200);
    return res.body as Rec;
  };

  it('every write path stores the forms: create, dates, zone and all-day updates, series, their edits and splits', async () => {
    const single = await createEvent(http, users.administrator, { timezone: 'America/Chicago', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' });
    assert.equal(single.timezone_abbr, 'CDT');
    assert.equal((await readEvent(http, single.id)).json_ld.startDate, '2030-05-01T10:00:00-05:00');
    assert.deepEqual(await wrongTimeForms(db), []);

    const moved = await patch(`events/${single.id}`, { timezone: 'Europe/Paris' });
    assert.equal(moved.timezone_abbr, 'CEST', 'a new zone alone gives new forms');
    await patch(`events/${single.id}`, { start_date: '2030-12-01 09:00:00', end_date: '2030-12-01 10:00:00' });
    assert.equal((await readEvent(http, single.id)).timezone_abbr, 'CET', 'new dates give new forms');
    await patch(`events/${single.id}`, { all_day: true });
    assert.equal((await readEvent(http, single.id)).json_ld.endDate, '2030-12-01T23:59:59+01:00');
    assert.deepEqual(await wrongTimeForms(db), []);

    // Weekly from February across the US change to summer time (10 March 2030): each occurrence its own abbreviation.
    const series = await createEvent(http, users.administrator, {
      timezone: 'America/New_York',
      start_date: '2030-02-24 18:00:00',
      end_date: '2030-02-24 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    const occurrences = await db('events').where('series_id', series.id).orderBy('start_local').select('post_id', 'timezone_abbr');
    assert.deepEqual(
      occurrences.map((o: Record<string, unknown>) => o.timezone_abbr),
      ['EST', 'EST', 'EDT', 'EDT', 'EDT', 'EDT'],
    );
    assert.deepEqual(await wrongTimeForms(db), []);
    const third = Number(occurrences[2].post_id);
    assert.equal((await readEvent(http, third)).json_ld.startDate, '2030-03-10T18:00:00-04:00');

    await patch(`events/${series.id}?scope=all`, { start_date: '2030-02-24 20:00:00', end_date: '2030-02-24 21:30:00' });
    assert.deepEqual(await wrongTimeForms(db), []);
    await patch(`events/${series.id}?scope=all`, { timezone: 'Europe/London' });
    // Every occurrence in the new zone: new UTC times, not only new forms (they were left in New York's).
    const london = await db('events').where('series_id', series.id).orderBy('start_local').select('start_utc', 'timezone_abbr');
    assert.deepEqual(london[3], { start_utc: '2030-03-17 20:00:00', timezone_abbr: 'GMT' });
    assert.deepEqual(london[5], { start_utc: '2030-03-31 19:00:00', timezone_abbr: 'BST' });
    assert.deepEqual(await wrongTimeForms(db), []);
    await patch(`events/${third}?scope=following`, { start_date: '2030-03-10 08:00:00', end_date: '2030-03-10 09:00:00' });
    assert.deepEqual(await wrongTimeForms(db), []);
    await patch(`events/${third}`, { end_date: '2030-03-10 11:00:00' });
    assert.deepEqual(await wrongTimeForms(db), []);
  });

  it('reads show the stored forms and format none: markers written into the columns come back in records and json_ld', async () => {
    const event = await createEvent(http, users.administrator, { timezone: 'America/Chicago' });
    await db('events')
      .where({ post_id: event.id })
      .update({ timezone_abbr: 'ABBR-MARK', start_iso: 'START-MARK', end_iso: 'END-MARK', start_day: 'SDAY-MARK', end_day: 'EDAY-MARK' });
    // A new version, as a write gives it: the related-row cache keeps rows by version (src/repositories/related-row-cache.ts).
    await db('posts')
      .where({ id: event.id })
      .update({ version: db.raw('version + 1') });
    await bumpDataVersion(db);
    timeFormsOnRead.count = 0;
    const record = await readEvent(http, event.id);
    assert.equal(record.timezone_abbr, 'ABBR-MARK');
    assert.equal(record.json_ld.startDate, 'START-MARK');
    assert.equal(record.json_ld.endDate, 'END-MARK');
    const list = await call(http, 'get', `${NS}/events?start_date=2030-01-01`);
    expectStatus(list, 200);
    assert.equal((list.body as Rec).events[0].timezone_abbr, 'ABBR-MARK');
    for (const path of [`/event/${event.slug}/`, '/events/']) {
      const page = await utf8Text(http().get(path));
      expectStatus(page, 200);
      assert.match(page.body as string, />SDAY-MARK, 10:00 – 12:00 ABBR-MARK<\/time>/, path);
    }
    assert.equal(timeFormsOnRead.count, 0, 'no read made a form');
  });

  it('a row stored without its forms reads as before, its forms made on the read; migration 20261209000101 fills them', async () => {
    const event = await createEvent(http, users.administrator, { timezone: 'Asia/Kolkata', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' });
    const before = await readEvent(http, event.id);
    await db('events').update({ timezone_abbr: null, start_iso: null, end_iso: null });
    await db('posts')
      .where({ id: event.id })
      .update({ version: db.raw('version + 1') });
    await bumpDataVersion(db);
    assert.notDeepEqual(await wrongTimeForms(db), []);
    timeFormsOnRead.count = 0;
    const after = await readEvent(http, event.id);
    assert.ok(timeFormsOnRead.count > 0);
    assert.equal(after.timezone_abbr, before.timezone_abbr);
    assert.equal(after.json_ld.startDate, '2030-05-01T10:00:00+05:30');
    assert.deepEqual(after.json_ld, before.json_ld);
    await fillTimeForms(db, MIGRATION_TOOLS);
    assert.deepEqual(await wrongTimeForms(db), []);
  });
});
