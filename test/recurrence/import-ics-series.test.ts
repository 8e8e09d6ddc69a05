import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createUser, NS, testApp, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { runImport, type ImportReport } from '../../src/importing/engine.js';
import { icsSource } from '../../src/importing/ics.js';
import { projectRoot } from '../../src/openapi/document.js';

/**
 * Recurring events from iCalendar files (docs/importing.md "Importing a calendar file"): changed
 * occurrences (RECURRENCE-ID overrides, as Google Calendar, Outlook/Exchange and Apple Calendar
 * write them: test/fixtures/ics/*-overrides.ics) become exceptions of the imported series, a
 * cancelled one an EXDATE; a series changed at its source is rewritten; images from ATTACH.
 */

const fixture = (name: string) => fs.readFileSync(path.join(projectRoot(), 'test/fixtures/ics', `${name}.ics`), 'utf8');

async function importIcs(text: string, location: string, siteTimezone = 'UTC'): Promise<ImportReport> {
  const { db } = await openTestDatabase();
  return runImport(db, icsSource(text, { location, siteTimezone }), { siteTimezone, role: 'author' });
}

type Event = Record<string, any>;

/** Every published event of the list (start order), and the occurrences of one series. */
async function listed(admin: TestUser): Promise<Event[]> {
  const { http } = await testApp();
  const list = await http().get(`${NS}/events?start_date=2000-01-01&end_date=2100-01-01&per_page=100`).set('Authorization', admin.authorization);
  expectStatus(list, 200);
  return list.body.events;
}

const row = (e: Event) => [e.start_date, e.title];

