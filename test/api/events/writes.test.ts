import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import {
  EVENT_KEYS,
  PUBLIC_URL,
  badParams,
  call,
  createEvent,
  createOrganizer,
  createVenue,
  eventBody,
  eventPath,
  eventSlugPath,
  eventsApp,
  eventsPath,
  expectNothingStored,
  pathOf,
  readEvent,
  tableCounts,
  type Body,
  type Http,
  type Method,
  type Rec,
} from '../../helpers/events.js';

describe('events: create, update and delete', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  /** POST /events as `as` (an editor by default), without asserting the status. */
  const post = (body: unknown, as: TestUser = users.editor) => call(http, 'post', eventsPath, as, body);
  /** Creates an event as an editor (201) with `extra` over the default body. */
  const create = (extra: Body = {}, as: TestUser = users.editor) => createEvent(http, as, extra);
  /** An update by id (POST by default) as `as`. */
  const update = (id: number, body: unknown, as: TestUser = users.editor, method: Method = 'post') => call(http, method, eventPath(id), as, body);
  /** Reads an event back as an editor. */
  const reread = (id: number) => readEvent(http, id, users.editor);
  const category = async (name: string) => (await call(http, 'post', `${NS}/categories`, users.editor, { name })).body as Rec;
  const tag = async (name: string) => (await call(http, 'post', `${NS}/tags`, users.editor, { name })).body as Rec;

  describe('create', () => {
    it('answers 201 with a Location at its own URL and every key in the plugin order', async () => {
      const res = await post(
        eventBody({
          title: 'Peer Test Event',
          description: 'An event.',
          excerpt: 'Peer test excerpt',
          timezone: 'America/Chicago',
          cost: '15',
          website: 'https://event.example.test',
          featured: true,
        }),
      );
      expectStatus(res, 201);
      const event = res.body as Rec;
      assert.deepEqual(Object.keys(event), EVENT_KEYS);
      assert.equal(res.headers.location, `${PUBLIC_URL}${NS}/events/${event.id}`);
      assert.deepEqual(
        { ...event, start_date_details: undefined, end_date_details: undefined, utc_start_date_details: undefined, utc_end_date_details: undefined },
        {
          id: event.id,
          global_id: `api.test?id=${event.id}`,
          global_id_lineage: [`api.test?id=${event.id}`],
          author: String(users.editor.id),
          status: 'publish',
          date: '2026-11-21 21:18:07',
          date_utc: '2026-11-21 21:18:07',
          modified: '2026-11-21 21:18:07',
          modified_utc: '2026-11-21 21:18:07',
          url: `${PUBLIC_URL}/event/peer-test-event/`,
          rest_url: `${PUBLIC_URL}${NS}/events/${event.id}`,
          title: 'Peer Test Event',
          description: '<p>An event.</p>',
          excerpt: '<p>Peer test excerpt</p>',
          slug: 'peer-test-event',
          image: false,
          all_day: false,
          start_date: '2030-05-01 10:00:00',
          start_date_details: undefined,
          end_date: '2030-05-01 12:00:00',
          end_date_details: undefined,
          utc_start_date: '2030-05-01 15:00:00',
          utc_start_date_details: undefined,
          utc_end_date: '2030-05-01 17:00:00',
          utc_end_date_details: undefined,
          timezone: 'America/Chicago',
          timezone_abbr: 'CDT',
          cost: '$15',
          cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['15'] },
          website: 'https://event.example.test',
          show_map: false,
          show_map_link: false,
          hide_from_listings: false,
          sticky: false,
          featured: true,
          categories: [],
          tags: [],
          venue: [],
          organizer: [],
          series_id: null,
          managed_by: null,
        },
      );
      assert.deepEqual(event.start_date_details, { year: '2030', month: '05', day: '01', hour: '10', minutes: '00', seconds: '00' });
      assert.deepEqual(event.utc_end_date_details, { year: '2030', month: '05', day: '01', hour: '17', minutes: '00', seconds: '00' });
      const read = await http().get(pathOf(res.headers.location));
      expectStatus(read, 200);
      const { json_ld: _jsonLd, ...withoutJsonLd } = read.body as Rec;
      assert.deepEqual(withoutJsonLd, event);
    });

    it('lists every missing required parameter in declaration order', async () => {
      const none = expectError(await post({}), 400, 'rest_missing_callback_param');
      assert.deepEqual(none.params, ['title', 'start_date', 'end_date']);
      const res = await post({ title: 'no dates' });
      assert.deepEqual(expectError(res, 400, 'rest_missing_callback_param').params, ['start_date', 'end_date']);
      assert.equal(res.body.message, 'Missing parameter(s): start_date, end_date');
      assert.deepEqual(expectError(await post({ start_date: '2030-05-01' }), 400, 'rest_missing_callback_param').params, ['title', 'end_date']);
    });

    it('rejects an empty title and empty or unparseable dates with rest_invalid_param, storing nothing', async () => {
      const before = await tableCounts();
      const cases: Array<[Body, string[]]> = [
        [{ title: '' }, ['title']],
        [{ title: '   ' }, ['title']],
        [{ start_date: '' }, ['start_date']],
        [{ end_date: '' }, ['end_date']],
        [{ start_date: 'not a date' }, ['start_date']],
        [{ end_date: '2030-13-45 10:00:00' }, ['end_date']],
        [{ start_date: 'garbage', end_date: 'more garbage' }, ['start_date', 'end_date']],
        [{ date: 'someday' }, ['date']],
        [{ date_utc: 'never' }, ['date_utc']],
      ];
      for (const [extra, names] of cases) {
        const res = await post(eventBody(extra));
        assert.deepEqual(badParams(res).sort(), [...names].sort(), JSON.stringify(extra));
      }
      await expectNothingStored(before);
    });

    it('needs credentials (401) and the right to edit events (403 for subscribers)', async () => {
      const before = await tableCounts();
      expectError(await call(http, 'post', eventsPath, undefined, eventBody()), 401, 'rest_forbidden');
      expectError(await post(eventBody(), users.subscriber), 403, 'rest_forbidden');
      await expectNothingStored(before);
      for (const role of ['contributor', 'author', 'editor', 'administrator'] as Role[]) expectStatus(await post(eventBody(), users[role]), 201);
    });

    it('validates a create before refusing a caller without the right to create', async () => {
      const res = await post(eventBody({ timezone: 'Mars/Olympus_Mons' }), users.subscriber);
      assert.deepEqual(badParams(res), ['timezone']);
      assert.deepEqual(expectError(await post({}, users.subscriber), 400, 'rest_missing_callback_param').params, ['title', 'start_date', 'end_date']);
    });

    it('derives a unique lower-case slug from the title, for drafts too, and sanitises a given one', async () => {
      assert.equal((await create({ title: 'Café Night!' })).slug, 'cafe-night');
      assert.equal((await create({ title: 'Café Night?' })).slug, 'cafe-night-2');
      assert.equal((await create({ title: 'Café Night', status: 'draft' })).slug, 'cafe-night-3');
      assert.equal((await create({ title: 'Other', slug: 'My Own Slug' })).slug, 'my-own-slug');
      assert.equal((await create({ title: 'Other', slug: 'my-own-slug' })).slug, 'my-own-slug-2');
    });

    it('auto-paragraphs descriptions and strips scripts and handlers from contributors', async () => {
      const plain = await create({ description: 'Text', excerpt: 'Short' });
      assert.equal(plain.description, '<p>Text</p>');
      assert.equal(plain.excerpt, '<p>Short</p>');
      const html = '<p>Hello</p><script>alert(1)</script><a href="javascript:alert(2)" onclick="steal()">link</a>';
      const dirty = await create({ description: html, excerpt: html }, users.contributor);
      for (const field of ['description', 'excerpt']) {
        assert.ok(dirty[field].includes('Hello'), dirty[field]);
        assert.ok(!/<script|onclick|javascript:/i.test(dirty[field]), dirty[field]);
      }
    });
  });

  describe('dates and time zones', () => {
    it('reads every date input form of the contract in the site zone', async () => {
      const forms: Array<[unknown, string]> = [
        ['2030-05-01 10:00:00', '2030-05-01 10:00:00'],
        ['2030-05-01', '2030-05-01 00:00:00'],
        ['2030-05-01T10:00:00', '2030-05-01 10:00:00'],
        ['2030-05-01T10:00:00Z', '2030-05-01 10:00:00'],
        ['2030-05-01T12:00:00+02:00', '2030-05-01 10:00:00'],
        [1903860000, '2030-05-01 10:00:00'],
        ['1903860000', '2030-05-01 10:00:00'],
        ['now', '2026-11-21 21:18:07'],
        ['today', '2026-11-21 00:00:00'],
        ['tomorrow 9am', '2026-11-22 09:00:00'],
        ['+5 days 11am', '2026-11-26 11:00:00'],
        ['next wednesday 4pm', '2026-11-25 16:00:00'],
        ['2018-01-01 4pm', '2018-01-01 16:00:00'],
      ];
      for (const [input, local] of forms) {
        const res = await post(eventBody({ start_date: input, end_date: '2031-01-01 00:00:00' }));
        expectStatus(res, 201);
        assert.equal(res.body.start_date, local, `start_date ${JSON.stringify(input)}`);
        assert.equal(res.body.utc_start_date, local, `utc_start_date ${JSON.stringify(input)}`);
        assert.equal(res.body.timezone, 'UTC');
      }
    });

    it('reads relative phrases relative to now in the event zone', async () => {
      // 21:18 UTC on Saturday 21 November is already 06:18 on Sunday 22 November in Tokyo.
      const event = await create({ timezone: 'Asia/Tokyo', start_date: 'tomorrow 9am', end_date: 'tomorrow 10am' });
      assert.equal(event.start_date, '2026-11-23 09:00:00');
      assert.equal(event.utc_start_date, '2026-11-23 00:00:00');
      assert.equal(event.end_date, '2026-11-23 10:00:00');
    });

    it('parses in the request timezone: the plugin example of a Darwin site and a Hong Kong event', async () => {
      const darwin = (await eventsApp({ siteTimezone: 'Australia/Darwin' })).http;
      const res = await call(darwin, 'post', eventsPath, users.editor, { title: 'HK', start_date: '2018-01-01 4pm', end_date: '2018-01-01 6pm', timezone: 'Asia/Hong_Kong' });
      expectStatus(res, 201);
      assert.equal(res.body.start_date, '2018-01-01 16:00:00');
      assert.equal(res.body.utc_start_date, '2018-01-01 08:00:00');
      assert.equal(res.body.utc_end_date, '2018-01-01 10:00:00');
      assert.equal(res.body.timezone, 'Asia/Hong_Kong');
      const siteZone = await call(darwin, 'post', eventsPath, users.editor, { title: 'Darwin', start_date: '2018-01-01 4pm', end_date: '2018-01-01 6pm' });
      expectStatus(siteZone, 201);
      assert.equal(siteZone.body.timezone, 'Australia/Darwin');
      assert.equal(siteZone.body.start_date, '2018-01-01 16:00:00');
      assert.equal(siteZone.body.utc_start_date, '2018-01-01 06:30:00');
    });

    it('converts instants with an offset and timestamps into the event zone', async () => {
      const cases: Array<[unknown, string, string]> = [
        ['2030-01-15T15:00:00Z', '2030-01-15 10:00:00', '2030-01-15 15:00:00'],
        ['2030-01-15T12:00:00+01:00', '2030-01-15 06:00:00', '2030-01-15 11:00:00'],
        ['2030-01-15 12:00:00 -03:00', '2030-01-15 10:00:00', '2030-01-15 15:00:00'],
        [Date.UTC(2030, 0, 15, 15) / 1000, '2030-01-15 10:00:00', '2030-01-15 15:00:00'],
        [String(Date.UTC(2030, 0, 15, 15) / 1000), '2030-01-15 10:00:00', '2030-01-15 15:00:00'],
      ];
      for (const [input, local, utc] of cases) {
        const event = await create({ timezone: 'America/New_York', start_date: input, end_date: '2030-02-01 00:00:00' });
        assert.equal(event.start_date, local, JSON.stringify(input));
        assert.equal(event.utc_start_date, utc, JSON.stringify(input));
        assert.equal(event.timezone_abbr, 'EST');
      }
    });

    it('accepts UTC+N and UTC-N.5 offset zones, which are their own abbreviation', async () => {
      const plus = await create({ timezone: 'UTC+5' });
      assert.deepEqual([plus.start_date, plus.utc_start_date, plus.timezone, plus.timezone_abbr], ['2030-05-01 10:00:00', '2030-05-01 05:00:00', 'UTC+5', 'UTC+5']);
      const minus = await create({ timezone: 'UTC-3.5' });
      assert.deepEqual([minus.start_date, minus.utc_start_date, minus.timezone, minus.timezone_abbr], ['2030-05-01 10:00:00', '2030-05-01 13:30:00', 'UTC-3.5', 'UTC-3.5']);
      const utc = await create({ timezone: 'UTC' });
      assert.deepEqual([utc.utc_start_date, utc.timezone_abbr], ['2030-05-01 10:00:00', 'UTC']);
    });

    it('rejects an unknown time zone with 400 on timezone, storing nothing', async () => {
      const before = await tableCounts();
      for (const timezone of ['Mars/Olympus_Mons', 'UTC+15', 'UTC+abc', 'not a zone']) {
        assert.deepEqual(badParams(await post(eventBody({ timezone }))), ['timezone'], timezone);
      }
      await expectNothingStored(before);
    });

    it('follows daylight saving time: New York is EST in January and EDT in July', async () => {
      const winter = await create({ timezone: 'America/New_York', start_date: '2030-01-15 10:00:00', end_date: '2030-01-15 11:00:00' });
      assert.deepEqual([winter.utc_start_date, winter.utc_end_date, winter.timezone_abbr], ['2030-01-15 15:00:00', '2030-01-15 16:00:00', 'EST']);
      const summer = await create({ timezone: 'America/New_York', start_date: '2030-07-15 10:00:00', end_date: '2030-07-15 11:00:00' });
      assert.deepEqual([summer.utc_start_date, summer.utc_end_date, summer.timezone_abbr], ['2030-07-15 14:00:00', '2030-07-15 15:00:00', 'EDT']);
    });

    it('writes the tz database abbreviation at the start, as PHP does', async () => {
      const cases: Array<[string, string, string]> = [
        ['Asia/Tokyo', '2030-01-15 10:00:00', 'JST'],
        ['Australia/Sydney', '2030-01-15 10:00:00', 'AEDT'],
        ['Australia/Sydney', '2030-07-15 10:00:00', 'AEST'],
        ['Asia/Kolkata', '2030-01-15 10:00:00', 'IST'],
        ['Europe/Moscow', '2030-01-15 10:00:00', 'MSK'],
        ['Pacific/Auckland', '2030-01-15 10:00:00', 'NZDT'],
        ['Asia/Dubai', '2030-01-15 10:00:00', '+04'],
        ['America/Sao_Paulo', '2030-01-15 10:00:00', '-03'],
      ];
      for (const [timezone, start, abbr] of cases) {
        const event = await create({ timezone, start_date: start, end_date: start });
        assert.equal(event.timezone_abbr, abbr, `${timezone} at ${start}`);
      }
    });

    it('computes each end of an event spanning the DST change with its own offset', async () => {
      // Clocks go forward in New York at 02:00 on 10 March 2030.
      const event = await create({ timezone: 'America/New_York', start_date: '2030-03-09 12:00:00', end_date: '2030-03-11 12:00:00' });
      assert.equal(event.utc_start_date, '2030-03-09 17:00:00');
      assert.equal(event.utc_end_date, '2030-03-11 16:00:00');
      assert.equal(event.timezone_abbr, 'EST');
      const back = await create({ timezone: 'America/New_York', start_date: '2030-11-02 12:00:00', end_date: '2030-11-04 12:00:00' });
      assert.equal(back.utc_start_date, '2030-11-02 16:00:00');
      assert.equal(back.utc_end_date, '2030-11-04 17:00:00');
      assert.equal(back.timezone_abbr, 'EDT');
    });

    it('stretches an all-day event over whole days in its zone (New York 2030-05-01 → 04:00:00 to 03:59:59 UTC)', async () => {
      const event = await create({ timezone: 'America/New_York', all_day: true, start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
      assert.equal(event.all_day, true);
      assert.deepEqual([event.start_date, event.end_date], ['2030-05-01 00:00:00', '2030-05-01 23:59:59']);
      assert.deepEqual([event.utc_start_date, event.utc_end_date], ['2030-05-01 04:00:00', '2030-05-02 03:59:59']);
    });

    it('stretches a multi-day all-day event from its first day to its last', async () => {
      const event = await create({ all_day: 'true', start_date: 'tomorrow 9am', end_date: '+5 days 11am' });
      assert.equal(event.all_day, true);
      assert.deepEqual([event.start_date, event.end_date], ['2026-11-22 00:00:00', '2026-11-26 23:59:59']);
      assert.deepEqual([event.utc_start_date, event.utc_end_date], ['2026-11-22 00:00:00', '2026-11-26 23:59:59']);
    });

    it('rejects an end before the start with 400 on end_date, and accepts an end equal to the start', async () => {
      const before = await tableCounts();
      assert.deepEqual(badParams(await post(eventBody({ start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 09:59:59' }))), ['end_date']);
      await expectNothingStored(before);
      const zero = await create({ start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 10:00:00' });
      assert.equal(zero.end_date, '2030-05-01 10:00:00');
    });

    it('rejects a partial update whose end falls before the stored start, changing nothing', async () => {
      const event = await create({ start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' });
      assert.deepEqual(badParams(await update(event.id, { end_date: '2030-05-01 09:00:00' })), ['end_date']);
      assert.deepEqual(badParams(await update(event.id, { start_date: '2030-05-01 13:00:00' })), ['end_date']);
      const after = await reread(event.id);
      assert.deepEqual([after.start_date, after.end_date], ['2030-05-01 10:00:00', '2030-05-01 12:00:00']);
      const moved = await update(event.id, { end_date: '2030-05-02 12:00:00' });
      expectStatus(moved, 200);
      assert.deepEqual([moved.body.start_date, moved.body.end_date], ['2030-05-01 10:00:00', '2030-05-02 12:00:00']);
    });

    it('makes an existing event all-day on update and keeps it all-day when its dates move', async () => {
      const event = await create({ timezone: 'America/New_York', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00' });
      const on = await update(event.id, { all_day: true });
      expectStatus(on, 200);
      assert.deepEqual(
        [on.body.all_day, on.body.start_date, on.body.end_date, on.body.utc_start_date],
        [true, '2030-05-01 00:00:00', '2030-05-01 23:59:59', '2030-05-01 04:00:00'],
      );
      const moved = await update(event.id, { start_date: '2030-06-01 15:00:00', end_date: '2030-06-03 10:00:00' });
      expectStatus(moved, 200);
      assert.deepEqual([moved.body.all_day, moved.body.start_date, moved.body.end_date], [true, '2030-06-01 00:00:00', '2030-06-03 23:59:59']);
      const off = await update(event.id, { all_day: false, start_date: '2030-06-01 15:00:00', end_date: '2030-06-01 16:00:00' });
      expectStatus(off, 200);
      assert.deepEqual(
        [off.body.all_day, off.body.start_date, off.body.end_date, off.body.utc_end_date],
        [false, '2030-06-01 15:00:00', '2030-06-01 16:00:00', '2030-06-01 20:00:00'],
      );
    });

    it('keeps the wall-clock times and recomputes UTC when only the time zone changes', async () => {
      const event = await create({ timezone: 'America/New_York', start_date: '2030-01-15 10:00:00', end_date: '2030-01-15 11:00:00' });
      const res = await update(event.id, { timezone: 'Europe/Paris' });
      expectStatus(res, 200);
      assert.deepEqual([res.body.start_date, res.body.end_date], ['2030-01-15 10:00:00', '2030-01-15 11:00:00']);
      assert.deepEqual([res.body.utc_start_date, res.body.utc_end_date, res.body.timezone_abbr], ['2030-01-15 09:00:00', '2030-01-15 10:00:00', 'CET']);
    });
  });

  describe('cost, website and flags', () => {
    it('formats every cost form as the plugin and keeps the values as sorted strings', async () => {
      const cases: Array<[unknown, string, [string, string, string[]]]> = [
        ['15', '$15', ['', '', ['15']]],
        [15, '$15', ['', '', ['15']]],
        ['20$', '20$', ['$', 'postfix', ['20']]],
        ['€10', '€10', ['€', 'prefix', ['10']]],
        [['0$', '20$', '30$'], 'Free – 30$', ['$', 'postfix', ['0', '20', '30']]],
        [['30', '5', '100'], '$5 – $100', ['', '', ['5', '30', '100']]],
        // A lone "0" is PHP-empty: the plugin stores no cost (docs/contract.md §6); "0.00" is a cost.
        ['0', '', ['', '', []]],
        [0, '', ['', '', []]],
        ['0.00', 'Free', ['', '', ['0.00']]],
        ['Donation', 'Donation', ['', '', ['donation']]],
      ];
      for (const [cost, formatted, [symbol, position, values]] of cases) {
        const event = await create({ cost });
        assert.equal(event.cost, formatted, JSON.stringify(cost));
        assert.deepEqual(event.cost_details, { currency_symbol: symbol, currency_code: '', currency_position: position, values }, JSON.stringify(cost));
      }
    });

    it('has no cost when none is given, and an empty string removes one', async () => {
      const none = await create();
      assert.equal(none.cost, '');
      assert.deepEqual(none.cost_details, { currency_symbol: '', currency_code: '', currency_position: '', values: [] });
      const paid = await create({ cost: '12$' });
      const res = await update(paid.id, { cost: '' });
      expectStatus(res, 200);
      assert.equal(res.body.cost, '');
      assert.deepEqual(res.body.cost_details.values, []);
      const zero = await update((await create({ cost: '5' })).id, { cost: '0' });
      assert.equal(zero.body.cost, '', 'a lone "0" removes it too');
    });

    it('returns the website as the raw URL, "" when unset, and refuses non-URLs', async () => {
      assert.equal((await create()).website, '');
      const url = 'https://example.com/path?a=1&b=2';
      const event = await create({ website: url });
      assert.equal(event.website, url);
      const before = await tableCounts();
      for (const website of ['not a url', 'javascript:alert(1)', 'example.com']) assert.deepEqual(badParams(await post(eventBody({ website }))), ['website'], website);
      await expectNothingStored(before);
      const cleared = await update(event.id, { website: '' });
      expectStatus(cleared, 200);
      assert.equal(cleared.body.website, '');
    });

    // As the plugin's REST create stores them (docs/contract.md §6): every flag not sent is off.
    it('defaults every flag to off, and stores each one sent', async () => {
      const plain = await create();
      assert.deepEqual([plain.show_map, plain.show_map_link, plain.hide_from_listings, plain.sticky, plain.featured], [false, false, false, false, false]);
      const mapOnly = await create({ show_map: true });
      assert.deepEqual([mapOnly.show_map, mapOnly.show_map_link], [true, false]);
      const flipped = await create({ show_map: false, show_map_link: 'false', hide_from_listings: true, sticky: '1', featured: 'TRUE' });
      assert.deepEqual([flipped.show_map, flipped.show_map_link, flipped.hide_from_listings, flipped.sticky, flipped.featured], [false, false, true, true, true]);
    });

    it('rejects flags that are not booleans with a type message', async () => {
      for (const flag of ['featured', 'sticky', 'all_day', 'show_map']) {
        const res = await post(eventBody({ [flag]: 'maybe' }));
        assert.deepEqual(badParams(res), [flag]);
        assert.equal(res.body.data.params[flag], `${flag} is not of type boolean.`);
      }
    });
  });

  describe('venue input', () => {
    let venue: Rec;
    let other: Rec;
    let organizer: Rec;

    beforeEach(async () => {
      venue = await createVenue(http, users.editor, { venue: 'Main Hall', city: 'Springfield' });
      other = await createVenue(http, users.editor, { venue: 'Side Room' });
      organizer = await createOrganizer(http, users.editor, { organizer: 'The Org' });
    });

    it('links a venue given as a number, a numeric string or an {id} object', async () => {
      for (const given of [venue.id, String(venue.id), { id: venue.id }, { id: venue.id, venue: 'ignored name' }]) {
        const event = await create({ venue: given });
        assert.equal(event.venue.id, venue.id, JSON.stringify(given));
        assert.equal(event.venue.venue, 'Main Hall');
      }
    });

    it('creates a nested new venue, and reuses it for a second event with the same one', async () => {
      const nested = { venue: 'Nested Hall', address: '1 Main Street', city: 'Paris', country: 'France' };
      const first = await create({ venue: nested });
      assert.equal(first.venue.venue, 'Nested Hall');
      assert.equal(first.venue.city, 'Paris');
      const stored = await call(http, 'get', `${NS}/venues/${first.venue.id}`);
      expectStatus(stored, 200);
      assert.equal(stored.body.address, '1 Main Street');
      const before = await tableCounts();
      const second = await create({ title: 'Again', venue: nested });
      assert.equal(second.venue.id, first.venue.id);
      const after = await tableCounts();
      assert.equal(after.venues, before.venues, 'no second venue');
    });

    it('links several venues and answers them as an array, in order', async () => {
      const event = await create({ venue: [other.id, venue.id] });
      assert.ok(Array.isArray(event.venue));
      assert.deepEqual(
        event.venue.map((v: Rec) => v.id),
        [other.id, venue.id],
      );
      const csv = await create({ venue: `${venue.id},${other.id}` });
      assert.deepEqual(
        csv.venue.map((v: Rec) => v.id),
        [venue.id, other.id],
      );
    });

    it('unlinks the venue with 0, "", null or [] and leaves it alone when absent', async () => {
      const event = await create({ venue: venue.id });
      for (const value of [0, '', null, []]) {
        expectStatus(await update(event.id, { venue: venue.id }), 200);
        const res = await update(event.id, { venue: value });
        expectStatus(res, 200);
        assert.deepEqual(res.body.venue, [], JSON.stringify(value));
      }
      expectStatus(await update(event.id, { venue: venue.id }), 200);
      const untouched = await update(event.id, { title: 'Renamed' });
      assert.equal(untouched.body.venue.id, venue.id);
    });

    it('rejects unknown ids and ids of other record types as venues', async () => {
      const event = await create();
      const before = await tableCounts();
      for (const given of [999999, '999999', { id: 999999 }, organizer.id, event.id, [venue.id, 999999], 'abc']) {
        assert.deepEqual(badParams(await post(eventBody({ venue: given }))), ['venue'], JSON.stringify(given));
      }
      await expectNothingStored(before);
    });

    it("creates a nested venue with the creator's publishing right: a draft for a contributor", async () => {
      const event = await create({ venue: { venue: 'Contributor Hall' } }, users.contributor);
      assert.equal(event.venue.status, 'draft');
      assert.equal(event.venue.author, String(users.contributor.id));
    });

    it('refuses to link a venue the caller may not read, or a trashed one', async () => {
      const draft = await createVenue(http, users.editor, { venue: 'Editor Draft Venue', status: 'draft' });
      assert.deepEqual(badParams(await post(eventBody({ venue: draft.id }), users.contributor)), ['venue']);
      assert.equal((await create({ venue: draft.id })).venue.id, draft.id, 'the editor may link it');
      expectStatus(await call(http, 'delete', `${NS}/venues/${other.id}`, users.editor), 200);
      assert.deepEqual(badParams(await post(eventBody({ venue: other.id }))), ['venue']);
    });

    it('rejects a nested venue without a name or with invalid fields, storing neither event nor venue', async () => {
      const before = await tableCounts();
      for (const nested of [{ city: 'Nameless' }, { venue: '' }, { venue: 'Bad Site', website: 'not a url' }, { venue: 'Bad Date', date: 'never' }]) {
        const res = await post(eventBody({ venue: nested }));
        assert.ok(badParams(res).includes('venue'), JSON.stringify(res.body));
      }
      await expectNothingStored(before);
    });
  });

  describe('organizer input', () => {
    let first: Rec;
    let second: Rec;

    beforeEach(async () => {
      first = await createOrganizer(http, users.editor, { organizer: 'First Org', email: 'first@example.test' });
      second = await createOrganizer(http, users.editor, { organizer: 'Second Org' });
    });

    it('links a list mixing ids, {id} objects and new organizers, keeping the order', async () => {
      const event = await create({ organizer: [{ organizer: 'New One', phone: '+1 555' }, { id: second.id }, first.id, String(second.id), { organizer: 'New Two' }] });
      assert.deepEqual(
        event.organizer.map((o: Rec) => o.organizer),
        ['New One', 'Second Org', 'First Org', 'New Two'],
        'a repeated organizer is linked once',
      );
      const created = event.organizer[0];
      expectStatus(await call(http, 'get', `${NS}/organizers/${created.id}`), 200);
      assert.equal(created.phone, '+1 555');
    });

    it('links a single organizer id as a one-item list', async () => {
      const event = await create({ organizer: first.id });
      assert.deepEqual(
        event.organizer.map((o: Rec) => o.id),
        [first.id],
      );
    });

    it('unlinks every organizer with [] or "" and leaves them alone when absent', async () => {
      const event = await create({ organizer: [first.id, second.id] });
      const kept = await update(event.id, { title: 'Other title' });
      assert.deepEqual(
        kept.body.organizer.map((o: Rec) => o.id),
        [first.id, second.id],
      );
      for (const value of [[], '']) {
        expectStatus(await update(event.id, { organizer: [second.id] }), 200);
        const res = await update(event.id, { organizer: value });
        expectStatus(res, 200);
        assert.deepEqual(res.body.organizer, [], JSON.stringify(value));
      }
    });

    it('rejects unknown organizer ids, venue ids and nameless new organizers, storing nothing', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'A Venue' });
      const before = await tableCounts();
      for (const given of [999999, [first.id, 999999], venue.id, [{ phone: '123' }], [{ organizer: 'Valid' }, { id: 999999 }]]) {
        assert.deepEqual(badParams(await post(eventBody({ organizer: given }))), ['organizer'], JSON.stringify(given));
      }
      await expectNothingStored(before);
    });
  });

  describe('form-encoded bodies', () => {
    it('reads nested venue and organizer keys, lists, booleans and costs from a form body', async () => {
      const existing = await createOrganizer(http, users.editor, { organizer: 'Existing Org' });
      const cat = await category('Music');
      const form = [
        'title=Form+Event',
        'start_date=2030-05-01+10%3A00%3A00',
        'end_date=2030-05-01+12%3A00%3A00',
        'timezone=America%2FNew_York',
        'venue[venue]=Form+Hall',
        'venue[city]=Lyon',
        'organizer[0][organizer]=Form+Org',
        `organizer[1]=${existing.id}`,
        `categories[]=${cat.id}`,
        'categories[]=Brand+New',
        'featured=1',
        'show_map=0',
        'cost[]=10',
        'cost[]=20',
      ].join('&');
      const res = await http().post(eventsPath).set('Authorization', users.editor.authorization).type('form').send(form);
      expectStatus(res, 201);
      const event = res.body as Rec;
      assert.equal(event.title, 'Form Event');
      assert.equal(event.utc_start_date, '2030-05-01 14:00:00');
      assert.equal(event.venue.venue, 'Form Hall');
      assert.equal(event.venue.city, 'Lyon');
      assert.deepEqual(
        event.organizer.map((o: Rec) => o.organizer),
        ['Form Org', 'Existing Org'],
      );
      assert.deepEqual(
        event.categories.map((c: Rec) => c.name),
        ['Brand New', 'Music'],
      );
      assert.equal(event.featured, true);
      assert.equal(event.show_map, false);
      assert.equal(event.cost, '$10 – $20');
    });

    it('links and unlinks a venue by id in a form update', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Form Venue' });
      const event = await create();
      const linked = await http().post(eventPath(event.id)).set('Authorization', users.editor.authorization).type('form').send(`venue=${venue.id}`);
      expectStatus(linked, 200);
      assert.equal(linked.body.venue.id, venue.id);
      const unlinked = await http().put(eventPath(event.id)).set('Authorization', users.editor.authorization).type('form').send('venue=');
      expectStatus(unlinked, 200);
      assert.deepEqual(unlinked.body.venue, []);
    });
  });

  describe('categories and tags input', () => {
    it('assigns categories and tags by id, slug and name, ordered by name, in the embedded term shape', async () => {
      const rock = await category('Rock');
      const jazz = await category('Jazz Nights');
      const blues = await category('Blues');
      const free = await tag('Free Entry');
      const event = await create({ categories: [rock.id, 'jazz-nights', 'Blues'], tags: [String(free.id)] });
      assert.deepEqual(
        event.categories.map((c: Rec) => c.id),
        [blues.id, jazz.id, rock.id],
      );
      assert.deepEqual(Object.keys(event.categories[0]), ['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description', 'parent', 'count', 'filter', 'id', 'urls']);
      assert.deepEqual(event.categories[0], {
        name: 'Blues',
        slug: 'blues',
        term_group: 0,
        term_taxonomy_id: blues.id,
        taxonomy: 'tribe_events_cat',
        description: '',
        parent: 0,
        count: 1,
        filter: 'raw',
        id: blues.id,
        urls: { self: `${PUBLIC_URL}${NS}/categories/${blues.id}`, collection: `${PUBLIC_URL}${NS}/categories` },
      });
      const csv = await create({ categories: `${rock.id}, jazz-nights` });
      assert.deepEqual(
        csv.categories.map((c: Rec) => c.id),
        [jazz.id, rock.id],
      );
      assert.equal(event.tags[0].taxonomy, 'post_tag');
      assert.equal(event.tags[0].parent, 0);
      assert.equal(event.tags[0].id, free.id);
    });

    it('rejects unknown term ids and ids of the other taxonomy, storing nothing', async () => {
      const cat = await category('Only Category');
      const tg = await tag('Only Tag');
      const before = await tableCounts();
      assert.deepEqual(badParams(await post(eventBody({ categories: [999999] }))), ['categories']);
      assert.deepEqual(badParams(await post(eventBody({ categories: [tg.id] }))), ['categories']);
      assert.deepEqual(badParams(await post(eventBody({ tags: [cat.id] }))), ['tags']);
      await expectNothingStored(before);
    });

    it('creates unknown names for callers who may manage the taxonomy and refuses them otherwise', async () => {
      const byEditor = await create({ categories: ['Brand New Category'], tags: ['Brand New Tag'] });
      assert.deepEqual(
        byEditor.categories.map((c: Rec) => [c.name, c.slug]),
        [['Brand New Category', 'brand-new-category']],
      );
      assert.deepEqual(
        byEditor.tags.map((t: Rec) => t.name),
        ['Brand New Tag'],
      );
      const listed = await call(http, 'get', `${NS}/categories?hide_empty=false`);
      assert.deepEqual(
        listed.body.categories.map((c: Rec) => c.name),
        ['Brand New Category'],
      );

      const before = await tableCounts();
      assert.deepEqual(badParams(await post(eventBody({ categories: ['Contributor Category'] }), users.contributor)), ['categories']);
      assert.deepEqual(badParams(await post(eventBody({ tags: ['Contributor Tag'] }), users.contributor)), ['tags']);
      // Authors manage event categories but not tags (docs/plugin-behaviour.md §4.2).
      assert.deepEqual(badParams(await post(eventBody({ tags: ['Author Tag'] }), users.author)), ['tags']);
      await expectNothingStored(before);
      const byAuthor = await create({ categories: ['Author Category'] }, users.author);
      assert.deepEqual(
        byAuthor.categories.map((c: Rec) => c.name),
        ['Author Category'],
      );
      // Existing names are fine for a contributor.
      const byContributor = await create({ categories: ['Brand New Category'] }, users.contributor);
      assert.deepEqual(
        byContributor.categories.map((c: Rec) => c.id),
        [byEditor.categories[0].id],
      );
    });

    it('replaces the terms on update, clears them with [] and keeps them when absent', async () => {
      const a = await category('Alpha');
      const b = await category('Beta');
      const event = await create({ categories: [a.id] });
      const kept = await update(event.id, { title: 'New title' });
      assert.deepEqual(
        kept.body.categories.map((c: Rec) => c.id),
        [a.id],
      );
      const replaced = await update(event.id, { categories: [b.id] });
      assert.deepEqual(
        replaced.body.categories.map((c: Rec) => c.id),
        [b.id],
      );
      const cleared = await update(event.id, { categories: [] });
      assert.deepEqual(cleared.body.categories, []);
    });
  });

  describe('partial updates', () => {
    /** An event with every optional field set. */
    const fullEvent = async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Kept Venue' });
      const organizer = await createOrganizer(http, users.editor, { organizer: 'Kept Org' });
      const cat = await category('Kept Category');
      return create({
        title: 'Full Event',
        slug: 'full-event',
        description: 'Kept description',
        excerpt: 'Kept excerpt',
        timezone: 'America/New_York',
        all_day: false,
        start_date: '2030-05-01 10:00:00',
        end_date: '2030-05-01 12:00:00',
        cost: ['5$', '10$'],
        website: 'https://kept.example',
        show_map: false,
        show_map_link: false,
        hide_from_listings: true,
        sticky: true,
        featured: true,
        venue: venue.id,
        organizer: [organizer.id],
        categories: [cat.id],
        image: 'https://images.example/kept.png',
      });
    };

    for (const route of ['id', 'slug'] as const) {
      for (const method of ['post', 'put', 'patch'] as const) {
        it(`changes only the fields sent: ${method.toUpperCase()} by ${route}`, async () => {
          const event = await fullEvent();
          const path = route === 'id' ? eventPath(event.id) : eventSlugPath(event.slug);
          const res = await call(http, method, path, users.editor, { title: 'Only The Title' });
          expectStatus(res, 200);
          assert.deepEqual(Object.keys(res.body), EVENT_KEYS);
          assert.deepEqual({ ...res.body, title: 'Full Event' }, event);
          assert.equal(res.body.title, 'Only The Title');
        });
      }
    }

    it('changes nothing at all on an empty update body', async () => {
      const event = await fullEvent();
      const res = await call(http, 'patch', eventPath(event.id), users.editor);
      expectStatus(res, 200);
      assert.deepEqual(res.body, event);
    });

    it('renames an event through the body slug on the by-slug route', async () => {
      const event = await create({ title: 'Old Name' });
      const res = await call(http, 'post', eventSlugPath('old-name'), users.editor, { slug: 'New Name' });
      expectStatus(res, 200);
      assert.equal(res.body.id, event.id);
      assert.equal(res.body.slug, 'new-name');
      assert.equal(res.body.url, `${PUBLIC_URL}/event/new-name/`);
      assert.equal((await call(http, 'get', eventSlugPath('new-name'))).body.id, event.id);
      expectError(await call(http, 'get', eventSlugPath('old-name')), 404, 'rest-event-not-found');
    });

    it('gives a renamed event a free slug when the new one is taken', async () => {
      await create({ title: 'Taken' });
      const event = await create({ title: 'Mine' });
      const res = await update(event.id, { slug: 'taken' });
      expectStatus(res, 200);
      assert.equal(res.body.slug, 'taken-2');
    });

    it('lets the path win over an id or slug in the body', async () => {
      const target = await create({ title: 'Target' });
      const bystander = await create({ title: 'Bystander' });
      const res = await update(target.id, { id: bystander.id, title: 'Changed' });
      expectStatus(res, 200);
      assert.equal(res.body.id, target.id);
      assert.equal((await reread(bystander.id)).title, 'Bystander');
      const bySlug = await call(http, 'patch', eventSlugPath('bystander'), users.editor, { id: target.id, excerpt: 'by slug' });
      expectStatus(bySlug, 200);
      assert.equal(bySlug.body.id, bystander.id);
    });

    it('answers 404 for an unknown id or slug and 400 for the id of another record type', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Not an event' });
      const missing = await update(999999, { title: 'x' });
      expectError(missing, 404, 'rest-event-not-found');
      assert.equal(missing.body.message, 'Event with ID 999999 does not exist.');
      expectError(await call(http, 'put', eventSlugPath('no-such-event'), users.editor, { title: 'x' }), 404, 'rest-event-not-found');
      expectError(await update(venue.id, { title: 'x' }), 400, 'rest-invalid-event-id');
    });
  });

  describe('status, author and permissions', () => {
    // As the plugin (its publishAssociatedTypes hook, checked side by side): docs/contract.md §6.
    it('publishes the draft venue and organizer an event linked when an update leaves it published', async () => {
      const venue = await createVenue(http, users.author, { venue: 'Draft hall', status: 'draft' });
      const organizer = await createOrganizer(http, users.author, { organizer: 'Draft org', status: 'pending' });
      const event = await create({ status: 'draft', venue: venue.id, organizer: [organizer.id] });
      const published = await update(event.id, { status: 'publish' });
      expectStatus(published, 200);
      assert.equal((published.body.venue as Rec).status, 'publish');
      assert.equal((published.body.organizer as Rec[])[0].status, 'publish');
      assert.equal((await call(http, 'get', `${NS}/venues/${venue.id}`, users.editor)).body.modified, venue.modified, 'its date stays');
      assert.equal(((await readEvent(http, event.id)).venue as Rec).id, venue.id, 'anonymous callers see it embedded');
    });

    it('publishes nothing on create, nor a venue linked by the same update (the next write does), nor for a contributor', async () => {
      const draftVenue = (name: string) => createVenue(http, users.editor, { venue: name, status: 'draft' });
      const first = await draftVenue('Linked at create');
      const created = await create({ status: 'publish', venue: first.id });
      assert.equal((created.venue as Rec).status, 'draft');
      const second = await draftVenue('Linked by an update');
      assert.equal(((await update(created.id, { venue: second.id })).body.venue as Rec).status, 'draft');
      assert.equal(((await update(created.id, { title: 'Again' })).body.venue as Rec).status, 'publish');
      const third = await createVenue(http, users.contributor, { venue: 'Contributor linked' });
      const own = await create({ status: 'draft', venue: third.id }, users.contributor);
      await update(own.id, { status: 'publish' }, users.contributor);
      assert.equal((await call(http, 'get', `${NS}/venues/${third.id}`, users.editor)).body.status, 'draft');
    });

    // The plugin's permission check runs before its handler looks for the event: docs/contract.md §4.
    it('answers 403 before 404 to a caller who may change no event, 404 to one who may change some', async () => {
      expectError(await update(987654321, { title: 'X' }, users.subscriber), 403, 'rest_forbidden');
      expectError(await call(http, 'delete', eventPath(987654321), users.subscriber), 403, 'rest_forbidden');
      expectError(await call(http, 'delete', eventPath(987654321), users.contributor), 404, 'rest-event-not-found');
    });

    it('scales back a contributor: no status → draft, publish/future → pending, private → 403', async () => {
      const c = users.contributor;
      assert.equal((await create({}, c)).status, 'draft');
      assert.equal((await create({ status: 'publish' }, c)).status, 'pending');
      assert.equal((await create({ status: 'future', date: '2027-01-01 10:00:00' }, c)).status, 'pending');
      assert.equal((await create({ status: 'draft' }, c)).status, 'draft');
      assert.equal((await create({ status: 'pending' }, c)).status, 'pending');
      const before = await tableCounts();
      expectError(await post(eventBody({ status: 'private' }), c), 403, 'rest_forbidden');
      await expectNothingStored(before);
      const own = await create({}, c);
      assert.equal((await update(own.id, { status: 'publish' }, c)).body.status, 'pending');
    });

    it('publishes for publishers by default and schedules a future publication date', async () => {
      assert.equal((await create({}, users.author)).status, 'publish');
      assert.equal((await create({ status: 'draft' })).status, 'draft');
      assert.equal((await create({ status: 'private' })).status, 'private');
      const scheduled = await create({ date: '2027-01-01 10:00:00' });
      assert.deepEqual([scheduled.status, scheduled.date], ['future', '2027-01-01 10:00:00']);
      assert.equal((await create({ status: 'future', date: '2020-01-01 10:00:00' })).status, 'publish');
      assert.deepEqual(badParams(await post(eventBody({ status: 'bogus' }))), ['status']);
    });

    it('does not publish a draft on an update that does not send a status', async () => {
      const draft = await create({ status: 'draft' });
      const res = await update(draft.id, { title: 'Still a draft' });
      assert.equal(res.body.status, 'draft');
    });

    it('lets contributors edit only their own unpublished events, authors their own, editors all', async () => {
      const byContributor = await create({}, users.contributor);
      const byAuthor = await create({}, users.author);
      const byEditor = await create();
      expectStatus(await update(byContributor.id, { title: 'mine' }, users.contributor), 200);
      expectError(await update(byAuthor.id, { title: 'theirs' }, users.contributor), 403, 'rest_forbidden');
      expectError(await update(byEditor.id, { title: 'theirs' }, users.contributor), 403, 'rest_forbidden');
      expectStatus(await update(byAuthor.id, { title: 'mine, published' }, users.author), 200);
      expectError(await update(byEditor.id, { title: 'theirs' }, users.author), 403, 'rest_forbidden');
      expectError(await update(byContributor.id, { title: 'theirs' }, users.author), 403, 'rest_forbidden');
      expectStatus(await update(byContributor.id, { status: 'publish' }, users.editor), 200);
      expectError(await update(byContributor.id, { title: 'mine but published' }, users.contributor), 403, 'rest_forbidden');
      expectStatus(await update(byAuthor.id, { title: 'any' }, users.administrator), 200);
      expectError(await update(byEditor.id, { title: 'x' }, users.subscriber), 403, 'rest_forbidden');
      expectError(await call(http, 'post', eventPath(byEditor.id), undefined, { title: 'x' }), 401, 'rest_forbidden');
      expectError(await call(http, 'post', eventPath(999999), undefined, { title: 'x' }), 401, 'rest_forbidden');
      assert.equal((await reread(byEditor.id)).title, 'Event');
    });

    it('sets the author: editors to anyone, others only to themselves, unknown users refused', async () => {
      const assigned = await create({ author: users.author.id });
      assert.equal(assigned.author, String(users.author.id));
      assert.equal((await create({ author: users.author.id }, users.author)).author, String(users.author.id));
      const before = await tableCounts();
      expectError(await post(eventBody({ author: users.editor.id }), users.author), 403, 'rest_forbidden');
      assert.deepEqual(badParams(await post(eventBody({ author: 999999 }))), ['author']);
      await expectNothingStored(before);
      const reassigned = await update(assigned.id, { author: users.contributor.id });
      assert.equal(reassigned.body.author, String(users.contributor.id));
    });

    it('protects an event with a password set by an editor; "" removes it; it is never returned', async () => {
      const event = await create({ password: 'sesame' });
      assert.deepEqual(Object.keys(event), EVENT_KEYS);
      expectError(await call(http, 'get', eventPath(event.id)), 403, 'event-password-protected');
      expectStatus(await call(http, 'get', `${eventPath(event.id)}?password=sesame`), 200);
      const cleared = await update(event.id, { password: '' });
      expectStatus(cleared, 200);
      assert.ok(!('password' in cleared.body));
      expectStatus(await call(http, 'get', eventPath(event.id)), 200);
    });
  });

  describe('images', () => {
    it('records an image URL once and reuses its id, in the shared id space', async () => {
      const url = 'https://cdn.example.test/photos/Poster.JPG';
      const first = await create({ image: url });
      assert.deepEqual(Object.keys(first.image).slice(0, 3), ['url', 'id', 'extension']);
      assert.equal(first.image.url, url);
      assert.equal(first.image.extension, 'jpg');
      assert.ok(Number.isInteger(first.image.id));
      const second = await create({ image: url });
      assert.equal(second.image.id, first.image.id);
      const byId = await create({ image: first.image.id });
      assert.deepEqual(byId.image, first.image);
      expectError(await call(http, 'get', eventPath(first.image.id)), 400, 'rest-invalid-event-id');
    });

    it('refuses non-image ids and non-http URLs, and any URL from contributors', async () => {
      const known = (await create({ image: 'https://cdn.example.test/known.png' })).image;
      const venue = await createVenue(http, users.editor, { venue: 'Not an image' });
      const before = await tableCounts();
      for (const image of [venue.id, 999999, 'ftp://cdn.example.test/a.png', 'not a url']) {
        assert.deepEqual(badParams(await post(eventBody({ image }))), ['image'], String(image));
      }
      assert.deepEqual(badParams(await post(eventBody({ image: 'https://cdn.example.test/new.png' }), users.contributor)), ['image']);
      assert.deepEqual(badParams(await post(eventBody({ image: 'https://cdn.example.test/known.png' }), users.contributor)), ['image'], 'a known URL too');
      await expectNothingStored(before);
      assert.equal((await create({ image: known.id }, users.contributor)).image.id, known.id);
    });

    it('removes the image with null and keeps it when absent', async () => {
      const event = await create({ image: 'https://cdn.example.test/a.gif' });
      assert.equal((await update(event.id, { title: 'keeps image' })).body.image.id, event.image.id);
      const res = await update(event.id, { image: null });
      expectStatus(res, 200);
      assert.equal(res.body.image, false);
    });
  });

  describe('delete', () => {
    it('moves an event to the trash (200, status trash), then answers 410, and force deletes it for good', async () => {
      const event = await create({ title: 'Doomed' });
      const trashed = await call(http, 'delete', eventPath(event.id), users.editor);
      expectStatus(trashed, 200);
      assert.deepEqual(Object.keys(trashed.body), EVENT_KEYS);
      assert.equal(trashed.body.status, 'trash');
      assert.equal(trashed.body.slug, 'doomed');
      const again = await call(http, 'delete', eventPath(event.id), users.editor);
      expectError(again, 410, 'event-is-in-trash');
      assert.equal(again.body.message, 'The event is already trashed');
      assert.equal((await reread(event.id)).status, 'trash');
      const before = await tableCounts();
      const forced = await call(http, 'delete', `${eventPath(event.id)}?force=true`, users.editor);
      expectStatus(forced, 200);
      assert.equal(forced.body.id, event.id);
      expectError(await call(http, 'get', eventPath(event.id), users.editor), 404, 'rest-event-not-found');
      const after = await tableCounts();
      assert.equal(after.posts, before.posts - 1);
      assert.equal(after.events, before.events - 1);
    });

    it('deletes a published event permanently at once with force=true', async () => {
      const event = await create();
      expectStatus(await call(http, 'delete', `${eventPath(event.id)}?force=1`, users.editor), 200);
      expectError(await call(http, 'get', eventPath(event.id), users.editor), 404, 'rest-event-not-found');
      expectError(await call(http, 'delete', eventPath(event.id), users.editor), 404, 'rest-event-not-found');
    });

    it('restores a trashed event by updating its status', async () => {
      const event = await create();
      expectStatus(await call(http, 'delete', eventPath(event.id), users.editor), 200);
      const restored = await update(event.id, { status: 'publish' });
      expectStatus(restored, 200);
      assert.equal(restored.body.status, 'publish');
      expectStatus(await call(http, 'get', eventPath(event.id)), 200);
    });

    it('deletes by slug', async () => {
      const event = await create({ title: 'Slug Doomed' });
      const res = await call(http, 'delete', eventSlugPath('slug-doomed'), users.editor);
      expectStatus(res, 200);
      assert.deepEqual([res.body.id, res.body.status], [event.id, 'trash']);
    });

    it('applies the delete rights: 401 anonymous, 403 without the right, 404 unknown, 400 another type', async () => {
      const byEditor = await create();
      const byContributor = await create({}, users.contributor);
      const venue = await createVenue(http, users.editor, { venue: 'Venue' });
      expectError(await call(http, 'delete', eventPath(byEditor.id)), 401, 'rest_forbidden');
      expectError(await call(http, 'delete', eventPath(999999)), 401, 'rest_forbidden');
      expectError(await call(http, 'delete', eventPath(byEditor.id), users.subscriber), 403, 'rest_forbidden');
      expectError(await call(http, 'delete', eventPath(byEditor.id), users.contributor), 403, 'rest_forbidden');
      expectError(await call(http, 'delete', eventPath(byEditor.id), users.author), 403, 'rest_forbidden');
      assert.equal((await reread(byEditor.id)).status, 'publish');
      expectStatus(await call(http, 'delete', eventPath(byContributor.id), users.contributor), 200);
      expectError(await call(http, 'delete', eventPath(999999), users.editor), 404, 'rest-event-not-found');
      expectError(await call(http, 'delete', eventPath(venue.id), users.editor), 400, 'rest-invalid-event-id');
      expectError(await call(http, 'delete', eventSlugPath('nothing-here'), users.editor), 404, 'rest-event-not-found');
    });
  });

  describe('atomic writes', () => {
    it('stores nothing when a later part of the body is invalid (new venue, new category, bad organizer)', async () => {
      const before = await tableCounts();
      const res = await post(eventBody({ venue: { venue: 'Would Be New' }, categories: ['Would Be New Too'], organizer: [{ organizer: 'New Org' }, 999999] }));
      assert.deepEqual(badParams(res), ['organizer']);
      await expectNothingStored(before);
    });

    it('rolls back the nested venue and the new terms when the image fails inside the write', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Plain Venue' });
      const before = await tableCounts();
      const res = await post(eventBody({ venue: { venue: 'Rolled Back Hall' }, categories: ['Rolled Back'], organizer: [{ organizer: 'Rolled Back Org' }], image: venue.id }));
      assert.deepEqual(badParams(res), ['image']);
      await expectNothingStored(before);
    });

    it('leaves the event unchanged when an update fails half-way', async () => {
      const venue = await createVenue(http, users.editor, { venue: 'Plain Venue' });
      const event = await create({ title: 'Stable' });
      const before = await tableCounts();
      const snapshot = await reread(event.id);
      const res = await update(event.id, { title: 'Changed', venue: { venue: 'Half Way Hall' }, tags: ['Half Way Tag'], image: venue.id });
      assert.deepEqual(badParams(res), ['image']);
      await expectNothingStored(before);
      assert.deepEqual(await reread(event.id), snapshot);
    });
  });

  describe('concurrent writes', () => {
    it('gives concurrent creates with one title distinct slugs', async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => post(eventBody({ title: 'Rush Hour' }))));
      for (const res of answers) expectStatus(res, 201);
      const slugs = answers.map((res) => res.body.slug as string).sort();
      assert.deepEqual(slugs, ['rush-hour', ...Array.from({ length: 7 }, (_, i) => `rush-hour-${i + 2}`)].sort());
    });

    it('lets concurrent creates add the same new category, tag and image', async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => post(eventBody({ title: 'Crowd', categories: ['Brand New'], tags: ['Fresh'], image: 'https://cdn.example.test/crowd.png' }))),
      );
      for (const res of answers) expectStatus(res, 201);
      assert.equal(new Set(answers.map((res) => res.body.categories[0].id)).size, 1);
      assert.equal(new Set(answers.map((res) => res.body.tags[0].id)).size, 1);
      assert.equal(new Set(answers.map((res) => res.body.image.id)).size, 1);
    });
  });

  describe('round trips', () => {
    it('ignores read-only fields sent back in an update body', async () => {
      const event = await create({ title: 'Round Trip' });
      const res = await update(event.id, {
        ...event,
        id: 123456,
        utc_start_date: '1999-01-01 00:00:00',
        start_date_details: { year: '1999' },
        timezone_abbr: 'XYZ',
        cost_details: { values: ['999'] },
        global_id: 'elsewhere?id=1',
        rest_url: 'http://elsewhere/',
        title: 'Round Trip 2',
      });
      expectStatus(res, 200);
      assert.deepEqual({ ...res.body, title: 'Round Trip' }, event);
    });

    it('accepts a whole record read by GET as an update body', async () => {
      const cat = await category('Round');
      const event = await create({ categories: [cat.id], image: 'https://cdn.example.test/round.png' });
      const read = await reread(event.id);
      const res = await call(http, 'put', eventPath(event.id), users.editor, read);
      expectStatus(res, 200);
      assert.deepEqual(res.body, event);
    });
  });
});
