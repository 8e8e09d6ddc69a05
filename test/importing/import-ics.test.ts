import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createUser, NS, testApp, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase, resetDatabase } from '../helpers/database.js';
import { runImport, type ImportReport } from '../../src/importing/engine.js';
import { ICS_MAX_BYTES, ICS_MAX_EVENTS, icsSource, IcsError, parseCalendar } from '../../src/importing/ics.js';
import { projectRoot } from '../../src/openapi/document.js';
import { wrongPlainForms } from '../helpers/plain-forms.js';
import { wrongTimeForms } from '../helpers/time-forms.js';

/**
 * iCalendar imports (docs/importing.md "Importing a calendar file") of calendars shaped as Google
 * Calendar, Outlook/Exchange and Apple Calendar write them (test/fixtures/ics/), and a round trip of
 * our own `/events.ics` into a fresh database; read back through the API.
 */

const fixture = (name: string) => fs.readFileSync(path.join(projectRoot(), 'test/fixtures/ics', `${name}.ics`), 'utf8');

async function importIcs(text: string, location: string, siteTimezone = 'UTC', dryRun = false): Promise<ImportReport> {
  const { db } = await openTestDatabase();
  return runImport(db, icsSource(text, { location, siteTimezone }), { siteTimezone, role: 'author', dryRun });
}

/** The events of the API's list (every one, in start order). */
async function listed(admin: TestUser): Promise<Array<Record<string, any>>> {
  const { http } = await testApp();
  const list = await http().get(`${NS}/events?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish`).set('Authorization', admin.authorization);
  expectStatus(list, 200);
  return list.body.events;
}

