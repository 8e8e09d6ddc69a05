import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { bumpDataVersion } from '../../../src/db/data-version.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { call, createEvent, eventPath, eventsApp, expectNothingStored, readEvent, tableCounts, type Http } from '../../helpers/events.js';

/**
 * The years an event may lie in (docs/limits.md "Time-zone blocks in iCalendar feeds"): start and
 * end within 100 years of today, a 400 naming the field past that; events stored outside those
 * years by other writers still give a feed whose VTIMEZONEs are bounded, and correct where they reach.
 */

/** The apps' clock (test/helpers/events.ts NOW): the years allowed run from 1926-11-21 to 2126-11-21. */
const CLOCK = '2026-11-21T21:18:07Z';

/** supertest does not buffer `text/calendar`: read it as text. */
async function icsText(http: Http, path: string, as?: TestUser): Promise<string> {
  const res = await call(http, 'get', path, as)
    .buffer(true)
    .parse((stream, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
  expectStatus(res, 200);
  return res.body as string;
}

/** The UTC years a VTIMEZONE's observances start in. */
function observanceYears(zone: ICAL.Component): number[] {
  return [...zone.getAllSubcomponents('standard'), ...zone.getAllSubcomponents('daylight')].map((part) => (part.getFirstPropertyValue('dtstart') as ICAL.Time).year);
}

/** Stores an event's times behind the service's back, as another writer (or older data) may have. */
async function storeTimes(id: number, zone: string, startLocal: string, endLocal: string): Promise<void> {
  const { db } = await openTestDatabase();
  const utc = (local: string) => DateTime.fromSQL(local, { zone }).toUTC().toFormat('yyyy-MM-dd HH:mm:ss');
  await db('events')
    .where({ post_id: id })
    .update({ timezone: zone, start_local: startLocal, end_local: endLocal, start_utc: utc(startLocal), end_utc: utc(endLocal) });
  await bumpDataVersion(db);
}

describe('the years an event may lie in', () => {
  let http: Http;
  let users: Awaited<ReturnType<typeof createUsers>>;

  beforeEach(async () => {
    ({ http } = await eventsApp({}, CLOCK));
    users = await createUsers();
  });

  it('refuses a start or end more than 100 years from today with 400 naming the field, and stores nothing', async () => {
    const before = await tableCounts();
    const res = await call(http, 'post', `${NS}/events`, users.contributor, {
      title: 'Forever',
      timezone: 'Europe/Berlin',
      start_date: '1000-01-02 00:00:00',
      end_date: '3500-12-31 00:00:00',
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.deepEqual(res.body.data.params, {
      start_date: 'start_date must lie within 100 years of today (from 1926-11-21 to 2126-11-21).',
      end_date: 'end_date must lie within 100 years of today (from 1926-11-21 to 2126-11-21).',
    });
    // Relative phrases and timestamps are held to the same years.
    for (const [field, value] of [
      ['end_date', '+101 years'],
      ['end_date', String(Date.UTC(2127, 0, 1) / 1000)],
      ['start_date', '1926-11-21 00:00:00'],
    ] as const) {
      const body = { title: 'Far', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', [field]: value };
      if (field === 'start_date') body.end_date = '2030-05-01 12:00:00';
      const refused = await call(http, 'post', `${NS}/events`, users.administrator, body);
      assert.equal(refused.status, 400, `${field}=${value}: ${JSON.stringify(refused.body)}`);
      assert.deepEqual(Object.keys(refused.body.data.params), [field], `${field}=${value}`);
    }
    await expectNothingStored(before);
  });

  it('accepts the whole century either way, and checks only the dates an update sends', async () => {
    const edges = await createEvent(http, users.author, { start_date: '1926-11-22 00:00:00', end_date: '2126-11-21 00:00:00', timezone: 'UTC' });
    assert.deepEqual([edges.start_date, edges.end_date], ['1926-11-22 00:00:00', '2126-11-21 00:00:00']);

    const event = await createEvent(http, users.author);
    const refused = await call(http, 'patch', eventPath(event.id), users.author, { end_date: '2200-01-01 00:00:00' });
    assert.equal(refused.status, 400);
    assert.deepEqual(Object.keys(refused.body.data.params), ['end_date']);
    assert.equal((await readEvent(http, event.id, users.author)).end_date, event.end_date);

    // Older data outside those years can still be edited in its other fields.
    await storeTimes(event.id, 'Europe/Berlin', '1850-06-01 10:00:00', '1850-06-01 12:00:00');
    const renamed = await call(http, 'patch', eventPath(event.id), users.author, { title: 'Renamed' });
    expectStatus(renamed, 200);
    assert.equal(renamed.body.start_date, '1850-06-01 10:00:00');
  });

  it('writes a small, parseable iCalendar for an event stored across millennia: the years of its start and end only', async () => {
    const old = await createEvent(http, users.administrator, { title: 'Old', status: 'publish' });
    const near = await createEvent(http, users.administrator, { title: 'Near', status: 'publish', timezone: 'Europe/Berlin' });
    await storeTimes(old.id, 'Europe/Berlin', '1000-01-02 00:00:00', '3500-12-31 00:00:00');

    const single = new ICAL.Component(ICAL.parse(await icsText(http, `${NS}/events/${old.id}.ics`)) as unknown[]);
    const [zone] = single.getAllSubcomponents('vtimezone');
    assert.ok(zone);
    // 1000: local mean time all year; 3500: its start, summer time and back.
    assert.deepEqual(observanceYears(zone).sort(), [1000, 3500, 3500, 3500]);

    // The feed: both events' years in the one Berlin VTIMEZONE; every time converts as luxon converted it when stored.
    const feed = new ICAL.Component(ICAL.parse(await icsText(http, `${NS}/events.ics?start_date=1000-01-01&end_date=3501-01-01`)) as unknown[]);
    assert.equal(feed.getAllSubcomponents('vtimezone').length, 1);
    assert.deepEqual(observanceYears(feed.getFirstSubcomponent('vtimezone')!).sort(), [1000, 2030, 2030, 2030, 3500, 3500, 3500]);
    ICAL.TimezoneService.reset();
    for (const vtimezone of feed.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(vtimezone);
    const events = feed.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
    assert.deepEqual(events.map((event) => event.summary).sort(), ['Near', 'Old']);
    const unix = (utc: string) => Date.parse(`${utc.replace(' ', 'T')}Z`) / 1000;
    for (const { id, title } of [
      { id: near.id, title: 'Near' },
      { id: old.id, title: 'Old' },
    ]) {
      const stored = await readEvent(http, id);
      const vevent = events.find((event) => event.summary === title)!;
      // ical.js reads UTC offsets to the minute: Berlin's local mean time until 1893 is +00:53:28 (TZOFFSETTO:+005328).
      assert.ok(Math.abs(vevent.startDate.toUnixTime() - unix(stored.utc_start_date)) < 60, `${title} start`);
      assert.equal(vevent.endDate.toUnixTime(), unix(stored.utc_end_date), `${title} end`);
    }
    assert.equal((await readEvent(http, old.id)).utc_start_date, '1000-01-01 23:06:32');
    assert.match(single.toString(), /TZOFFSETTO:\+005328/);
  });
});
