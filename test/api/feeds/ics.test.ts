import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import type { Response } from 'supertest';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { insertEvent } from '../../helpers/event-rows.js';
import { bumpDataVersion } from '../../../src/db/data-version.js';
import { badParams, call, createEvent, createOrganizer, createVenue, eventPath, eventsApp, expectEnvelope, type Body, type Http, type Rec } from '../../helpers/events.js';

/** iCalendar feeds (docs/contract.md §11), parsed back with ical.js. */

const feedPath = `${NS}/events.ics`;
const eventFeedPath = (id: number | string) => `${NS}/events/${id}/ics`;
/** The older path, still answered as an alias of the documented one (src/http/aliases.ts). */
const aliasFeedPath = (id: number | string) => `${NS}/events/${id}.ics`;

/** supertest does not buffer `text/calendar`: read it as text (errors stay JSON). */
function asText(req: ReturnType<typeof call>) {
  return req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      done(null, String(res.headers['content-type']).startsWith('application/json') ? JSON.parse(text) : text);
    });
  });
}

/** The feeds' clock: the default list window (yesterday to two years ahead) covers the 2030 events the fixtures create. */
const CLOCK = '2030-04-20T12:00:00Z';

interface Parsed {
  text: string;
  calendar: ICAL.Component;
  events: ICAL.Event[];
  byTitle: (title: string) => ICAL.Event;
}

/** Checks the octet-level rules (CRLF, 75-octet lines, whole UTF-8 characters), registers the VTIMEZONEs, parses every VEVENT. */
function parseFeed(res: Response): Parsed {
  expectStatus(res, 200);
  assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8');
  const text = res.body as string;
  const bytes = Buffer.from(text, 'utf8');
  assert.ok(text.endsWith('\r\n'), 'ends with CRLF');
  assert.ok(!/[^\r]\n/.test(text), 'every line ends with CRLF');
  let start = 0;
  for (let i = 0; i < bytes.length - 1; i++) {
    if (bytes[i] !== 0x0d || bytes[i + 1] !== 0x0a) continue;
    const line = bytes.subarray(start, i);
    assert.ok(line.length <= 75, `line of ${line.length} octets: ${line.toString()}`);
    // A fold inside a UTF-8 character leaves an invalid sequence on one of the two lines.
    new TextDecoder('utf-8', { fatal: true }).decode(line);
    start = i + 2;
  }
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  ICAL.TimezoneService.reset();
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const events = calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent));
  return {
    text,
    calendar,
    events,
    byTitle: (title) => {
      const found = events.find((event) => event.summary === title);
      assert.ok(found, `no VEVENT "${title}" in ${text}`);
      return found;
    },
  };
}

/** `YYYY-MM-DD HH:MM:SS` UTC → unix seconds. */
const unix = (utc: string) => Date.parse(`${utc.replace(' ', 'T')}Z`) / 1000;