describe('import-ics: recurring events and their changed occurrences', () => {
  let admin: TestUser;

  beforeEach(async () => {
    admin = await createUser('administrator', 'local-admin');
  });

  it('Google Calendar: overrides before and after the master, in its zone and in UTC, cancelled, matching no occurrence, and one without its series; the same file again changes nothing', async () => {
    const google = fixture('google-overrides');
    const report = await importIcs(google, 'google-overrides.ics');
    assert.deepEqual(report.failures, []);
    assert.deepEqual(
      report.skipped.map((s) => [s.sourceId, s.reason.replace(/horizon \d{4}-\d\d-\d\d/, 'horizon DAY')]),
      [
        [
          '7reading3k2j1h0g9f8e7d6c5b@google.com RECURRENCE-ID 2027-06-30T19:00:00',
          'its RECURRENCE-ID (2027-06-30 19:00:00) is no occurrence of the series here (not in its rules, or past the stored horizon DAY): left out.',
        ],
      ],
    );
    assert.deepEqual([report.counts.event.created, report.counts.venue.created], [2, 2]);
    const events = await listed(admin);
    assert.deepEqual(events.map(row), [
      ['2027-03-31 19:00:00', 'Reading group: Middlemarch'],
      ['2027-04-07 19:00:00', 'Reading group: Middlemarch'],
      ['2027-04-14 19:00:00', 'Reading group: Middlemarch (garden room)'],
      ['2027-04-23 18:00:00', 'Reading group: Middlemarch (Friday this week)'],
      ['2027-05-05 19:00:00', 'Reading group: Middlemarch'],
      ['2027-05-12 17:00:00', 'Reading group: Middlemarch (last evening, in UTC)'],
      ['2027-06-10 10:00:00', 'Board call (one instance you were invited to)'],
    ]);
    const [first, second, garden, friday] = events;
    assert.ok(events.slice(0, 6).every((e) => e.series_id === first.id));
    assert.equal(garden.venue.venue, 'Garden room, Library');
    assert.equal(second.venue.venue, 'Reading room, Library');
    assert.match(garden.description, /^(<p>)?This week in the garden room\.(<\/p>)?$/);
    assert.match(second.description, /^(<p>)?Six evenings, one novel\.(<\/p>)?$/);
    assert.equal(first.image.url, 'https://images.example.org/middlemarch/cover', 'ATTACH;FMTTYPE=image/jpeg');
    assert.equal(second.image.url, 'https://images.example.org/middlemarch/cover');
    assert.equal(friday.image, false, 'an override replaces every property: its ATTACH is a PDF');
    assert.equal(events[6].image.url, 'https://images.example.org/board/call.png', 'a URL ending in an image extension');
    assert.equal(events[6].series_id, null);
    const { http } = await testApp();
    const ics = (await http().get(`${NS}/events/${first.id}/ics`)).text;
    assert.match(ics, /EXDATE;TZID=Europe\/Berlin:20270428T190000\r\n/, 'the cancelled occurrence');

    const again = await importIcs(google, 'google-overrides.ics');
    assert.deepEqual([again.counts.event.unchanged, again.counts.event.created, again.counts.event.updated], [2, 0, 0]);
    assert.deepEqual(
      (await listed(admin)).map((e) => [e.id, ...row(e)]),
      events.map((e) => [e.id, ...row(e)]),
    );
  });

  it('Google Calendar: a series changed at its source (a later start, one more week, an override gone, a new one) is rewritten, its occurrences keeping their ids', async () => {
    const google = fixture('google-overrides');
    await importIcs(google, 'google-overrides.ics');
    const before = await listed(admin);
    const changed = google
      .replace(/T190000/g, 'T193000')
      .replace(/T203000/g, 'T210000')
      .replace('RECURRENCE-ID:20270512T170000Z', 'RECURRENCE-ID:20270512T173000Z')
      .replace('COUNT=7', 'COUNT=8')
      .replace('LAST-MODIFIED:20261105T090000Z', 'LAST-MODIFIED:20261201T090000Z')
      // The garden room override goes; the second evening gets one.
      .replace('RECURRENCE-ID;TZID=Europe/Berlin:20270414T193000', 'RECURRENCE-ID;TZID=Europe/Berlin:20270407T193000')
      .replace(
        'DTSTART;TZID=Europe/Berlin:20270414T193000\r\nDTEND;TZID=Europe/Berlin:20270414T210000',
        'DTSTART;TZID=Europe/Berlin:20270407T193000\r\nDTEND;TZID=Europe/Berlin:20270407T210000',
      )
      .replace('SUMMARY:Reading group: Middlemarch (garden room)', 'SUMMARY:Reading group: Middlemarch (with the author)');
    const report = await importIcs(changed, 'google-overrides.ics');
    assert.deepEqual(report.failures, []);
    assert.deepEqual([report.counts.event.updated, report.counts.event.created], [1, 0]);
    const after = await listed(admin);
    assert.deepEqual(after.map(row), [
      ['2027-03-31 19:30:00', 'Reading group: Middlemarch'],
      ['2027-04-07 19:30:00', 'Reading group: Middlemarch (with the author)'],
      ['2027-04-14 19:30:00', 'Reading group: Middlemarch'],
      ['2027-04-23 18:00:00', 'Reading group: Middlemarch (Friday this week)'],
      ['2027-05-05 19:30:00', 'Reading group: Middlemarch'],
      ['2027-05-12 17:00:00', 'Reading group: Middlemarch (last evening, in UTC)'],
      ['2027-05-19 19:30:00', 'Reading group: Middlemarch'],
      ['2027-06-10 10:00:00', 'Board call (one instance you were invited to)'],
    ]);
    assert.equal(after[2].venue.venue, 'Reading room, Library', 'the garden room override is gone: back to the series');
    assert.equal(after[3].end_date, '2027-04-23 19:30:00');
    assert.deepEqual(
      after.slice(0, 6).map((e) => e.id),
      before.slice(0, 6).map((e) => e.id),
      'the occurrences still on the rules keep their ids',
    );
    const { db } = await openTestDatabase();
    assert.equal((await db('events').whereNotNull('series_id')).length, 7);
  });

  it('Outlook/Exchange: an override with a Windows zone name; Apple Calendar: an all-day series with a moved day', async () => {
    const outlook = await importIcs(fixture('outlook-overrides'), 'outlook-overrides.ics');
    assert.deepEqual([outlook.failures, outlook.skipped], [[], []]);
    const apple = await importIcs(fixture('apple-overrides'), 'apple-overrides.ics', 'America/New_York');
    assert.deepEqual([apple.failures, apple.skipped], [[], []]);
    const events = await listed(admin);
    assert.deepEqual(
      events.map((e) => [...row(e), e.timezone, e.all_day]),
      [
        ['2027-05-03 09:00:00', 'Stand-up', 'Europe/Berlin', false],
        ['2027-05-04 11:30:00', 'Stand-up (late, after the review)', 'Europe/Berlin', false],
        ['2027-05-06 09:00:00', 'Stand-up', 'Europe/Berlin', false],
        ['2027-05-07 09:00:00', 'Stand-up', 'Europe/Berlin', false],
        ['2027-06-05 00:00:00', "Farmers' market", 'America/New_York', true],
        ['2027-06-13 00:00:00', "Farmers' market (Sunday: the square is closed on Saturday)", 'America/New_York', true],
        ['2027-06-19 00:00:00', "Farmers' market", 'America/New_York', true],
        ['2027-06-26 00:00:00', "Farmers' market", 'America/New_York', true],
      ],
    );
    assert.equal(events[1].venue.venue, 'Room 4.12');
    assert.equal(events[5].end_date, '2027-06-13 23:59:59');
  });

  it('round trip: a series with a moved occurrence and an image, exported by /events.ics, imported into a fresh service, gives the same feed apart from UIDs and URLs', async () => {
    const { http } = await testApp();
    const auth = { Authorization: admin.authorization };
    const series = await http()
      .post(`${NS}/events`)
      .set(auth)
      .send({
        title: 'Workshop',
        description: '<p>Bring a laptop.</p>',
        start_date: '2027-09-06 14:00:00',
        end_date: '2027-09-06 16:00:00',
        timezone: 'Europe/Paris',
        status: 'publish',
        image: 'https://images.example.org/workshop.png',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE;TZID=Europe/Paris:20270920T140000'],
      });
    expectStatus(series, 201);
    const occurrences = (await http().get(`${NS}/events/${series.body.id}/occurrences?start_date=2027-09-01&end_date=2027-12-31`).set(auth)).body.events;
    expectStatus(
      await http()
        .patch(`${NS}/events/${occurrences[1].id}?scope=this`)
        .set(auth)
        .send({ title: 'Workshop (afternoon off: evening)', start_date: '2027-09-14 18:00:00', end_date: '2027-09-14 20:00:00' }),
      200,
    );
    const feed = async () => (await http().get(`${NS}/events.ics?start_date=2027-01-01&end_date=2028-01-01`).set(auth)).text;
    const before = await feed();
    assert.equal((before.match(/^BEGIN:VEVENT/gm) ?? []).length, 2, 'the master and its override');
    const { db } = await openTestDatabase();
    const { resetDatabase } = await import('../helpers/database.js');
    await resetDatabase(db);
    admin = await createUser('administrator', 'local-admin');
    auth.Authorization = admin.authorization;
    const report = await importIcs(before, 'https://old.example.org/events.ics');
    assert.deepEqual([report.failures, report.skipped, report.counts.event.created], [[], [], 1]);
    const normal = (text: string) =>
      text
        .replace(/\r\n[ \t]/g, '')
        .split('\r\n')
        .filter((line) => !/^(UID|URL|DTSTAMP|LAST-MODIFIED|X-WR-CALNAME|SEQUENCE)[:;]/.test(line))
        .join('\n');
    assert.equal(normal(await feed()), normal(before));
  });
});
