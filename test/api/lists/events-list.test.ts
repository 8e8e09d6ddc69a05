import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUser, createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { linkRels } from '../../helpers/terms.js';
import {
  EVENT_KEYS,
  PUBLIC_URL,
  badParams,
  call,
  createEvent,
  createOrganizer,
  createVenue,
  eventPath,
  eventsApp,
  eventsPath,
  listEvents,
  pathOf,
  titlesOf,
  type Body,
  type Http,
  type Rec,
} from '../../helpers/events.js';

/** The query of a paging URL as name → value pairs, in order (asserting the base and that it is encoded). */
function queryOf(url: string): Array<[string, string]> {
  assert.ok(!/\s/.test(url), `not URL-encoded: ${url}`);
  const parsed = new URL(url);
  assert.equal(`${parsed.origin}${parsed.pathname}`, `${PUBLIC_URL}${NS}/events/`);
  return [...parsed.searchParams.entries()];
}

/** One parameter of a paging URL. */
const paramOf = (url: string, name: string): string | null => new URL(url).searchParams.get(name);

describe('events: GET /events', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  /** Creates an event (as an editor by default) starting and ending at the given site-local times. */
  const add = (title: string, start: string, end: string, extra: Body = {}, as: TestUser = users.editor) =>
    createEvent(http, as, { title, start_date: start, end_date: end, ...extra });
  /** The titles listed for a query, as `as` (anonymous by default). */
  const titles = async (query: string, as?: TestUser) => titlesOf(await listEvents(http, query, as));
  /** Events in 2027, inside the default window at the fixed clock. */
  const addInWindow = (title: string, day: number, extra: Body = {}, as?: TestUser) =>
    add(title, `2027-03-${String(day).padStart(2, '0')} 10:00:00`, `2027-03-${String(day).padStart(2, '0')} 11:00:00`, extra, as);
  const YEAR_2030 = 'start_date=2030-01-01&end_date=2030-12-31';

  describe('envelope, paging and headers', () => {
    it('answers the envelope keys in the plugin order with the paging headers and Link relations', async () => {
      for (let day = 1; day <= 5; day++) await addInWindow(`Event ${day}`, day);
      const res = await listEvents(http, 'per_page=2&page=2');
      expectStatus(res, 200);
      assert.deepEqual(Object.keys(res.body), ['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages']);
      assert.deepEqual(titlesOf(res), ['Event 3', 'Event 4']);
      assert.deepEqual([res.body.total, res.body.total_pages], [5, 3]);
      assert.equal(res.headers['x-tec-total'], '5');
      assert.equal(res.headers['x-tec-totalpages'], '3');
      assert.equal(res.headers['x-wp-total'], '5');
      assert.equal(res.headers['x-wp-totalpages'], '3');
      const rels = linkRels(res);
      assert.equal(rels.next, res.body.next_rest_url);
      assert.equal(rels.prev, res.body.previous_rest_url);
      assert.equal(rels['https://api.w.org/'], `${PUBLIC_URL}/wp-json/`);
      for (const header of ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages', 'Link']) {
        assert.ok(String(res.headers['access-control-expose-headers']).includes(header), header);
      }
      assert.equal(paramOf(res.body.next_rest_url, 'page'), '3');
      assert.equal(paramOf(res.body.previous_rest_url, 'page'), null, 'page 1 is written without page');
      const first = await listEvents(http, 'per_page=2');
      assert.deepEqual(Object.keys(first.body), ['events', 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      const last = await listEvents(http, 'per_page=2&page=3');
      assert.deepEqual(Object.keys(last.body), ['events', 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
      assert.deepEqual(titlesOf(last), ['Event 5']);
      assert.equal(paramOf(last.body.previous_rest_url, 'page'), '2');
    });

    it('answers an empty list with zero totals and the default bounds in rest_url (peer 15)', async () => {
      const res = await listEvents(http);
      expectStatus(res, 200);
      assert.deepEqual(Object.keys(res.body), ['events', 'rest_url', 'total', 'total_pages']);
      assert.deepEqual([res.body.events, res.body.total, res.body.total_pages], [[], 0, 0]);
      assert.equal(res.headers['x-tec-total'], '0');
      assert.equal(res.headers['x-tec-totalpages'], '0');
      assert.deepEqual(queryOf(res.body.rest_url), [
        ['page', '1'],
        ['per_page', '10'],
        ['start_date', '2026-11-20 00:00:00'],
        ['end_date', '2028-11-21 23:59:59'],
        ['status', 'publish'],
      ]);
      const editor = await listEvents(http, '', users.editor);
      assert.equal(paramOf(editor.body.rest_url, 'status'), 'any');
    });

    it('serves 10 per page by default and clamps per_page to 50', async () => {
      for (let i = 0; i < 51; i++) await add(`Bulk ${i}`, '2027-01-01 10:00:00', '2027-01-01 11:00:00');
      const defaults = await listEvents(http);
      assert.equal(defaults.body.events.length, 10);
      assert.deepEqual([defaults.body.total, defaults.body.total_pages], [51, 6]);
      const clamped = await listEvents(http, 'per_page=100');
      expectStatus(clamped, 200);
      assert.equal(clamped.body.events.length, 50);
      assert.deepEqual([clamped.body.total, clamped.body.total_pages], [51, 2]);
      assert.equal(paramOf(clamped.body.rest_url, 'per_page'), '50');
      assert.equal((await listEvents(http, 'per_page=100&page=2')).body.events.length, 1);
    });

    it('rejects page and per_page values that are not positive integers', async () => {
      for (const [name, value] of [
        ['per_page', '0'],
        ['per_page', 'abc'],
        ['per_page', '-1'],
        ['per_page', '2.5'],
        ['page', '0'],
        ['page', 'abc'],
        ['page', '1.5'],
      ]) {
        const res = await listEvents(http, `${name}=${value}`);
        assert.deepEqual(badParams(res), [name], `${name}=${value}`);
        assert.equal(res.body.message, `Invalid parameter(s): ${name}`);
      }
    });

    it('answers 404 event-archive-page-not-found past the last page', async () => {
      expectStatus(await listEvents(http, 'page=1'), 200);
      expectError(await listEvents(http, 'page=2'), 404, 'event-archive-page-not-found');
      for (let day = 1; day <= 3; day++) await addInWindow(`Event ${day}`, day);
      expectStatus(await listEvents(http, 'per_page=2&page=2'), 200);
      const res = await listEvents(http, 'per_page=2&page=3');
      expectError(res, 404, 'event-archive-page-not-found');
      assert.equal(res.body.message, 'The requested event archive page does not exist');
    });

    it('keeps the total exact across every kind of write (totals are cached per filter)', async () => {
      const cat = await call(http, 'post', `${NS}/categories`, users.editor, { name: 'Counted' });
      const totals = async () => {
        const all = await listEvents(http, YEAR_2030);
        const inCategory = await listEvents(http, `${YEAR_2030}&categories=${cat.body.id}`);
        assert.equal(Number(all.headers['x-wp-total']), all.body.total);
        return [all.body.total, inCategory.body.total];
      };
      assert.deepEqual(await totals(), [0, 0]);
      const a = await add('A', '2030-02-01 10:00:00', '2030-02-01 11:00:00', { categories: [cat.body.id] });
      const b = await add('B', '2030-02-02 10:00:00', '2030-02-02 11:00:00');
      assert.deepEqual(await totals(), [2, 1]);
      expectStatus(await call(http, 'post', eventPath(b.id), users.editor, { categories: [cat.body.id] }), 200);
      assert.deepEqual(await totals(), [2, 2]);
      expectStatus(await call(http, 'post', eventPath(a.id), users.editor, { status: 'draft' }), 200);
      assert.deepEqual(await totals(), [1, 1]);
      expectStatus(await call(http, 'post', eventPath(b.id), users.editor, { start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' }), 200);
      assert.deepEqual(await totals(), [0, 0]);
      expectStatus(await call(http, 'post', eventPath(b.id), users.editor, { start_date: '2030-03-01 10:00:00', end_date: '2030-03-01 11:00:00' }), 200);
      assert.deepEqual(await totals(), [1, 1]);
      expectStatus(await call(http, 'delete', `${NS}/categories/${cat.body.id}?force=true`, users.editor), 200);
      assert.equal((await listEvents(http, YEAR_2030)).body.total, 1);
      expectStatus(await call(http, 'delete', eventPath(b.id), users.editor), 200);
      assert.equal((await listEvents(http, YEAR_2030)).body.total, 0);
      expectStatus(await call(http, 'post', eventPath(b.id), users.editor, { status: 'publish' }), 200);
      assert.equal((await listEvents(http, YEAR_2030)).body.total, 1, 'restored from the trash');
    });

    it('carries every filter, URL-encoded, into the paging URLs, and next_rest_url works', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Hall' });
      const organizer = await createOrganizer(http, users.editor, { organizer: 'Org' });
      const cat = (await call(http, 'post', `${NS}/categories`, users.editor, { name: 'Rock & Roll' })).body as Rec;
      const tag = (await call(http, 'post', `${NS}/tags`, users.editor, { name: 'Loud' })).body as Rec;
      const shared = { venue: venue.id, organizer: [organizer.id], categories: [cat.id], tags: [tag.id], featured: true };
      for (const day of [1, 2, 3]) await add(`R&B, live ${day}`, `2030-05-0${day} 10:00:00`, `2030-05-0${day} 11:00:00`, shared);
      await add('R&B, live elsewhere', '2030-05-04 10:00:00', '2030-05-04 11:00:00', { ...shared, featured: false });
      const query = new URLSearchParams({
        per_page: '1',
        page: '2',
        start_date: '2030-01-01',
        end_date: '2030-12-31',
        search: 'R&B, live',
        categories: 'rock-roll',
        tags: String(tag.id),
        venue: String(venue.id),
        organizer: String(organizer.id),
        featured: 'true',
        ticketed: 'false',
      });
      const res = await listEvents(http, query.toString());
      assert.deepEqual(titlesOf(res), ['R&B, live 2']);
      assert.equal(res.body.total, 3);
      for (const [url, page] of [
        [res.body.rest_url, '2'],
        [res.body.next_rest_url, '3'],
        [res.body.previous_rest_url, null],
      ] as Array<[string, string | null]>) {
        const params = new Map(queryOf(url));
        assert.equal(params.get('page') ?? null, page, url);
        assert.equal(params.get('per_page'), '1', url);
        assert.equal(params.get('start_date'), '2030-01-01 00:00:00', url);
        assert.equal(params.get('end_date'), '2030-12-31 23:59:59', url);
        assert.equal(params.get('search'), 'R&B, live', url);
        assert.equal(params.get('status'), 'publish', url);
        assert.equal(params.get('categories'), 'rock-roll', url);
        assert.equal(params.get('tags'), String(tag.id), url);
        assert.equal(params.get('venue'), String(venue.id), url);
        assert.equal(params.get('organizer'), String(organizer.id), url);
        assert.equal(params.get('featured'), 'true', url);
      }
      const next = await call(http, 'get', pathOf(res.body.next_rest_url));
      assert.deepEqual(titlesOf(next as unknown as Response), ['R&B, live 3']);
      assert.equal(next.body.total, 3);
      const previous = await call(http, 'get', pathOf(res.body.previous_rest_url));
      assert.deepEqual(titlesOf(previous as unknown as Response), ['R&B, live 1']);
      const again = await call(http, 'get', pathOf(res.body.rest_url));
      assert.deepEqual(again.body, res.body);
    });

    it('carries list filters given in bracket and repeated form as comma-separated values', async () => {
      const a = await add('A', '2030-05-01 10:00:00', '2030-05-01 11:00:00');
      const b = await add('B', '2030-05-02 10:00:00', '2030-05-02 11:00:00');
      const res = await listEvents(http, `include[]=${a.id}&include[]=${b.id}&per_page=1`);
      assert.deepEqual(titlesOf(res), ['A']);
      assert.deepEqual(paramOf(res.body.rest_url, 'include')?.split(',').map(Number), [a.id, b.id]);
      const next = await call(http, 'get', pathOf(res.body.next_rest_url));
      assert.deepEqual(titlesOf(next as unknown as Response), ['B']);
    });
  });

  describe('the default date window', () => {
    it('lists events starting from yesterday 00:00 to ending by the day two years ahead on a UTC site', async () => {
      await add('Starts before the window', '2026-11-19 23:59:59', '2026-11-20 01:00:00');
      await add('Ongoing since the day before', '2026-11-19 10:00:00', '2026-11-22 10:00:00');
      await add('First minute of the window', '2026-11-20 00:00:00', '2026-11-20 01:00:00');
      await add('Ends on the last day', '2028-11-21 10:00:00', '2028-11-21 23:59:59');
      await add('Ends after the window', '2028-11-21 10:00:00', '2028-11-22 00:00:00');
      const res = await listEvents(http);
      assert.deepEqual(titlesOf(res), ['First minute of the window', 'Ends on the last day']);
      assert.equal(paramOf(res.body.rest_url, 'start_date'), '2026-11-20 00:00:00');
      assert.equal(paramOf(res.body.rest_url, 'end_date'), '2028-11-21 23:59:59');
    });

    it('starts on the UTC date on a site east of UTC, even when it is already tomorrow there', async () => {
      // 21:18 UTC on 21 November is 06:18 on 22 November in Tokyo; the window still starts on the 21st.
      const tokyo = (await eventsApp({ siteTimezone: 'Asia/Tokyo' })).http;
      const make = (title: string, start: string, end: string) => createEvent(tokyo, users.editor, { title, start_date: start, end_date: end });
      await make('Day before', '2026-11-20 23:00:00', '2026-11-20 23:30:00');
      await make('Window day', '2026-11-21 00:00:00', '2026-11-21 01:00:00');
      const res = await listEvents(tokyo);
      assert.deepEqual(titlesOf(res), ['Window day']);
      assert.equal(paramOf(res.body.rest_url, 'start_date'), '2026-11-21 00:00:00');
      assert.equal(paramOf(res.body.rest_url, 'end_date'), '2028-11-21 23:59:59');
      const morning = await listEvents((await eventsApp({ siteTimezone: 'Asia/Tokyo' }, '2026-11-21T01:00:00Z')).http);
      assert.equal(paramOf(morning.body.rest_url, 'start_date'), '2026-11-21 00:00:00');
    });

    it('starts yesterday on a site west of UTC until UTC midnight, and today after it', async () => {
      const evening = (await eventsApp({ siteTimezone: 'America/New_York' })).http;
      const night = (await eventsApp({ siteTimezone: 'America/New_York' }, '2026-11-22T02:30:00Z')).http;
      const make = (title: string, start: string, end: string) => createEvent(evening, users.editor, { title, start_date: start, end_date: end });
      await make('Friday noon', '2026-11-20 12:00:00', '2026-11-20 13:00:00');
      await make('Saturday morning', '2026-11-21 08:00:00', '2026-11-21 09:00:00');
      // 16:18 on Saturday 21 November in New York: local date = UTC date → yesterday.
      const early = await listEvents(evening);
      assert.deepEqual(titlesOf(early), ['Friday noon', 'Saturday morning']);
      assert.equal(paramOf(early.body.rest_url, 'start_date'), '2026-11-20 00:00:00');
      assert.equal(paramOf(early.body.rest_url, 'end_date'), '2028-11-21 23:59:59');
      // 21:30 on Saturday in New York is already Sunday in UTC → today (Saturday).
      const late = await listEvents(night);
      assert.deepEqual(titlesOf(late), ['Saturday morning']);
      assert.equal(paramOf(late.body.rest_url, 'start_date'), '2026-11-21 00:00:00');
      assert.equal(paramOf(late.body.rest_url, 'end_date'), '2028-11-22 23:59:59');
    });

    it('keeps the default end when only start_date is given (peer 25) and the default start when only end_date is', async () => {
      await add('In 2030', '2030-05-01 10:00:00', '2030-05-01 11:00:00');
      await add('Last week', '2026-11-14 10:00:00', '2026-11-14 11:00:00');
      const res = await listEvents(http, 'start_date=2030-01-01');
      assert.deepEqual(titlesOf(res), []);
      assert.deepEqual(queryOf(res.body.rest_url).slice(2, 4), [
        ['start_date', '2030-01-01 00:00:00'],
        ['end_date', '2028-11-21 23:59:59'],
      ]);
      const onlyEnd = await listEvents(http, 'end_date=2030-12-31');
      assert.deepEqual(titlesOf(onlyEnd), ['In 2030']);
      assert.equal(paramOf(onlyEnd.body.rest_url, 'start_date'), '2026-11-20 00:00:00');
    });
  });

  describe('date filters', () => {
    beforeEach(async () => {
      await add('Late evening before', '2030-04-30 23:00:00', '2030-05-01 01:00:00');
      await add('Midnight', '2030-05-01 00:00:00', '2030-05-01 01:00:00');
      await add('Evening', '2030-05-01 20:00:00', '2030-05-01 23:30:00');
      await add('Next morning', '2030-05-02 10:00:00', '2030-05-02 11:00:00');
    });

    it('treats start_date and end_date as whole days (inclusive) and writes the bounds into rest_url', async () => {
      const res = await listEvents(http, 'start_date=2030-05-01 15:00:00&end_date=2030-05-01 08:00:00');
      assert.deepEqual(titlesOf(res), ['Midnight', 'Evening']);
      assert.equal(paramOf(res.body.rest_url, 'start_date'), '2030-05-01 00:00:00');
      assert.equal(paramOf(res.body.rest_url, 'end_date'), '2030-05-01 23:59:59');
      assert.deepEqual(await titles('start_date=2030-04-30&end_date=2030-05-02'), ['Late evening before', 'Midnight', 'Evening', 'Next morning']);
    });

    it('uses the exact times with strict_dates=true', async () => {
      const res = await listEvents(http, 'start_date=2030-05-01 15:00:00&end_date=2030-05-02 10:30:00&strict_dates=true');
      assert.deepEqual(titlesOf(res), ['Evening']);
      assert.equal(paramOf(res.body.rest_url, 'start_date'), '2030-05-01 15:00:00');
      assert.equal(paramOf(res.body.rest_url, 'end_date'), '2030-05-02 10:30:00');
      assert.deepEqual(await titles('start_date=2030-05-01 00:00:01&end_date=2030-05-02 11:00:00&strict_dates=1'), ['Evening', 'Next morning']);
      assert.deepEqual(await titles('start_date=2030-05-01 15:00:00&end_date=2030-05-01 08:00:00&strict_dates=false'), ['Midnight', 'Evening']);
    });

    it('reads strict dates as UTC and converts them to the site zone (plugin example on a New York site)', async () => {
      const ny = (await eventsApp({ siteTimezone: 'America/New_York' })).http;
      const res = await listEvents(ny, 'start_date=2017-12-21&end_date=2018-01-01&strict_dates=true');
      expectStatus(res, 200);
      assert.equal(paramOf(res.body.rest_url, 'start_date'), '2017-12-20 19:00:00');
      assert.equal(paramOf(res.body.rest_url, 'end_date'), '2017-12-31 19:00:00');
    });

    it('applies starts_after, starts_before, ends_after and ends_before at the end of the given day', async () => {
      assert.deepEqual(await titles('starts_after=2030-04-30'), ['Midnight', 'Evening', 'Next morning']);
      assert.deepEqual(await titles('starts_after=2030-05-01'), ['Next morning']);
      assert.deepEqual(await titles('starts_before=2030-05-01'), ['Late evening before', 'Midnight', 'Evening']);
      assert.deepEqual(await titles('starts_before=2030-04-30'), ['Late evening before']);
      assert.deepEqual(await titles('ends_after=2030-05-01'), ['Next morning']);
      assert.deepEqual(await titles('ends_after=2030-04-30'), ['Late evening before', 'Midnight', 'Evening', 'Next morning']);
      assert.deepEqual(await titles('ends_before=2030-05-01'), ['Late evening before', 'Midnight', 'Evening']);
      assert.deepEqual(await titles('starts_after=2030-04-30&starts_before=2030-05-01'), ['Midnight', 'Evening']);
      const res = await listEvents(http, 'starts_after=2030-05-01 08:00:00');
      assert.equal(paramOf(res.body.rest_url, 'starts_after'), '2030-05-01 23:59:59');
    });

    it('drops the default window when a relative filter is given, but applies an explicit start_date with it', async () => {
      await add('Long ago', '2020-01-01 10:00:00', '2020-01-01 11:00:00');
      await add('Far ahead', '2035-01-01 10:00:00', '2035-01-01 11:00:00');
      const after = await listEvents(http, 'starts_after=2030-05-01');
      assert.deepEqual(titlesOf(after), ['Next morning', 'Far ahead']);
      assert.equal(paramOf(after.body.rest_url, 'start_date'), null);
      assert.equal(paramOf(after.body.rest_url, 'end_date'), null);
      assert.deepEqual(await titles('starts_before=2030-04-30'), ['Long ago', 'Late evening before']);
      assert.deepEqual(await titles('ends_before=2030-05-01&start_date=2030-05-01'), ['Midnight', 'Evening']);
      assert.deepEqual(await titles('starts_after=2030-04-29&end_date=2030-05-01'), ['Late evening before', 'Midnight', 'Evening']);
    });

    it('accepts every date form in the filters', async () => {
      assert.deepEqual(await titles(`start_date=${Date.UTC(2030, 4, 2, 9) / 1000}&end_date=2030-05-02T23:00:00Z`), ['Next morning']);
      // 01:00 on 1 May at +02:00 is still 30 April on this UTC site.
      assert.deepEqual(await titles('start_date=2030-05-01T01:00:00%2B02:00&end_date=2030-05-01'), ['Late evening before', 'Midnight', 'Evening']);
      expectStatus(await listEvents(http, 'start_date=tomorrow 9am&end_date=next wednesday 4pm'), 200);
    });

    it('rejects an unparseable value in any date filter, naming it', async () => {
      for (const name of ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after']) {
        assert.deepEqual(badParams(await listEvents(http, `${name}=not-a-date`)), [name], name);
      }
      assert.deepEqual(badParams(await listEvents(http, 'strict_dates=maybe')), ['strict_dates']);
    });
  });

  describe('filters', () => {
    it('searches title, description and excerpt: every word, quoted phrases and -excluded words', async () => {
      await add('Jazz Night', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { description: 'Live music in the park' });
      await add('Rock Concert', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { excerpt: 'With jazz influences' });
      await add('Piano Recital', '2030-05-03 10:00:00', '2030-05-03 11:00:00', { description: 'Classical music' });
      await add('Jazz Brunch', '2030-05-04 10:00:00', '2030-05-04 11:00:00', { description: 'Food and music' });
      const search = (text: string) => titles(`${YEAR_2030}&search=${encodeURIComponent(text)}`);
      assert.deepEqual(await search('jazz'), ['Jazz Night', 'Rock Concert', 'Jazz Brunch']);
      assert.deepEqual(await search('JAZZ'), ['Jazz Night', 'Rock Concert', 'Jazz Brunch']);
      assert.deepEqual(await search('jazz music'), ['Jazz Night', 'Jazz Brunch']);
      assert.deepEqual(await search('park music'), ['Jazz Night']);
      assert.deepEqual(await search('"park music"'), []);
      assert.deepEqual(await search('"music in the"'), ['Jazz Night']);
      assert.deepEqual(await search('music -jazz'), ['Piano Recital']);
      assert.deepEqual(await search('polka'), []);
      assert.deepEqual(badParams(await listEvents(http, 'search=')), ['search']);
    });

    it('does not let anonymous searches match text hidden behind a password', async () => {
      await add('Locked event', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { password: 'pw', description: 'The code word is sesame', excerpt: 'also sesame' });
      await add('Open event', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { description: 'Nothing to hide' });
      assert.deepEqual(await titles(`${YEAR_2030}&search=sesame`), []);
      assert.deepEqual(await titles(`${YEAR_2030}&search=sesame`, users.subscriber), []);
      assert.deepEqual(await titles(`${YEAR_2030}&search=sesame`, users.editor), ['Locked event']);
    });

    it('excludes words of protected text only for callers who may read it', async () => {
      await add('Locked evening', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { password: 'pw', description: 'The code word is sesame' });
      await add('Open evening', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { description: 'Sesame street' });
      await add('Plain evening', '2030-05-03 10:00:00', '2030-05-03 11:00:00');
      // The anonymous caller cannot tell the locked event's description contains the word.
      assert.deepEqual(await titles(`${YEAR_2030}&search=${encodeURIComponent('evening -sesame')}`), ['Locked evening', 'Plain evening']);
      assert.deepEqual(await titles(`${YEAR_2030}&search=${encodeURIComponent('evening -sesame')}`, users.editor), ['Plain evening']);
      assert.deepEqual(await titles(`${YEAR_2030}&search=${encodeURIComponent('"code word" -street')}`, users.editor), ['Locked evening']);
      assert.deepEqual(await titles(`${YEAR_2030}&search=${encodeURIComponent('"code word"')}`), []);
    });

    it('follows every write of an event at once: create, update, trash, restore, delete, and series-wide changes (docs/contract.md §15)', async () => {
      const search = (text: string, as?: TestUser, extra = '') => titles(`${YEAR_2030}&search=${encodeURIComponent(text)}${extra}`, as);
      const one = await add('Harpsichord recital', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { description: 'Baroque pieces', excerpt: 'Bach' });
      assert.deepEqual(await search('harpsichord'), ['Harpsichord recital']);
      assert.deepEqual(await search('baroque'), ['Harpsichord recital']);
      // An update of one field: the old words stop matching, the new ones match, the other fields still do.
      expectStatus(await call(http, 'patch', eventPath(one.id), users.editor, { title: 'Lute recital' }), 200);
      assert.deepEqual(await search('harpsichord'), []);
      assert.deepEqual(await search('lute'), ['Lute recital']);
      assert.deepEqual(await search('baroque lute'), ['Lute recital']);
      expectStatus(await call(http, 'put', eventPath(one.id), users.editor, { description: 'Renaissance dances', excerpt: '' }), 200);
      assert.deepEqual(await search('baroque'), []);
      assert.deepEqual(await search('bach'), []);
      assert.deepEqual(await search('renaissance'), ['Lute recital']);
      // To the trash and back: listed by status, and the text is still found.
      expectStatus(await call(http, 'delete', eventPath(one.id), users.editor), 200);
      assert.deepEqual(await search('renaissance'), []);
      assert.deepEqual(await search('renaissance', users.editor, '&status=trash'), ['Lute recital']);
      expectStatus(await call(http, 'patch', eventPath(one.id), users.editor, { status: 'publish' }), 200);
      assert.deepEqual(await search('renaissance'), ['Lute recital']);
      // Deleted for good, and a new event with the same words.
      expectStatus(await call(http, 'delete', `${eventPath(one.id)}?force=true`, users.editor), 200);
      assert.deepEqual(await search('renaissance'), []);
      await add('Renaissance fair', '2030-05-02 10:00:00', '2030-05-02 11:00:00');
      assert.deepEqual(await search('renaissance'), ['Renaissance fair']);
      // A series: every occurrence is found, and a series-wide change of the text reaches them all.
      const series = await call(http, 'post', eventsPath, users.editor, {
        title: 'Madrigal choir',
        description: 'Weekly rehearsal',
        start_date: '2030-06-04 19:00:00',
        end_date: '2030-06-04 21:00:00',
        status: 'publish',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      });
      expectStatus(series, 201);
      assert.deepEqual(await search('madrigal'), ['Madrigal choir', 'Madrigal choir', 'Madrigal choir']);
      expectStatus(await call(http, 'patch', eventPath(series.body.id), users.editor, { title: 'Motet choir', description: 'Fortnightly rehearsal' }), 200);
      assert.deepEqual(await search('madrigal'), []);
      assert.deepEqual(await search('weekly'), []);
      assert.deepEqual(await search('motet fortnightly'), ['Motet choir', 'Motet choir', 'Motet choir']);
      expectStatus(await call(http, 'delete', `${eventPath(series.body.id)}?force=true`, users.editor), 200);
      assert.deepEqual(await search('motet'), []);
    });

    it('matches accents, case and short terms as before the index', async () => {
      await add('Café Müller', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { description: 'Tanztheater: STRAẞE, Σοφία' });
      await add('Cafe Muller', '2030-05-02 10:00:00', '2030-05-02 11:00:00');
      const search = (text: string) => titles(`${YEAR_2030}&search=${encodeURIComponent(text)}`);
      // MySQL's collation of the text columns ignores accents; SQLite compares them (docs/contract.md §15).
      const accented = (await openTestDatabase()).target.engine === 'mysql' ? ['Café Müller', 'Cafe Muller'] : ['Café Müller'];
      assert.deepEqual(await search('café'), accented);
      assert.deepEqual(await search('CAFÉ müller'), accented);
      assert.deepEqual(await search('σοφία'), ['Café Müller']);
      // 'ẞ' lower-cases to 'ß' in JavaScript (SQLite's lower()), but MySQL's collation (Unicode 4.0) tells them apart.
      assert.deepEqual(await search('straße'), (await openTestDatabase()).target.engine === 'mysql' ? [] : ['Café Müller']);
      // Under three characters the index cannot narrow: the LIKE scan answers.
      assert.deepEqual(await search('mü'), accented);
      assert.deepEqual(await search('é'), accented);
    });

    it('treats % and _ in search as literal characters', async () => {
      await add('100% fun', '2030-05-01 10:00:00', '2030-05-01 11:00:00');
      await add('1000 fun', '2030-05-02 10:00:00', '2030-05-02 11:00:00');
      assert.deepEqual(await titles(`${YEAR_2030}&search=${encodeURIComponent('0%')}`), ['100% fun']);
      assert.deepEqual(await titles(`${YEAR_2030}&search=_`), []);
    });

    it('filters by categories and tags by id or slug: OR within a list, AND between them', async () => {
      const term = async (collection: string, name: string) => (await call(http, 'post', `${NS}/${collection}`, users.editor, { name })).body as Rec;
      const rock = await term('categories', 'Rock');
      const jazz = await term('categories', 'Jazz');
      const free = await term('tags', 'Free');
      const outdoor = await term('tags', 'Outdoor');
      await add('Rock free', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { categories: [rock.id], tags: [free.id] });
      await add('Jazz outdoor', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { categories: [jazz.id], tags: [outdoor.id] });
      await add('Both outdoor', '2030-05-03 10:00:00', '2030-05-03 11:00:00', { categories: [rock.id, jazz.id], tags: [outdoor.id] });
      await add('Untagged', '2030-05-04 10:00:00', '2030-05-04 11:00:00');
      const filtered = (query: string) => titles(`${YEAR_2030}&${query}`);
      assert.deepEqual(await filtered('categories=rock'), ['Rock free', 'Both outdoor']);
      assert.deepEqual(await filtered(`categories=${jazz.id}`), ['Jazz outdoor', 'Both outdoor']);
      for (const form of [`categories=rock,${jazz.id}`, `categories=rock, jazz`, `categories[]=rock&categories[]=${jazz.id}`, 'categories=rock&categories=jazz']) {
        assert.deepEqual(await filtered(form), ['Rock free', 'Jazz outdoor', 'Both outdoor'], form);
      }
      assert.deepEqual(await filtered('tags=outdoor'), ['Jazz outdoor', 'Both outdoor']);
      assert.deepEqual(await filtered(`categories=rock&tags=${outdoor.id}`), ['Both outdoor']);
      assert.deepEqual(await filtered('categories=jazz&tags=free'), []);
      assert.deepEqual(badParams(await listEvents(http, 'categories=no-such-category')), ['categories']);
      assert.deepEqual(badParams(await listEvents(http, 'categories=rock,999999')), ['categories']);
      assert.deepEqual(badParams(await listEvents(http, `categories=${free.id}`)), ['categories']);
      assert.deepEqual(badParams(await listEvents(http, 'tags=rock')), ['tags']);
    });

    it('reads list parameters given with named bracket keys (categories[a]=x) as lists of their values', async () => {
      for (const name of ['categories', 'tags', 'venue', 'organizer', 'include', 'status']) {
        for (const query of [`${name}[a]=1`, `${name}[a][b]=1`]) {
          const res = await listEvents(http, query);
          assert.ok(res.status < 500, `${query}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
      assert.deepEqual(badParams(await listEvents(http, 'categories[a]=no-such-category')), ['categories']);
      assert.equal((await listEvents(http, 'status[a]=publish')).status, 200);
    });

    it('filters by venue and organizer ids (OR within a list) and rejects ids that are not venues or organizers', async () => {
      const hall = await createVenue(http, users.editor, { venue: 'Hall' });
      const park = await createVenue(http, users.editor, { venue: 'Park' });
      const alice = await createOrganizer(http, users.editor, { organizer: 'Alice' });
      const bob = await createOrganizer(http, users.editor, { organizer: 'Bob' });
      await add('At the hall', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { venue: hall.id, organizer: [alice.id] });
      await add('In the park', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { venue: park.id, organizer: [alice.id, bob.id] });
      await add('Nowhere', '2030-05-03 10:00:00', '2030-05-03 11:00:00');
      const filtered = (query: string) => titles(`${YEAR_2030}&${query}`);
      assert.deepEqual(await filtered(`venue=${hall.id}`), ['At the hall']);
      assert.deepEqual(await filtered(`venue=${hall.id},${park.id}`), ['At the hall', 'In the park']);
      assert.deepEqual(await filtered(`organizer=${bob.id}`), ['In the park']);
      assert.deepEqual(await filtered(`organizer[]=${alice.id}`), ['At the hall', 'In the park']);
      assert.deepEqual(await filtered(`venue=${hall.id}&organizer=${bob.id}`), []);
      for (const value of ['999999', 'abc', String(alice.id), '0']) assert.deepEqual(badParams(await listEvents(http, `venue=${value}`)), ['venue'], value);
      for (const value of ['999999', 'abc', String(hall.id)]) assert.deepEqual(badParams(await listEvents(http, `organizer=${value}`)), ['organizer'], value);
    });

    it('filters featured events in or out', async () => {
      await add('Featured', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { featured: true });
      await add('Plain', '2030-05-02 10:00:00', '2030-05-02 11:00:00');
      assert.deepEqual(await titles(`${YEAR_2030}&featured=true`), ['Featured']);
      assert.deepEqual(await titles(`${YEAR_2030}&featured=1`), ['Featured']);
      assert.deepEqual(await titles(`${YEAR_2030}&featured=false`), ['Plain']);
      assert.deepEqual(await titles(`${YEAR_2030}&featured=0`), ['Plain']);
      assert.deepEqual(await titles(YEAR_2030), ['Featured', 'Plain']);
      assert.deepEqual(badParams(await listEvents(http, 'featured=maybe')), ['featured']);
    });

    it('lets anonymous callers ask only for publish, and editors for any status', async () => {
      await add('Published', '2030-05-01 10:00:00', '2030-05-01 11:00:00');
      await add('Draft', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { status: 'draft' });
      await add('Pending', '2030-05-03 10:00:00', '2030-05-03 11:00:00', { status: 'pending' });
      await add('Private', '2030-05-04 10:00:00', '2030-05-04 11:00:00', { status: 'private' });
      const trashed = await add('Trashed', '2030-05-05 10:00:00', '2030-05-05 11:00:00');
      expectStatus(await call(http, 'delete', eventPath(trashed.id), users.editor), 200);
      assert.deepEqual(await titles(`${YEAR_2030}&status=publish`), ['Published']);
      assert.deepEqual(await titles(YEAR_2030), ['Published']);
      for (const status of ['draft', 'publish,draft', 'any', 'trash']) assert.deepEqual(badParams(await listEvents(http, `${YEAR_2030}&status=${status}`)), ['status'], status);
      assert.deepEqual(badParams(await listEvents(http, 'status=draft', users.subscriber)), ['status']);
      const editor = users.editor;
      const all = await listEvents(http, YEAR_2030, editor);
      assert.deepEqual(titlesOf(all), ['Published', 'Draft', 'Pending', 'Private']);
      assert.equal(paramOf(all.body.rest_url, 'status'), 'any');
      assert.deepEqual(await titles(`${YEAR_2030}&status=draft`, editor), ['Draft']);
      assert.deepEqual(await titles(`${YEAR_2030}&status=draft, pending`, editor), ['Draft', 'Pending']);
      assert.deepEqual(await titles(`${YEAR_2030}&status[]=private&status[]=publish`, editor), ['Published', 'Private']);
      assert.deepEqual(await titles(`${YEAR_2030}&status=any`, editor), ['Published', 'Draft', 'Pending', 'Private']);
      assert.deepEqual(await titles(`${YEAR_2030}&status=trash`, editor), ['Trashed']);
      assert.deepEqual(badParams(await listEvents(http, 'status=bogus', editor)), ['status']);
    });

    it('applies the single-record read rule to every item: own drafts for contributors and authors', async () => {
      const other = await createUser('contributor', 'other-contributor');
      await add('Published', '2030-05-01 10:00:00', '2030-05-01 11:00:00');
      await add('My draft', '2030-05-02 10:00:00', '2030-05-02 11:00:00', {}, users.contributor);
      await add('Their draft', '2030-05-03 10:00:00', '2030-05-03 11:00:00', {}, other);
      await add('Author draft', '2030-05-04 10:00:00', '2030-05-04 11:00:00', { status: 'draft' }, users.author);
      await add('Author private', '2030-05-05 10:00:00', '2030-05-05 11:00:00', { status: 'private' }, users.author);
      await add('Editor draft', '2030-05-06 10:00:00', '2030-05-06 11:00:00', { status: 'draft' });
      const seen = async (as?: TestUser) => {
        const res = await listEvents(http, YEAR_2030, as);
        assert.equal(res.body.total, res.body.events.length, 'total counts only readable events');
        return titlesOf(res);
      };
      assert.deepEqual(await seen(), ['Published']);
      assert.deepEqual(await seen(users.subscriber), ['Published']);
      assert.deepEqual(await seen(users.contributor), ['Published', 'My draft']);
      assert.deepEqual(await seen(other), ['Published', 'Their draft']);
      assert.deepEqual(await seen(users.author), ['Published', 'Author draft', 'Author private']);
      const everything = ['Published', 'My draft', 'Their draft', 'Author draft', 'Author private', 'Editor draft'];
      assert.deepEqual(await seen(users.editor), everything);
      assert.deepEqual(await seen(users.administrator), everything);
      assert.deepEqual(await titles(`${YEAR_2030}&status=draft`, users.contributor), ['My draft']);
    });

    it('filters by venue coordinates: geoloc, and a radius around a point nearest first', async () => {
      const place = (venue: string, geo_lat?: number, geo_lng?: number) => createVenue(http, users.editor, { venue, geo_lat, geo_lng });
      const paris = await place('Paris', 48.8566, 2.3522);
      const boulogne = await place('Boulogne', 48.8397, 2.2399);
      const versailles = await place('Versailles', 48.8049, 2.1204);
      const london = await place('London', 51.5074, -0.1278);
      const unknown = await place('Somewhere');
      // Start dates in the opposite order of the distances from Paris.
      await add('At Paris', '2030-05-05 10:00:00', '2030-05-05 11:00:00', { venue: paris.id });
      await add('At Boulogne', '2030-05-04 10:00:00', '2030-05-04 11:00:00', { venue: boulogne.id });
      await add('At Versailles', '2030-05-03 10:00:00', '2030-05-03 11:00:00', { venue: versailles.id });
      await add('At London', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { venue: london.id });
      await add('Somewhere', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { venue: unknown.id });
      await add('No venue', '2030-05-01 12:00:00', '2030-05-01 13:00:00');
      assert.deepEqual(await titles(`${YEAR_2030}&geoloc=true`), ['At London', 'At Versailles', 'At Boulogne', 'At Paris']);
      assert.deepEqual(await titles(`${YEAR_2030}&geoloc_lat=48.8566&geoloc_lng=2.3522`), ['At Paris', 'At Boulogne']);
      assert.deepEqual(await titles(`${YEAR_2030}&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=20`), ['At Paris', 'At Boulogne', 'At Versailles']);
      assert.deepEqual(await titles(`${YEAR_2030}&geoloc_lat=48.8397&geoloc_lng=2.2399`), ['At Boulogne', 'At Paris', 'At Versailles']);
      assert.deepEqual(await titles(`${YEAR_2030}&geoloc_lat=0&geoloc_lng=0`), []);
      assert.deepEqual(badParams(await listEvents(http, 'geoloc_lat=48.8566')), ['geoloc_lng']);
      assert.deepEqual(badParams(await listEvents(http, 'geoloc_lng=2.3522')), ['geoloc_lat']);
      assert.deepEqual(badParams(await listEvents(http, 'geoloc_lat=95&geoloc_lng=2')), ['geoloc_lat']);
      assert.deepEqual(badParams(await listEvents(http, 'geoloc_lat=48&geoloc_lng=2&geoloc_radius=0')), ['geoloc_radius']);
      assert.deepEqual(badParams(await listEvents(http, 'geoloc=maybe')), ['geoloc']);
    });

    it('lists included ids whatever their dates, by publication date, still under the read rule', async () => {
      const past = await add('Long ago', '2020-01-01 10:00:00', '2020-01-01 11:00:00', { date: '2026-06-01 10:00:00' });
      const far = await add('Far ahead', '2035-01-01 10:00:00', '2035-01-01 11:00:00', { date: '2026-01-01 10:00:00' });
      await add('Not included', '2027-01-01 10:00:00', '2027-01-01 11:00:00');
      const draft = await add('Included draft', '2027-01-02 10:00:00', '2027-01-02 11:00:00', { status: 'draft' });
      const res = await listEvents(http, `include=${past.id},${far.id},${draft.id}`);
      assert.deepEqual(titlesOf(res), ['Far ahead', 'Long ago']);
      assert.equal(paramOf(res.body.rest_url, 'start_date'), null);
      assert.equal(paramOf(res.body.rest_url, 'end_date'), null);
      assert.deepEqual(await titles(`include=${past.id}&start_date=2030-01-01&end_date=2030-12-31&starts_after=2031-01-01`), ['Long ago']);
      assert.deepEqual(await titles(`include=${past.id},${far.id},${draft.id}`, users.editor), ['Far ahead', 'Long ago', 'Included draft']);
      for (const value of ['abc', '0', '', `${past.id},-1`]) assert.deepEqual(badParams(await listEvents(http, `include=${value}`)), ['include'], value);
    });

    it('checks post_parent names an event', async () => {
      const event = await add('Parent', '2027-01-01 10:00:00', '2027-01-01 11:00:00');
      const venue = await createVenue(http, users.editor, { venue: 'Venue' });
      const res = await listEvents(http, `post_parent=${event.id}`);
      assert.deepEqual(titlesOf(res), []);
      assert.equal(paramOf(res.body.rest_url, 'post_parent'), String(event.id));
      for (const value of [String(venue.id), '999999', 'abc', '0']) assert.deepEqual(badParams(await listEvents(http, `post_parent=${value}`)), ['post_parent'], value);
    });

    it('refuses ticketed=true (no ticketing) with event-tickets-not-active and ignores ticketed=false', async () => {
      await addInWindow('Any', 1);
      const res = await listEvents(http, 'ticketed=true');
      assert.deepEqual(badParams(res), ['ticketed']);
      assert.equal(res.body.data.details.ticketed.code, 'event-tickets-not-active');
      assert.deepEqual(badParams(await listEvents(http, 'ticketed=1')), ['ticketed']);
      assert.deepEqual(await titles('ticketed=false'), ['Any']);
      assert.deepEqual(await titles('ticketed=0'), ['Any']);
    });

    it('never lists events hidden from listings, which stay readable by id', async () => {
      await addInWindow('Visible', 1);
      const hidden = await addInWindow('Hidden', 2, { hide_from_listings: true });
      assert.deepEqual(await titles(''), ['Visible']);
      assert.deepEqual(await titles('', users.editor), ['Visible']);
      assert.deepEqual(await titles(`include=${hidden.id}`), []);
      assert.deepEqual(await titles('status=any', users.editor), ['Visible']);
      assert.equal((await listEvents(http)).body.total, 1);
      expectStatus(await call(http, 'get', eventPath(hidden.id)), 200);
    });

    it('combines filters with AND', async () => {
      const hall = await createVenue(http, users.editor, { venue: 'Hall' });
      await add('Featured jazz at the hall', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { venue: hall.id, featured: true });
      await add('Featured jazz elsewhere', '2030-05-02 10:00:00', '2030-05-02 11:00:00', { featured: true });
      await add('Plain jazz at the hall', '2030-05-03 10:00:00', '2030-05-03 11:00:00', { venue: hall.id });
      await add('Featured rock at the hall', '2030-05-04 10:00:00', '2030-05-04 11:00:00', { venue: hall.id, featured: true });
      await add('Featured jazz at the hall, 2031', '2031-05-01 10:00:00', '2031-05-01 11:00:00', { venue: hall.id, featured: true });
      assert.deepEqual(await titles(`${YEAR_2030}&search=jazz&featured=true&venue=${hall.id}`), ['Featured jazz at the hall']);
    });
  });

  describe('ordering and masking', () => {
    it('orders by local start time, then publication date, then id', async () => {
      await add('Tokyo eleven', '2030-05-01 11:00:00', '2030-05-01 12:00:00', { timezone: 'Asia/Tokyo' });
      await add('New York ten', '2030-05-01 10:00:00', '2030-05-01 11:00:00', { timezone: 'America/New_York' });
      await add('UTC nine', '2030-05-01 09:00:00', '2030-05-01 10:00:00');
      await add('Published later', '2030-05-01 12:00:00', '2030-05-01 13:00:00', { date: '2026-10-02 00:00:00' });
      await add('Published earlier', '2030-05-01 12:00:00', '2030-05-01 13:00:00', { date: '2026-10-01 00:00:00' });
      await add('Tie created first', '2030-05-01 13:00:00', '2030-05-01 14:00:00', { date: '2026-10-01 00:00:00' });
      await add('Tie created second', '2030-05-01 13:00:00', '2030-05-01 14:00:00', { date: '2026-10-01 00:00:00' });
      assert.deepEqual(await titles(YEAR_2030), ['UTC nine', 'New York ten', 'Tokyo eleven', 'Published earlier', 'Published later', 'Tie created first', 'Tie created second']);
      assert.deepEqual(await titles(`${YEAR_2030}&per_page=2&page=2`), ['Tokyo eleven', 'Published earlier']);
    });

    it('follows a publication date changed by an update (the list orders on a copy kept on the event)', async () => {
      const first = await add('First', '2030-05-01 12:00:00', '2030-05-01 13:00:00', { date: '2026-10-01 00:00:00' });
      await add('Second', '2030-05-01 12:00:00', '2030-05-01 13:00:00', { date: '2026-10-02 00:00:00' });
      assert.deepEqual(await titles(YEAR_2030), ['First', 'Second']);
      expectStatus(await call(http, 'post', eventPath(first.id), users.editor, { date: '2026-10-03 00:00:00' }), 200);
      assert.deepEqual(await titles(YEAR_2030), ['Second', 'First']);
    });

    it("compares the date filters with each event's local wall time", async () => {
      // 23:00 on 1 May in Tokyo is 14:00 UTC; 20:00 on 1 May in New York is 00:00 UTC on 2 May.
      await add('Tokyo late', '2030-05-01 23:00:00', '2030-05-01 23:30:00', { timezone: 'Asia/Tokyo' });
      await add('New York evening', '2030-05-01 20:00:00', '2030-05-01 21:00:00', { timezone: 'America/New_York' });
      assert.deepEqual(await titles('start_date=2030-05-01&end_date=2030-05-01'), ['New York evening', 'Tokyo late']);
      assert.deepEqual(await titles('start_date=2030-05-02&end_date=2030-05-02'), []);
    });

    it('masks password-protected events in lists for readers who may not edit them', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Hall' });
      const organizer = await createOrganizer(http, users.editor, { organizer: 'Org' });
      const cat = (await call(http, 'post', `${NS}/categories`, users.editor, { name: 'Cat' })).body as Rec;
      const event = await add('Protected', '2030-05-01 10:00:00', '2030-05-01 11:00:00', {
        password: 'secret',
        description: 'Hidden text',
        excerpt: 'Hidden excerpt',
        cost: '20$',
        website: 'https://hidden.example',
        featured: true,
        venue: venue.id,
        organizer: [organizer.id],
        categories: [cat.id],
        image: 'https://cdn.example.test/hidden.png',
      });
      for (const reader of [undefined, users.subscriber, users.contributor]) {
        const [listed] = (await listEvents(http, YEAR_2030, reader)).body.events as Rec[];
        assert.deepEqual(Object.keys(listed), EVENT_KEYS);
        assert.deepEqual(Object.keys(listed.cost_details), ['currency_symbol', 'currency_position', 'currency_code', 'values']);
        const kept = [
          'id',
          'global_id',
          'global_id_lineage',
          'author',
          'status',
          'date',
          'date_utc',
          'modified',
          'modified_utc',
          'url',
          'rest_url',
          'title',
          'slug',
          'start_date',
          'start_date_details',
          'end_date',
          'end_date_details',
          'utc_start_date',
          'utc_start_date_details',
          'utc_end_date',
          'utc_end_date_details',
          'timezone',
          'timezone_abbr',
        ];
        for (const key of kept) assert.deepEqual(listed[key], event[key], key);
        assert.deepEqual(
          {
            description: listed.description,
            excerpt: listed.excerpt,
            image: listed.image,
            all_day: listed.all_day,
            cost: listed.cost,
            cost_details: listed.cost_details,
            website: listed.website,
            show_map: listed.show_map,
            show_map_link: listed.show_map_link,
            hide_from_listings: listed.hide_from_listings,
            sticky: listed.sticky,
            featured: listed.featured,
            categories: listed.categories,
            tags: listed.tags,
            venue: listed.venue,
            organizer: listed.organizer,
          },
          {
            description: '',
            excerpt: '',
            image: false,
            all_day: null,
            cost: '',
            cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
            website: '',
            show_map: null,
            show_map_link: null,
            hide_from_listings: null,
            sticky: null,
            featured: null,
            categories: [],
            tags: [],
            venue: [],
            organizer: [],
          },
          reader?.role ?? 'anonymous',
        );
      }
      const [unmasked] = (await listEvents(http, YEAR_2030, users.editor)).body.events as Rec[];
      assert.deepEqual(unmasked, event);
    });
  });
});