describe('iCalendar feeds (GET /events.ics, GET /events/{id}/ics and its alias /events/{id}.ics)', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp({}, CLOCK));
    users = await createUsers();
  });

  const create = (extra: Body = {}, as: TestUser = users.editor) => createEvent(http, as, extra);
  const feed = (query = '', as?: TestUser) => asText(call(http, 'get', `${feedPath}${query}`, as));
  const one = (id: number | string, query = '', as?: TestUser) => asText(call(http, 'get', `${eventFeedPath(id)}${query}`, as));

  it('is one calendar with the RFC 5545 and RFC 7986 header properties', async () => {
    await create({ title: 'Jazz night' });
    const { calendar, events, text } = parseFeed(await feed());
    assert.match(text, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n/);
    assert.equal(calendar.name, 'vcalendar');
    assert.equal(calendar.getFirstPropertyValue('version'), '2.0');
    assert.match(String(calendar.getFirstPropertyValue('prodid')), /tribe\/events\/v1/);
    assert.equal(calendar.getFirstPropertyValue('calscale'), 'GREGORIAN');
    assert.equal(calendar.getFirstPropertyValue('method'), 'PUBLISH');
    assert.equal(calendar.getFirstPropertyValue('x-wr-calname'), 'api.test Events');
    assert.equal(calendar.getFirstPropertyValue('name'), 'api.test Events');
    assert.equal(String(calendar.getFirstPropertyValue('refresh-interval')), 'PT1H');
    assert.equal(calendar.getFirstPropertyValue('x-published-ttl'), 'PT1H');
    assert.equal(events.length, 1);
  });

  it('gives every event its properties: UID, DTSTAMP, times with TZID, text, location, geo, URL, categories, organizer, sequence, status', async () => {
    const venue = await createVenue(http, users.editor, {
      venue: 'Hall, East; Wing',
      address: '1 Main Street',
      city: 'Springfield',
      zip: '62701',
      country: 'United States',
      geo_lat: 39.78,
      geo_lng: -89.65,
    });
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Jo "The" Host', email: 'jo@example.test' });
    const event = await create({
      title: 'Talk',
      description: '<p>First <strong>para</strong> &amp; more.</p><p>Second line</p>',
      timezone: 'America/Chicago',
      venue: venue.id,
      organizer: [organizer.id],
      categories: ['Music', 'Rock; Pop'],
    });
    const { byTitle, text } = parseFeed(await feed());
    const vevent = byTitle('Talk');
    assert.equal(vevent.uid, `${event.id}@api.test`);
    const component = vevent.component;
    assert.ok(component.getFirstPropertyValue('dtstamp'));
    assert.equal(component.getFirstProperty('dtstart')?.getParameter('tzid'), 'America/Chicago');
    assert.equal(vevent.startDate.toUnixTime(), unix(event.utc_start_date));
    assert.equal(vevent.endDate.toUnixTime(), unix(event.utc_end_date));
    assert.equal(vevent.description, 'First para & more.\n\nSecond line');
    assert.equal(vevent.location, 'Hall, East; Wing, 1 Main Street, Springfield, 62701, United States');
    assert.deepEqual(component.getFirstPropertyValue('geo'), [39.78, -89.65]);
    assert.equal(component.getFirstPropertyValue('url'), event.url);
    assert.deepEqual(component.getFirstProperty('categories')?.getValues().sort(), ['Music', 'Rock; Pop']);
    const organizerProperty = component.getFirstProperty('organizer');
    assert.equal(organizerProperty?.getFirstValue(), 'mailto:jo@example.test');
    assert.equal(organizerProperty?.getParameter('cn'), "Jo 'The' Host");
    assert.equal(component.getFirstPropertyValue('status'), 'CONFIRMED');
    assert.equal(typeof component.getFirstPropertyValue('sequence'), 'number');
    assert.ok(component.getFirstPropertyValue('last-modified'));
    assert.match(text, /LOCATION:Hall\\, East\\; Wing/);
  });

  it('keeps the UID when an event is rescheduled, and grows SEQUENCE; uid=plugin gives the plugin form', async () => {
    const event = await create({ title: 'Moved' });
    const before = parseFeed(await one(event.id)).byTitle('Moved');
    const plugin = parseFeed(await one(event.id, '?uid=plugin')).byTitle('Moved');
    assert.equal(plugin.uid, `${event.id}-${unix(event.utc_start_date)}-${unix(event.utc_end_date)}@api.test`);
    expectStatus(await call(http, 'post', eventPath(event.id), users.editor, { start_date: '2030-06-01 10:00:00', end_date: '2030-06-01 12:00:00' }), 200);
    const after = parseFeed(await one(event.id)).byTitle('Moved');
    assert.equal(after.uid, before.uid);
    assert.ok(after.sequence > before.sequence, `${after.sequence} > ${before.sequence}`);
    assert.notEqual(parseFeed(await one(event.id, '?uid=plugin')).byTitle('Moved').uid, plugin.uid);
  });

  it('converts times across DST changes with its own VTIMEZONEs (New York, Paris, Sydney, Los Angeles)', async () => {
    const cases: Array<[string, string, string, string]> = [
      // Spring forward in New York (2030-03-10 02:00 → 03:00) and fall back (2030-11-03).
      ['NY spring', 'America/New_York', '2030-03-10 00:30:00', '2030-03-10 05:00:00'],
      ['NY fall', 'America/New_York', '2030-11-03 00:30:00', '2030-11-03 03:00:00'],
      ['NY long', 'America/New_York', '2030-02-01 09:00:00', '2030-12-01 17:00:00'],
      // Paris: summer time ends 2030-10-27 03:00 → 02:00, begins 2030-03-31.
      ['Paris fall', 'Europe/Paris', '2030-10-26 22:00:00', '2030-10-27 04:00:00'],
      ['Paris spring', 'Europe/Paris', '2030-03-30 23:00:00', '2030-03-31 04:00:00'],
      ['Sydney', 'Australia/Sydney', '2030-04-06 20:00:00', '2030-04-07 05:00:00'],
      ['LA', 'America/Los_Angeles', '2031-01-15 18:00:00', '2031-07-15 18:00:00'],
    ];
    const created = new Map<string, Rec>();
    for (const [title, timezone, start_date, end_date] of cases) created.set(title, await create({ title, timezone, start_date, end_date }));
    const { byTitle, calendar } = parseFeed(await feed('?start_date=2030-01-01&end_date=2032-01-01'));
    const zones = calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'));
    assert.deepEqual(zones.sort(), ['America/Los_Angeles', 'America/New_York', 'Australia/Sydney', 'Europe/Paris']);
    const newYork = calendar.getAllSubcomponents('vtimezone').find((zone) => zone.getFirstPropertyValue('tzid') === 'America/New_York')!;
    assert.ok(newYork.getAllSubcomponents('daylight').length >= 1 && newYork.getAllSubcomponents('standard').length >= 2);
    for (const [title] of cases) {
      const event = created.get(title)!;
      const vevent = byTitle(title);
      assert.equal(vevent.startDate.toUnixTime(), unix(event.utc_start_date), `${title} start`);
      assert.equal(vevent.endDate.toUnixTime(), unix(event.utc_end_date), `${title} end`);
      assert.equal(vevent.startDate.toString().replace('T', ' '), event.start_date, `${title} local start`);
    }
  });

  it('handles zones east and west of UTC and fixed offsets (UTC+5, UTC-3.5, UTC+5.5, Asia/Kolkata, UTC)', async () => {
    const zones = ['UTC+5', 'UTC-3.5', 'UTC+5.5', 'Asia/Kolkata', 'UTC', 'Pacific/Honolulu', 'Asia/Tokyo'];
    const created = new Map<string, Rec>();
    for (const timezone of zones) created.set(timezone, await create({ title: `in ${timezone}`, timezone, start_date: '2030-05-01 00:30:00', end_date: '2030-05-01 23:30:00' }));
    const { byTitle, calendar } = parseFeed(await feed());
    const plusFiveHalf = calendar.getAllSubcomponents('vtimezone').find((zone) => zone.getFirstPropertyValue('tzid') === 'UTC+5.5')!;
    assert.equal(plusFiveHalf.getFirstSubcomponent('standard')?.getFirstPropertyValue('tzoffsetto')?.toString(), '+05:30');
    for (const timezone of zones) {
      const event = created.get(timezone)!;
      const vevent = byTitle(`in ${timezone}`);
      assert.equal(vevent.startDate.toUnixTime(), unix(event.utc_start_date), timezone);
      assert.equal(vevent.endDate.toUnixTime(), unix(event.utc_end_date), timezone);
    }
  });

  it('gives all-day and multi-day all-day events whole dates, DTEND the day after the last day', async () => {
    await create({ title: 'One day', all_day: true, start_date: '2030-05-01', end_date: '2030-05-01', timezone: 'Europe/Paris' });
    await create({ title: 'Three days', all_day: true, start_date: '2030-05-30', end_date: '2030-06-01', timezone: 'America/New_York' });
    await create({ title: 'Multi-day timed', start_date: '2030-05-01 18:00:00', end_date: '2030-05-04 11:00:00' });
    const { byTitle, text } = parseFeed(await feed());
    const single = byTitle('One day');
    assert.equal(single.startDate.isDate, true);
    assert.equal(single.startDate.toString(), '2030-05-01');
    assert.equal(single.endDate.toString(), '2030-05-02');
    const three = byTitle('Three days');
    assert.equal(three.startDate.toString(), '2030-05-30');
    assert.equal(three.endDate.toString(), '2030-06-02');
    assert.match(text, /DTSTART;VALUE=DATE:20300530\r\n/);
    const timed = byTitle('Multi-day timed');
    assert.equal(timed.startDate.isDate, false);
    assert.equal(timed.endDate.toString(), '2030-05-04T11:00:00');
  });

  it('folds long Unicode text at 75 octets without splitting a character, and round-trips it', async () => {
    const title = `${'会議🎉 Café ß '.repeat(6)}`.trim().slice(0, 190);
    const description = `${'日本語のテキスト、絵文字👩‍👩‍👧‍👦と中文字符。'.repeat(20)}\n${'x'.repeat(200)}`;
    await create({ title, description });
    const { events, text } = parseFeed(await feed());
    assert.equal(events[0].summary, title);
    assert.equal(events[0].description, description.replace(/\n/, '\n\n').replace(/\n\n/, '\n'));
    assert.ok(text.includes('\r\n '), 'some line is folded');
  });

  it('escapes commas, semicolons, backslashes and line breaks in text', async () => {
    const title = 'Rock, Paper; Scissors \\ Co';
    await create({ title, description: 'Line one\nLine two; with, punctuation \\ here' });
    const { byTitle, text } = parseFeed(await feed());
    const vevent = byTitle(title);
    assert.equal(vevent.description, 'Line one\nLine two; with, punctuation \\ here');
    assert.match(text, /SUMMARY:Rock\\, Paper\\; Scissors \\\\ Co\r\n/);
  });

  it('never shows the text of a protected event to a caller who may not edit it', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'Secret Place', address: '7 Hidden Way' });
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Secret Host', email: 'secret@example.test' });
    const event = await create({ title: 'Locked', password: 'sesame', description: 'Secret words', venue: venue.id, organizer: [organizer.id], categories: ['Hidden Category'] });
    for (const [label, res] of [
      ['list', await feed()],
      ['list as subscriber', await feed('', users.subscriber)],
    ] as const) {
      const { byTitle, text } = parseFeed(res);
      const vevent = byTitle('Locked');
      for (const property of ['description', 'location', 'geo', 'categories', 'organizer', 'attach'])
        assert.equal(vevent.component.getFirstProperty(property), null, `${label}: ${property}`);
      for (const secret of ['Secret words', 'Secret Place', 'Hidden Way', 'Secret Host', 'secret@example.test', 'Hidden Category'])
        assert.ok(!text.includes(secret), `${label}: ${secret}`);
    }
    const single = await one(event.id);
    expectError(single, 403, 'event-password-protected');
    const opened = parseFeed(await one(event.id, '?password=sesame'));
    assert.equal(opened.byTitle('Locked').description, 'Secret words');
    const editor = parseFeed(await feed('', users.editor));
    assert.equal(editor.byTitle('Locked').location, 'Secret Place, 7 Hidden Way');
  });

  it('shows a protected venue or organizer of a public event by name only, and names the calendar after SITE_NAME', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'Guarded Hall', address: '9 Secret Road', geo_lat: 10, geo_lng: 20, password: 'pw' });
    const organizer = await createOrganizer(http, users.editor, { organizer: 'Guarded Crew', email: 'crew@secret.test', password: 'pw' });
    await create({ title: 'Open', venue: venue.id, organizer: [organizer.id] });
    const { byTitle, text } = parseFeed(await feed());
    const vevent = byTitle('Open');
    assert.equal(vevent.location, 'Guarded Hall');
    assert.equal(vevent.component.getFirstProperty('geo'), null);
    assert.equal(vevent.component.getFirstProperty('organizer')?.getParameter('cn'), 'Guarded Crew');
    assert.ok(!text.includes('Secret Road') && !text.includes('crew@secret.test'));
    const named = await eventsApp({ siteName: 'Springfield Arts' }, CLOCK);
    assert.equal(parseFeed(await asText(call(named.http, 'get', feedPath))).calendar.getFirstPropertyValue('x-wr-calname'), 'Springfield Arts Events');
  });

  it('never lists drafts to anonymous callers; editors see them as TENTATIVE', async () => {
    await create({ title: 'Published' });
    const draft = await create({ title: 'Draft', status: 'draft' });
    assert.deepEqual(
      parseFeed(await feed()).events.map((event) => event.summary),
      ['Published'],
    );
    expectError(await one(draft.id), 403, 'event-not-accessible');
    const editor = parseFeed(await feed('?status=draft', users.editor));
    assert.equal(editor.byTitle('Draft').component.getFirstPropertyValue('status'), 'TENTATIVE');
    assert.equal(
      parseFeed(await one(draft.id, '', users.editor))
        .byTitle('Draft')
        .component.getFirstPropertyValue('status'),
      'TENTATIVE',
    );
  });

  it('answers the list parameters as GET /events does (400 in the JSON envelope)', async () => {
    for (const [query, param] of [
      ['?start_date=not-a-date', 'start_date'],
      ['?categories=no-such-category', 'categories'],
      ['?ticketed=true', 'ticketed'],
      ['?geoloc_lat=10', 'geoloc_lng'],
      ['?per_page=0', 'per_page'],
      ['?uid=other', 'uid'],
    ]) {
      const res = await call(http, 'get', `${feedPath}${query}`);
      assert.deepEqual(badParams(res), [param], query);
      expectEnvelope(res, query);
    }
    expectError(await call(http, 'get', `${feedPath}`).set('Authorization', 'Basic bm9ib2R5Ondyb25n'), 401, 'rest_invalid_credentials');
  });

  it('filters as GET /events does, and names the calendar after the categories', async () => {
    await create({ title: 'Concert', categories: ['Music'] });
    await create({ title: 'Exhibition', categories: ['Art'] });
    const { events, calendar } = parseFeed(await feed('?categories=music'));
    assert.deepEqual(
      events.map((event) => event.summary),
      ['Concert'],
    );
    assert.equal(calendar.getFirstPropertyValue('x-wr-calname'), 'api.test Events: Music');
  });

  it('cuts the feed at ICAL_MAX_EVENTS, saying so in X-TEC-Total and X-TEC-Truncated', async () => {
    ({ http } = await eventsApp({ icalMaxEvents: 2 }, CLOCK));
    for (const day of ['01', '02', '03']) await create({ title: `Day ${day}`, start_date: `2030-05-${day} 10:00:00`, end_date: `2030-05-${day} 11:00:00` });
    const cut = await feed();
    assert.deepEqual(
      parseFeed(cut).events.map((event) => event.summary),
      ['Day 01', 'Day 02'],
    );
    assert.equal(cut.headers['x-tec-total'], '3');
    assert.equal(cut.headers['x-tec-truncated'], 'true');
    const whole = await feed('?start_date=2030-05-02');
    assert.equal(parseFeed(whole).events.length, 2);
    assert.equal(whole.headers['x-tec-truncated'], undefined);
    assert.equal(whole.headers['x-tec-total'], undefined);
  });

  it('reads a feed of more than 100 events in slices, in the list order, drafts left out', async () => {
    const { db } = await openTestDatabase();
    const expected: Array<{ title: string; start: string; id: number }> = [];
    for (let i = 0; i < 125; i++) {
      // Three starts a day for 28 days, so that many events share a start and the id decides.
      const start = `2030-06-${String(1 + (i % 28)).padStart(2, '0')} ${String(8 + (i % 3)).padStart(2, '0')}:00:00`;
      const status = i % 10 === 0 ? 'draft' : 'publish';
      const id = await insertEvent(db, { title: `Sliced ${i}`, status, startUtc: start, endUtc: start.replace(/ \d\d:/, ' 23:') });
      if (status === 'publish') expected.push({ title: `Sliced ${i}`, start, id });
    }
    await bumpDataVersion(db);
    expected.sort((a, b) => a.start.localeCompare(b.start) || a.id - b.id);
    const res = await feed('?start_date=2030-06-01&end_date=2030-06-30');
    assert.deepEqual(
      parseFeed(res).events.map((event) => event.summary),
      expected.map((event) => event.title),
    );
    assert.equal(res.headers['x-tec-truncated'], undefined);
  });

  it('answers If-None-Match with 304 while nothing changed, for the feed and one event', async () => {
    const event = await create({ title: 'Cached' });
    for (const path of [feedPath, eventFeedPath(event.id)]) {
      const first = await asText(call(http, 'get', path));
      expectStatus(first, 200);
      const tag = first.headers.etag;
      assert.ok(tag, path);
      const again = await asText(call(http, 'get', path));
      assert.equal(again.headers.etag, tag, `${path}: the same data gives the same ETag`);
      const notModified = await call(http, 'get', path).set('If-None-Match', tag);
      assert.equal(notModified.status, 304, path);
    }
    const tag = (await asText(call(http, 'get', eventFeedPath(event.id)))).headers.etag;
    expectStatus(await call(http, 'post', eventPath(event.id), users.editor, { title: 'Changed' }), 200);
    expectStatus(await call(http, 'get', eventFeedPath(event.id)).set('If-None-Match', tag), 200);
  });

  it('answers GET /events/{id}/ics under the read rules of GET /events/{id} (404, 400, 403), JSON errors', async () => {
    const venue = await createVenue(http, users.editor, { venue: 'A venue' });
    expectError(await one(999999), 404, 'rest-event-not-found');
    expectError(await one(venue.id), 400, 'rest-invalid-event-id');
    const trashed = await create({ title: 'Trashed' });
    expectStatus(await call(http, 'delete', eventPath(trashed.id), users.editor), 200);
    expectError(await one(trashed.id), 403, 'event-no-longer-available');
    expectError(await asText(call(http, 'get', eventFeedPath(trashed.id))).set('Authorization', 'Basic bm9ib2R5Ondyb25n'), 401, 'rest_invalid_credentials');
  });

  it('answers the alias /events/{id}.ics exactly as /events/{id}/ics: body, ETag, 304, query, errors', async () => {
    const event = await create({ title: 'Aliased' });
    const documented = await one(event.id);
    const alias = await asText(call(http, 'get', aliasFeedPath(event.id)));
    expectStatus(alias, 200);
    assert.equal(alias.headers['content-type'], documented.headers['content-type']);
    assert.equal(alias.body, documented.body);
    assert.equal(alias.headers.etag, documented.headers.etag);
    expectStatus(await call(http, 'get', aliasFeedPath(event.id)).set('If-None-Match', String(documented.headers.etag)), 304);
    // The query goes along (`uid=plugin` changes the UID), and a trailing slash is cut first.
    const plugin = await asText(call(http, 'get', `${aliasFeedPath(event.id)}/?uid=plugin`));
    assert.equal(parseFeed(plugin).byTitle('Aliased').uid, parseFeed(await one(event.id, '?uid=plugin')).byTitle('Aliased').uid);
    assert.notEqual(parseFeed(plugin).byTitle('Aliased').uid, parseFeed(documented).byTitle('Aliased').uid);
    expectError(await asText(call(http, 'get', aliasFeedPath(999999))), 404, 'rest-event-not-found');
    expectError(await asText(call(http, 'get', aliasFeedPath('abc'))), 404, 'rest_no_route');
    expectError(await call(http, 'post', aliasFeedPath(event.id), users.editor, {}), 404, 'rest_no_route');
  });

  it('routes /events/{id}/ics, /events/{id}.ics, /events.ics and /events/{id} apart', async () => {
    const event = await create({ title: 'Routed' });
    const json = await call(http, 'get', eventPath(event.id));
    expectStatus(json, 200);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const ics = await one(event.id);
    assert.equal(parseFeed(ics).byTitle('Routed').uid, `${event.id}@api.test`);
    assert.equal(parseFeed(await asText(call(http, 'get', aliasFeedPath(event.id)))).byTitle('Routed').uid, `${event.id}@api.test`);
    assert.equal(parseFeed(await feed()).events.length, 1);
    expectError(await call(http, 'get', `${NS}/events/by-slug/routed.ics`), 404, 'rest-event-not-found');
    expectError(await call(http, 'get', `${NS}/events/${event.id}.json`), 404, 'rest_no_route');
    expectError(await call(http, 'post', eventFeedPath(event.id), users.editor, {}), 404, 'rest_no_route');
  });
});