describe('import-ics', () => {
  let admin: TestUser;

  beforeEach(async () => {
    admin = await createUser('administrator', 'local-admin');
  });

  it('imports a Google Calendar export: zones, all-day dates, a weekly series with an EXDATE and a changed occurrence, venue with GEO, organizer; skips cancelled and private events; a second run changes nothing, a change updates, a cancellation removes', async () => {
    const google = fixture('google');
    const first = await importIcs(google, 'google.ics');
    assert.deepEqual(first.failures, []);
    assert.deepEqual([first.counts.event.created, first.counts.venue.created, first.counts.organizer.created], [3, 1, 1]);
    assert.deepEqual(
      first.skipped.map((s) => s.reason),
      ['it is cancelled (STATUS:CANCELLED).', 'it is private (CLASS:PRIVATE).'],
    );
    const events = await listed(admin);
    assert.equal(events.filter((e) => e.title.startsWith('Weekly choir rehearsal')).length, 9, 'COUNT=10 less one EXDATE');
    const later = events.find((e) => e.title === 'Weekly choir rehearsal (an hour later)')!;
    assert.deepEqual(
      [later.start_date, later.end_date, later.series_id],
      ['2027-01-27 19:00:00', '2027-01-27 20:30:00', events.find((e) => e.title === 'Weekly choir rehearsal')!.id],
    );
    const jam = events.find((e) => e.title === 'Open jam session')!;
    assert.deepEqual([jam.start_date, jam.end_date, jam.timezone, jam.all_day], ['2027-03-12 19:00:00', '2027-03-12 21:30:00', 'Europe/Berlin', false]);
    assert.match(jam.description, /Doors open at 18:30 &amp; the jam starts/);
    assert.equal(jam.venue.venue, 'Kulturhaus, Hauptstraße 5, 10827 Berlin');
    assert.deepEqual([Number(jam.venue.geo_lat), Number(jam.venue.geo_lng)], [52.4862, 13.355]);
    assert.deepEqual([jam.organizer[0].organizer, jam.organizer[0].email], ['Jazz Club Schöneberg', 'jazz@example.org']);
    const fair = events.find((e) => e.title === 'Spring fair (two days)')!;
    assert.deepEqual([fair.start_date, fair.end_date, fair.all_day, fair.venue.id], ['2027-05-01 00:00:00', '2027-05-02 23:59:59', true, jam.venue.id]);

    const again = await importIcs(google, 'google.ics');
    assert.deepEqual([again.counts.event.unchanged, again.counts.event.created, again.counts.venue.unchanged], [3, 0, 1]);
    const changed = google.replace('SUMMARY:Open jam session', 'SUMMARY:Open jam session (moved)').replace('LAST-MODIFIED:20261120T093000Z', 'LAST-MODIFIED:20261201T093000Z');
    const dry = await importIcs(changed, 'google.ics', 'UTC', true);
    assert.equal(dry.counts.event.updated, 1);
    const third = await importIcs(changed, 'google.ics');
    assert.deepEqual([third.counts.event.updated, third.counts.event.unchanged], [1, 2]);
    const { http } = await testApp();
    const moved = await http().get(`${NS}/events/${jam.id}`).set('Authorization', admin.authorization);
    assert.equal(moved.body.title, 'Open jam session (moved)');
    assert.equal(moved.body.modified_utc, '2026-12-01 09:30:00');

    const cancelled = changed
      .replace('SUMMARY:Open jam session (moved)', 'SUMMARY:Open jam session (moved)\r\nSTATUS:CANCELLED')
      .replace('STATUS:CONFIRMED\r\nSUMMARY:Open', 'SUMMARY:Open');
    const fourth = await importIcs(cancelled, 'google.ics');
    assert.equal(fourth.counts.event.removed, 1);
    expectStatus(await http().get(`${NS}/events/${jam.id}`).set('Authorization', admin.authorization), 404);
    // A series imported before is rewritten when the file changes it: its occurrences take the new title, the changed one keeps its own.
    const fifth = await importIcs(cancelled.replace('SUMMARY:Weekly choir rehearsal\r\n', 'SUMMARY:Choir\r\n'), 'google.ics');
    assert.deepEqual([fifth.failures, fifth.counts.event.updated], [[], 1]);
    // Creates, updates and series rewrites stored the plain forms of what they wrote (src/text/plain-forms.ts).
    assert.deepEqual(await wrongPlainForms((await openTestDatabase()).db), []);
    assert.deepEqual(await wrongTimeForms((await openTestDatabase()).db), []);
    assert.deepEqual([...new Set((await listed(admin)).map((e) => e.title))].sort(), ['Choir', 'Spring fair (two days)', 'Weekly choir rehearsal (an hour later)']);
    // A cancelled series goes whole: its first event, every occurrence and the series.
    const sixth = await importIcs(cancelled.replace('SUMMARY:Weekly choir rehearsal\r\n', 'SUMMARY:Weekly choir rehearsal\r\nSTATUS:CANCELLED\r\n'), 'google.ics');
    assert.equal(sixth.counts.event.removed, 1);
    assert.deepEqual(
      (await listed(admin)).map((e) => e.title),
      ['Spring fair (two days)'],
    );
    const { db } = await openTestDatabase();
    assert.deepEqual([(await db('events')).length, (await db('event_series')).length], [1, 0]);
  });

  it('imports an Outlook export: a Windows zone name, a zone of its own, DURATION, X-ALT-DESC cleaned, categories; a venue of the same name is matched, not created', async () => {
    const { http } = await testApp();
    const room = await http().post(`${NS}/venues`).set('Authorization', admin.authorization).send({ venue: 'Room 4.12', city: 'Stuttgart' });
    expectStatus(room, 201);
    const report = await importIcs(fixture('outlook'), 'outlook.ics');
    assert.deepEqual(report.failures, []);
    assert.deepEqual([report.counts.event.created, report.counts.venue.created, report.counts.venue.unchanged, report.counts.category.created], [2, 0, 1, 2]);
    assert.deepEqual(
      report.skipped.map((s) => s.reason),
      ['it is confidential (CLASS:CONFIDENTIAL).'],
    );
    const events = await listed(admin);
    const planning = events.find((e) => e.title === 'Quartalsplanung')!;
    assert.deepEqual([planning.start_date, planning.timezone, planning.venue.id, planning.venue.city], ['2027-03-15 10:00:00', 'Europe/Berlin', room.body.id, 'Stuttgart']);
    assert.equal(planning.description.replace(/\n/g, ''), '<p>Quarterly <b>planning</b></p><p>Agenda follows.</p>', 'no script, style or handler, no leftover text');
    assert.deepEqual(planning.categories.map((c: { name: string }) => c.name).sort(), ['Internal', 'Planning']);
    const call = events.find((e) => e.title === 'Call with Pune office')!;
    assert.deepEqual([call.start_date, call.end_date, call.timezone], ['2027-03-16 09:00:00', '2027-03-16 09:45:00', 'UTC'], '14:30 at +05:30 for 45 minutes');
  });

  it('imports an Apple Calendar export: floating times in the site zone, URL, an all-day series of RDATEs', async () => {
    const report = await importIcs(fixture('apple'), 'apple.ics', 'America/New_York');
    assert.deepEqual(report.failures, []);
    const events = await listed(admin);
    const poetry = events.find((e) => e.title === 'Poetry reading')!;
    assert.deepEqual(
      [poetry.start_date, poetry.end_date, poetry.timezone, poetry.website],
      ['2027-04-02 19:30:00', '2027-04-02 21:00:00', 'America/New_York', 'https://poetry.example.net/reading'],
    );
    const swaps = events.filter((e) => e.title === 'Book swap day');
    assert.deepEqual(
      swaps.map((e) => [e.start_date, e.all_day]),
      [
        ['2027-04-10 00:00:00', true],
        ['2027-04-17 00:00:00', true],
        ['2027-04-24 00:00:00', true],
      ],
    );
  });

  it('refuses what is not iCalendar or is past the bounds before parsing it, and fails an event whose rules break the recurrence bounds', async () => {
    const head = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n';
    assert.throws(() => parseCalendar('{"events": []}'), IcsError);
    assert.throws(() => parseCalendar(`${head}BEGIN:VEVENT\r\nDTSTART:2027\r\n`), IcsError);
    assert.throws(
      () => parseCalendar(head + ' '.repeat(ICS_MAX_BYTES)),
      (err: IcsError) => err.tooLarge,
    );
    assert.throws(
      () => parseCalendar(head + 'BEGIN:VEVENT\r\nEND:VEVENT\r\n'.repeat(ICS_MAX_EVENTS + 1)),
      (err: IcsError) => err.tooLarge && /2001 events/.test(err.message),
    );
    assert.throws(
      () => parseCalendar(`${head}BEGIN:VEVENT\r\nX-A${';P=1'.repeat(101)}:v\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`),
      (err: IcsError) => /101 parameters/.test(err.message),
    );
    const broken = [
      `${head}BEGIN:VEVENT\r\nUID:bad-date\r\nSUMMARY:x\r\nDTSTART:2027\r\nEND:VEVENT`,
      `BEGIN:VEVENT\r\nUID:many-categories\r\nSUMMARY:x\r\nDTSTART:20270101T100000Z\r\nCATEGORIES:${Array.from({ length: 11 }, (_, i) => `c${i}`).join(',')}\r\nEND:VEVENT`,
      `BEGIN:VEVENT\r\nUID:fine\r\nSUMMARY:Fine\r\nDTSTART:20270101T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`,
    ].join('\r\n');
    const partly = await importIcs(broken, 'broken.ics');
    assert.deepEqual(
      partly.failures.map((f) => [f.sourceId, f.reason]),
      [
        ['bad-date', 'it cannot be read: invalid date-time value: "2027--T::"'],
        ['many-categories', 'it has more than 10 CATEGORIES; an event links at most 10.'],
      ],
    );
    assert.deepEqual([partly.counts.event.created, partly.counts.category.created], [1, 0], 'the other events go on; nothing is created for a failed one');
    const endless = `${head}BEGIN:VEVENT\r\nUID:u1\r\nSUMMARY:Every minute\r\nDTSTART:20270101T000000Z\r\nDTEND:20270101T000030Z\r\nRRULE:FREQ=MINUTELY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
    const report = await importIcs(endless, 'endless.ics');
    assert.equal(report.failures.length, 1);
    assert.match(report.failures[0].reason, /occurrences/);
    assert.deepEqual(
      (await listed(admin)).map((e) => e.title),
      ['Fine'],
    );
  });

  it('round trip: our own /events.ics imported into a fresh database gives the same /events.ics apart from UIDs and URLs', async () => {
    const { http } = await testApp();
    const auth = { Authorization: admin.authorization };
    const venue = (await http().post(`${NS}/venues`).set(auth).send({ venue: 'Town Hall' })).body.id;
    const organizer = (await http().post(`${NS}/organizers`).set(auth).send({ organizer: 'Friends of Music', email: 'friends@example.org' })).body.id;
    const category = (await http().post(`${NS}/categories`).set(auth).send({ name: 'Concerts' })).body.id;
    for (const body of [
      {
        title: 'Concert',
        description: '<p>An <strong>evening</strong> of music.</p>',
        start_date: '2027-06-01 20:00:00',
        end_date: '2027-06-01 22:00:00',
        timezone: 'Europe/Paris',
        venue,
        organizer: [organizer],
        categories: [category],
        website: 'https://tickets.example.org/concert',
      },
      { title: 'Open day', start_date: '2027-06-05 00:00:00', end_date: '2027-06-06 23:59:59', all_day: true },
      { title: 'Monthly meeting', start_date: '2027-07-01 18:00:00', end_date: '2027-07-01 19:00:00', timezone: 'America/Chicago', recurrence: ['RRULE:FREQ=MONTHLY;COUNT=3'] },
    ]) {
      expectStatus(
        await http()
          .post(`${NS}/events`)
          .set(auth)
          .send({ status: 'publish', ...body }),
        201,
      );
    }
    const feed = async () => (await http().get(`${NS}/events.ics?start_date=2027-01-01&end_date=2028-01-01`).set(auth)).text;
    const before = await feed();
    const { db } = await openTestDatabase();
    await resetDatabase(db);
    admin = await createUser('administrator', 'local-admin');
    auth.Authorization = admin.authorization;
    const report = await importIcs(before, 'https://old.example.org/events.ics');
    assert.deepEqual(report.failures, []);
    assert.deepEqual(report.skipped, []);
    assert.deepEqual([report.counts.event.created, report.counts.venue.created, report.counts.organizer.created, report.counts.category.created], [3, 1, 1, 1]);
    assert.equal((before.match(/^BEGIN:VEVENT/gm) ?? []).length, 3, 'a series is one VEVENT with its RRULE');
    const normal = (text: string) =>
      text
        .replace(/\r\n[ \t]/g, '')
        .split('\r\n')
        .filter((line) => !/^(UID|URL|DTSTAMP|CREATED|LAST-MODIFIED|X-WR-CALNAME|X-ORIGINAL-URL|SEQUENCE)[:;]/.test(line))
        .map((line) => line.replace(/\/\d+\b/g, '/ID').replace(/https?:\/\/[^\s;:"]+(:\d+)?[^\s;"]*/g, 'URL'))
        .join('\n');
    assert.equal(normal(await feed()), normal(before));
  });
});
