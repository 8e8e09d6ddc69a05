import assert from 'node:assert/strict';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { call, eventsApp, eventsPath, type Http, type Rec } from '../helpers/events.js';
import type { Role } from '../../src/auth/capabilities.js';
import { instancesOf, text } from '../helpers/calendar-instances.js';

/**
 * Series in the iCalendar feeds (docs/contract.md §14): one VEVENT with the rules per series, one with
 * RECURRENCE-ID per exception, read back with ical.js (an independent parser) and expanded: the
 * instances it gives are the occurrences the list gives.
 */

describe('recurring events in the iCalendar feeds (docs/contract.md §14)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  it('writes one VEVENT with the rules per series and one with RECURRENCE-ID per exception; ical.js expands them into the listed occurrences', async () => {
    const created = await call(http, 'post', eventsPath, users.editor, {
      title: 'Class',
      start_date: '2027-03-16 18:30:00',
      end_date: '2027-03-16 20:00:00',
      timezone: 'America/New_York',
      status: 'publish',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270415T235959Z', 'EXDATE;TZID=America/New_York:20270325T183000', 'RDATE:20270420T223000Z'],
    });
    expectStatus(created, 201);
    const first = created.body as Rec;
    const occurrences = (await call(http, 'get', `${NS}/events/${first.id}/occurrences?start_date=2027-03-01&end_date=2027-12-31&per_page=50`)).body.events as Rec[];
    // One occurrence moves (an exception), one is deleted (an EXDATE), one single event beside.
    expectStatus(
      await call(http, 'patch', `${NS}/events/${occurrences[3].id}`, users.editor, { title: 'Class (moved)', start_date: '2027-03-31 19:00:00', end_date: '2027-03-31 20:30:00' }),
      200,
    );
    expectStatus(await call(http, 'delete', `${NS}/events/${occurrences[5].id}`, users.editor), 200);
    expectStatus(
      await call(http, 'post', eventsPath, users.editor, { title: 'Single', start_date: '2027-03-20 10:00:00', end_date: '2027-03-20 11:00:00', status: 'publish' }),
      201,
    );

    const feed = await text(call(http, 'get', `${NS}/events.ics?start_date=2027-03-01&end_date=2027-12-31`));
    expectStatus(feed, 200);
    const body = feed.body as string;
    assert.equal(body.match(/BEGIN:VEVENT/g)?.length, 3, 'the series, its exception, the single event');
    assert.match(body, /RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270415T235959Z\r\n/);
    assert.match(body, /EXDATE;TZID=America\/New_York:20270325T183000\r\n/);
    assert.match(body, /EXDATE;TZID=America\/New_York:20270406T183000\r\n/);
    assert.match(body, /RDATE;TZID=America\/New_York:20270420T183000\r\n/);
    assert.match(body, /RECURRENCE-ID;TZID=America\/New_York:20270330T183000\r\n/);

    const listed = (await call(http, 'get', `${eventsPath}?start_date=2027-03-01&end_date=2027-12-31&per_page=50`)).body.events as Rec[];
    const fromFeed = instancesOf(body, '2027-12-31T23:59:59');
    assert.deepEqual(
      fromFeed.map((i) => [i.summary, i.local, i.utc]),
      listed.map((e) => [e.title, e.start_date, `${e.utc_start_date.replace(' ', 'T')}Z`]).sort((a, b) => a[2].localeCompare(b[2]) || a[0].localeCompare(b[0])),
    );
    assert.ok(fromFeed.filter((i) => i.summary.startsWith('Class')).every((i) => i.uid === `${first.id}@api.test`));
  });

  it('writes the series from its first event also when the window starts later; an occurrence alone is an event of its own', async () => {
    const created = await call(http, 'post', eventsPath, users.editor, {
      title: 'Market',
      start_date: '2027-03-06',
      end_date: '2027-03-06',
      all_day: true,
      timezone: 'Europe/Paris',
      status: 'publish',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE;VALUE=DATE:20270313'],
    });
    expectStatus(created, 201);
    const later = await text(call(http, 'get', `${NS}/events.ics?start_date=2027-03-25&end_date=2027-12-31`));
    assert.match(later.body, /DTSTART;VALUE=DATE:20270306\r\n/);
    assert.match(later.body, /RRULE:FREQ=WEEKLY;COUNT=5\r\n/);
    assert.match(later.body, /EXDATE;VALUE=DATE:20270313\r\n/);
    assert.equal(later.body.match(/BEGIN:VEVENT/g)?.length, 1);

    const occurrences = (await call(http, 'get', `${NS}/events/${created.body.id}/occurrences?start_date=2027-03-01&end_date=2027-12-31`)).body.events as Rec[];
    const single = await text(call(http, 'get', `${NS}/events/${occurrences[1].id}.ics`));
    expectStatus(single, 200);
    assert.match(single.body, new RegExp(`UID:${occurrences[1].id}@api.test\\r\\n`));
    assert.match(single.body, /DTSTART;VALUE=DATE:20270320\r\n/);
    assert.doesNotMatch(single.body, /RRULE|RECURRENCE-ID/);
    const master = await text(call(http, 'get', `${NS}/events/${created.body.id}.ics`));
    assert.match(master.body, /RRULE:FREQ=WEEKLY;COUNT=5\r\n/);
    assert.deepEqual(
      instancesOf(master.body, '2027-12-31T23:59:59').map((i) => i.local.slice(0, 10)),
      occurrences.map((e) => e.start_date.slice(0, 10)),
    );
  });
});
