import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Role } from '../../../src/auth/capabilities.js';
import { EMBED_LIMITS, TEXT_LIMITS } from '../../../src/text/limits.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { insertEvent } from '../../helpers/event-rows.js';
import { call, createEvent, eventBody, eventPath, eventsApp, eventsPath, type Http, type Rec } from '../../helpers/events.js';

/**
 * Text-field limits (docs/limits.md "Text fields and reply sizes"): every text field a caller writes
 * is bounded, a longer one is 400 `rest_invalid_param` naming the field and writes nothing, and rows
 * written before the limits (straight into the database) cannot make a list, a record or the change
 * feed fail.
 */
describe('text-field limits and reply sizes', function () {
  this.timeout(120_000);
  let http: Http;
  let db: Knex;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    ({ db } = await openTestDatabase());
    users = await createUsers();
  });

  const rowCount = async () =>
    Number(((await db('posts').count({ n: '*' })) as Array<{ n: number | string }>)[0].n) + Number(((await db('terms').count({ n: '*' })) as Array<{ n: number | string }>)[0].n);

  /** Sends `body` and expects 400 `rest_invalid_param` naming `field`, with nothing written. */
  async function refused(method: 'post' | 'patch', path: string, body: Record<string, unknown>, field: string, as: TestUser = users.administrator) {
    const before = await rowCount();
    const res = await call(http, method, path, as, body);
    const data = expectError(res, 400, 'rest_invalid_param') as { params: Record<string, string> };
    assert.ok(field in data.params, `params name ${field}: ${JSON.stringify(data.params).slice(0, 300)}`);
    assert.ok(data.params[field].length < 300, 'the reason is short');
    assert.equal(await rowCount(), before, 'a refused write stores nothing');
    return data.params[field];
  }

  const over = (limit: number) => 'x'.repeat(limit + 1);

  describe('every text field a caller writes has a limit, past which it is 400 naming the field', () => {
    it('events', async () => {
      const fields: Record<string, number> = { title: TEXT_LIMITS.title, description: TEXT_LIMITS.description, excerpt: TEXT_LIMITS.excerpt, cost: TEXT_LIMITS.cost };
      for (const [field, limit] of Object.entries(fields)) await refused('post', eventsPath, eventBody({ [field]: over(limit) }), field);
      await refused('post', eventsPath, eventBody({ website: `http://a.example/${over(TEXT_LIMITS.url)}` }), 'website');
      await refused('post', eventsPath, eventBody({ cost: ['1'.repeat(200), '2'.repeat(200)] }), 'cost');
      await refused('post', eventsPath, eventBody({ timezone: over(64) }), 'timezone');
      await refused('post', eventsPath, eventBody({ slug: over(200) }), 'slug');
      const rdates = Array.from({ length: 11 }, (_, i) => `RDATE:2030050${i % 9}T100000Z${',20300601T100000Z'.repeat(110)}`);
      assert.match(await refused('post', eventsPath, eventBody({ recurrence: rdates }), 'recurrence'), /at most 20,000 characters/);
      const event = await createEvent(http, users.administrator);
      for (const [field, limit] of Object.entries(fields)) await refused('patch', eventPath(event.id), { [field]: over(limit) }, field);
    });

    it('venues and organizers, standalone and inside an event', async () => {
      const venue = { venue: 'V', address: 'A', city: 'C', country: 'F', province: 'P', state: 'S', zip: 'Z', phone: 'T', stateprovince: 'SP' };
      for (const field of Object.keys(venue)) {
        const limit = field === 'venue' ? TEXT_LIMITS.title : TEXT_LIMITS.field;
        await refused('post', `${NS}/venues`, { ...venue, [field]: over(limit) }, field);
      }
      await refused('post', `${NS}/venues`, { venue: 'V', description: over(TEXT_LIMITS.description) }, 'description');
      await refused('post', `${NS}/organizers`, { organizer: over(TEXT_LIMITS.title) }, 'organizer');
      await refused('post', `${NS}/organizers`, { organizer: 'O', phone: over(TEXT_LIMITS.field) }, 'phone');
      await refused('post', `${NS}/organizers`, { organizer: 'O', email: `${over(TEXT_LIMITS.email)}@a.example` }, 'email');
      await refused('post', `${NS}/organizers`, { organizer: 'O', description: over(TEXT_LIMITS.description) }, 'description');
      // A new venue or organizer in an event is refused on the event's field.
      await refused('post', eventsPath, eventBody({ venue: { venue: 'V', description: over(TEXT_LIMITS.description) } }), 'venue');
      await refused('post', eventsPath, eventBody({ organizer: [{ organizer: over(TEXT_LIMITS.title) }] }), 'organizer');
    });

    it('categories and tags, standalone and named in an event', async () => {
      for (const collection of ['categories', 'tags']) {
        await refused('post', `${NS}/${collection}`, { name: over(TEXT_LIMITS.termName) }, 'name');
        await refused('post', `${NS}/${collection}`, { name: 'N', description: over(TEXT_LIMITS.termDescription) }, 'description');
        await refused('post', eventsPath, eventBody({ [collection]: [over(TEXT_LIMITS.termName)] }), collection);
      }
    });

    it('counts the text as stored: a contributor’s `<` is escaped to `&lt;` and counts four', async () => {
      // Within the input limit, past it once cleaned: refused by the service, not by the document.
      const reason = await refused('post', eventsPath, eventBody({ description: '<'.repeat(TEXT_LIMITS.description / 2) }), 'description', users.contributor);
      assert.match(reason, /at most 16,384 characters/);
      await refused('post', `${NS}/venues`, { venue: 'V', description: '<'.repeat(TEXT_LIMITS.description / 2) }, 'description', users.author);
    });

    it('a text at its limit is stored whole, counted in characters (code points), not bytes', async () => {
      const title = '😀'.repeat(TEXT_LIMITS.title);
      const event = await createEvent(http, users.administrator, { title, description: 'é'.repeat(TEXT_LIMITS.description) });
      assert.equal(event.title, title);
      assert.equal(event.description, `<p>${'é'.repeat(TEXT_LIMITS.description)}</p>`);
    });

    it('an event links at most 3 venues, 5 organizers, 10 categories and 20 tags, however they are sent', async () => {
      const ids = async (path: string, body: (i: number) => Record<string, unknown>, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          const res = await call(http, 'post', `${NS}/${path}`, users.administrator, body(i));
          expectStatus(res, 201);
          out.push(res.body.id as number);
        }
        return out;
      };
      const venues = await ids('venues', (i) => ({ venue: `V${i}` }), EMBED_LIMITS.venues + 1);
      const organizers = await ids('organizers', (i) => ({ organizer: `O${i}` }), EMBED_LIMITS.organizers + 1);
      await refused('post', eventsPath, eventBody({ venue: venues }), 'venue');
      await refused('post', eventsPath, eventBody({ venue: venues.join(' ') }), 'venue');
      await refused('post', eventsPath, eventBody({ organizer: organizers.join(',') }), 'organizer');
      await refused('post', eventsPath, eventBody({ categories: Array.from({ length: EMBED_LIMITS.categories + 1 }, (_, i) => `c${i}`).join(',') }), 'categories');
      await refused('post', eventsPath, eventBody({ tags: Array.from({ length: EMBED_LIMITS.tags + 1 }, (_, i) => `t${i}`) }), 'tags');
      const event = await createEvent(http, users.administrator, { venue: venues.slice(1), organizer: organizers.slice(1) });
      assert.equal((event.venue as Rec[]).length, EMBED_LIMITS.venues);
      assert.equal((event.organizer as Rec[]).length, EMBED_LIMITS.organizers);
    });
  });

  describe('embedded records carry their descriptions cut to 400 characters', () => {
    it('in an event; the whole text stays on their own routes', async () => {
      const long = `<p>${'word '.repeat(200)}</p><p><a href="http://a.example/">${'link '.repeat(100)}</a></p>`;
      const venue = (await call(http, 'post', `${NS}/venues`, users.administrator, { venue: 'Hall', description: long })).body as Rec;
      const tag = (await call(http, 'post', `${NS}/tags`, users.administrator, { name: 'Jazz', description: long })).body as Rec;
      const event = await createEvent(http, users.administrator, { venue: venue.id, tags: [tag.id] });
      const embeddedVenue = event.venue as Rec;
      assert.ok((embeddedVenue.description as string).length <= TEXT_LIMITS.embedded + 20, 'cut, with its paragraphs');
      assert.ok(long.startsWith((embeddedVenue.description as string).slice(0, 100)));
      assert.ok(((event.tags as Rec[])[0].description as string).length <= TEXT_LIMITS.embedded);
      const whole = (await call(http, 'get', `${NS}/venues/${venue.id}`)).body as Rec;
      assert.ok((whole.description as string).includes('link link'));
      // Term descriptions keep kses's inline tags only (docs/contract.md §3): the paragraphs go, their text stays.
      assert.equal(((await call(http, 'get', `${NS}/tags/${tag.id}`)).body as Rec).description, long.replace(/<\/?p>/g, ''));
    });

    it('a cut inside a tag or a character reference drops the unfinished tag or reference', async () => {
      const description = `${'a'.repeat(TEXT_LIMITS.embedded - 5)}<a href="http://a.example/">x</a> &amp; more`;
      const venue = (await call(http, 'post', `${NS}/venues`, users.administrator, { venue: 'Cut', description })).body as Rec;
      const event = await createEvent(http, users.administrator, { venue: venue.id });
      assert.equal((event.venue as Rec).description, `<p>${'a'.repeat(TEXT_LIMITS.embedded - 5)}</p>`);
    });
  });

  describe('a page of default size stays within REPLY_LIMIT (8 MiB), whatever its records hold', () => {
    /**
     * The worst case of docs/limits.md, built through the API: ten events (the default page), each
     * linking the most venues, organizers, categories and tags it may, every text field at its limit
     * and filled with what grows most once sent (`\u0001` is six bytes of JSON; `\u0001\n` in a
     * description becomes `\u0001<br />\n`, seven bytes a character).
     */
    it('the worst case: ten events embedding 3 venues, 5 organizers, 10 categories and 20 tags, every field full', async () => {
      const admin = users.administrator;
      const plain = (n: number, tail = '') => '\u0001'.repeat(n - tail.length) + tail;
      const html = (n: number) => '\u0001\n'.repeat(n / 2);
      const url = (n: number) => `http://a.example/${'\u0001'.repeat(n - 'http://a.example/'.length - 1)}x`;
      const image = `http://a.example/${'%01'.repeat(200)}.png`;
      const post = async (path: string, body: Record<string, unknown>) => {
        const res = await call(http, 'post', `${NS}/${path}`, admin, body);
        expectStatus(res, 201);
        return res.body.id as number;
      };
      const linkedBody = (i: number) => ({ description: html(TEXT_LIMITS.description), website: url(TEXT_LIMITS.url), image, phone: plain(TEXT_LIMITS.field, `${i}`) });
      const venueFields = Object.fromEntries(['address', 'city', 'country', 'province', 'state', 'zip', 'stateprovince'].map((f) => [f, plain(TEXT_LIMITS.field)]));
      const venues: number[] = [];
      for (let i = 0; i < EMBED_LIMITS.venues; i++) venues.push(await post('venues', { venue: plain(TEXT_LIMITS.title, `${i}`), ...venueFields, ...linkedBody(i) }));
      const organizers: number[] = [];
      for (let i = 0; i < EMBED_LIMITS.organizers; i++)
        organizers.push(await post('organizers', { organizer: plain(TEXT_LIMITS.title, `${i}`), email: `${'a'.repeat(TEXT_LIMITS.email - 12)}@${i}.example`, ...linkedBody(i) }));
      const terms = async (collection: string, n: number) => {
        const ids: number[] = [];
        for (let i = 0; i < n; i++) ids.push(await post(collection, { name: plain(TEXT_LIMITS.termName, `${i}`), description: plain(TEXT_LIMITS.termDescription) }));
        return ids;
      };
      const categories = await terms('categories', EMBED_LIMITS.categories);
      const tags = await terms('tags', EMBED_LIMITS.tags);
      // Ten occurrences of one series: each carries the series' rules, as long as they may be (1,000
      // EXDATE values with a time zone: about 17,500 characters of lines).
      const value = (n: number) =>
        `2029${String(1 + (n % 12)).padStart(2, '0')}${String(1 + (n % 28)).padStart(2, '0')}T${String(n % 24).padStart(2, '0')}${String(n % 60).padStart(2, '0')}00`;
      const exdates = Array.from(
        { length: 10 },
        (_, line) => `EXDATE;TZID=America/Argentina/Buenos_Aires:${Array.from({ length: line < 9 ? 110 : 10 }, (_, i) => value(line * 110 + i)).join(',')}`,
      );
      const recurrence = ['RRULE:FREQ=DAILY;COUNT=10', ...exdates];
      const event = await createEvent(http, admin, {
        start_date: '2027-05-01 10:00:00',
        end_date: '2027-05-01 12:00:00',
        title: plain(TEXT_LIMITS.title),
        description: html(TEXT_LIMITS.description),
        excerpt: html(TEXT_LIMITS.excerpt),
        website: url(TEXT_LIMITS.url),
        cost: plain(TEXT_LIMITS.cost),
        image,
        venue: venues,
        organizer: organizers,
        categories,
        tags,
        recurrence,
      });
      assert.equal((event.venue as Rec[]).length, EMBED_LIMITS.venues);
      const res = await call(http, 'get', eventsPath);
      expectStatus(res, 200);
      assert.equal((res.body.events as Rec[]).length, 10);
      const bytes = Buffer.byteLength(res.text);
      console.log(`      worst-case default page: ${bytes.toLocaleString('en-US')} bytes (${(bytes / (8 * 1024 * 1024)).toFixed(2)} of REPLY_LIMIT)`);
      assert.ok(bytes <= 8 * 1024 * 1024);
      // The single record, the public pages and the .ics feed of the same events.
      for (const path of [eventPath(event.id as number), new URL(event.url as string).pathname, '/events/', `${eventsPath}.ics`, `${eventPath(event.id as number)}.ics`]) {
        const answer = await call(http, 'get', path);
        expectStatus(answer, 200);
        const size = Buffer.byteLength(answer.text);
        console.log(`      ${path.replace(/^.*\/v1/, '')}: ${size.toLocaleString('en-US')} bytes`);
        assert.ok(size <= 8 * 1024 * 1024);
      }
      if (process.env.SIZES) {
        const e = (res.body.events as Rec[])[0];
        const b = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
        console.log({
          event: b(e),
          own: b({ ...e, venue: [], organizer: [], categories: [], tags: [] }),
          venue: b((e.venue as Rec[])[0]),
          organizer: b((e.organizer as Rec[])[0]),
          category: b((e.categories as Rec[])[0]),
          tag: b((e.tags as Rec[])[0]),
          description: b(e.description),
          recurrence: b(e.recurrence),
        });
        const v = await call(http, 'get', `${NS}/venues/${venues[0]}`);
        const o = await call(http, 'get', `${NS}/organizers/${organizers[0]}`);
        const one = await call(http, 'get', eventPath(event.id as number));
        const vl = await call(http, 'get', `${NS}/venues`);
        const tl = await call(http, 'get', `${NS}/tags`);
        const slug = 's'.repeat(200);
        const mv = await post('venues', { venue: 'v', slug });
        const mo = await post('organizers', { organizer: 'o', slug });
        const mc = await post('categories', { name: 'c', slug });
        const mt = await post('tags', { name: 't', slug });
        const me = await createEvent(http, admin, {
          title: 'e',
          slug,
          start_date: '2027-05-01 10:00:00',
          end_date: '2027-05-01 12:00:00',
          venue: [mv],
          organizer: [mo],
          categories: [mc],
          tags: [mt],
          recurrence: ['RRULE:FREQ=DAILY;COUNT=2'],
        });
        const ml = (await call(http, 'get', `${eventsPath}?include=${me.id}`)).body.events[0] as Rec;
        console.log({
          minOwn: b({ ...ml, venue: [], organizer: [], categories: [], tags: [] }),
          minVenue: b(ml.venue),
          minOrganizer: b((ml.organizer as Rec[])[0]),
          minCategory: b((ml.categories as Rec[])[0]),
          minTag: b((ml.tags as Rec[])[0]),
        });
        console.log({
          venueSingle: v.text.length,
          organizerSingle: o.text.length,
          eventSingle: Buffer.byteLength(one.text),
          venueList: Buffer.byteLength(vl.text),
          tagList: Buffer.byteLength(tl.text),
        });
      }
    });
  });

  describe('feeds of many records stay within REPLY_LIMIT', () => {
    const replyLimit = 256 * 1024;
    /** Twelve events of 16,384 `é` (two bytes each): about 40 KB each in JSON, 30 KB in iCalendar. */
    async function bigEvents(n: number): Promise<void> {
      for (let i = 0; i < n; i++)
        await createEvent(http, users.administrator, {
          title: `Big ${i}`,
          start_date: '2027-05-01 10:00:00',
          end_date: '2027-05-01 12:00:00',
          description: 'é'.repeat(TEXT_LIMITS.description),
        });
    }

    it('GET /events.ics is cut before the event that would pass it, with X-TEC-Truncated and X-TEC-Total', async () => {
      ({ http } = await eventsApp({ replyLimit }));
      await bigEvents(12);
      const res = await call(http, 'get', `${eventsPath}.ics`);
      expectStatus(res, 200);
      assert.ok(Buffer.byteLength(res.text) <= replyLimit, `${Buffer.byteLength(res.text)} bytes`);
      const vevents = res.text.split('BEGIN:VEVENT').length - 1;
      assert.ok(vevents > 0 && vevents < 12, `${vevents} events`);
      assert.equal(res.headers['x-tec-truncated'], 'true');
      assert.equal(res.headers['x-tec-total'], '12');
      assert.ok(res.text.trimEnd().endsWith('END:VCALENDAR'));
    });

    it('GET /changes cuts a page short, always moving on, and every change is read', async () => {
      ({ http } = await eventsApp({ replyLimit }));
      await bigEvents(12);
      let after: string | undefined;
      const ids: number[] = [];
      for (let page = 0; page < 30; page++) {
        const res = await call(http, 'get', `${NS}/changes?types=event${after ? `&after=${after}` : ''}`);
        expectStatus(res, 200);
        assert.ok(Buffer.byteLength(res.text) <= replyLimit);
        const changes = res.body.changes as Rec[];
        assert.ok(changes.length > 0 || !res.body.has_more);
        ids.push(...changes.map((change) => change.id as number));
        after = res.body.next_cursor as string;
        if (!res.body.has_more) break;
      }
      assert.equal(new Set(ids).size, 12, 'every event, once');
      // A larger per_page does not lift the cut.
      const tiny = await call(http, 'get', `${NS}/changes?types=event&per_page=500`);
      assert.ok((tiny.body.changes as Rec[]).length < 12 && tiny.body.has_more === true);
    });
  });

  describe('rows written before the limits (straight into the database)', () => {
    /** Reproduction 5: three published venues whose descriptions are a million `<` each (4 MB escaped), and an event with all three. */
    async function oversizedRows(): Promise<{ eventId: number; venueIds: number[] }> {
      const venueIds: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await call(http, 'post', `${NS}/venues`, users.administrator, { venue: `Big ${i}`, description: 'small' });
        expectStatus(res, 201);
        venueIds.push(res.body.id as number);
      }
      await db('posts')
        .whereIn('id', venueIds)
        .update({ description: '&lt;'.repeat(1_000_000), title: 'T'.repeat(100_000) });
      const eventId = await insertEvent(db, { title: 'Embeds them all', startUtc: '2027-05-01 10:00:00', endUtc: '2027-05-01 12:00:00', venueIds });
      await db('posts')
        .where('id', eventId)
        .update({ description: '&lt;'.repeat(1_000_000), excerpt: 'e'.repeat(100_000) });
      return { eventId, venueIds };
    }

    it('lists, the record itself (to an administrator too), the venues and the change feed answer 200, cut to the limits', async () => {
      const { eventId, venueIds } = await oversizedRows();
      const list = await call(http, 'get', eventsPath);
      expectStatus(list, 200);
      const listed = (list.body.events as Rec[]).find((event) => event.id === eventId)!;
      assert.ok(listed.description.length <= TEXT_LIMITS.description + 10);
      assert.equal(listed.excerpt, `<p>${'e'.repeat(TEXT_LIMITS.excerpt)}</p>`);
      for (const venue of listed.venue as Rec[]) {
        assert.equal(venue.venue, 'T'.repeat(TEXT_LIMITS.title));
        assert.ok(venue.description.length <= TEXT_LIMITS.embedded + 10);
      }
      for (const as of [undefined, users.administrator]) expectStatus(await call(http, 'get', eventPath(eventId), as), 200);
      expectStatus(await call(http, 'get', `${NS}/venues`), 200);
      for (const id of venueIds) expectStatus(await call(http, 'get', `${NS}/venues/${id}`), 200);
      expectStatus(await call(http, 'get', `${eventsPath}.ics`), 200);
      // The change feed moves past them.
      let after: string | undefined;
      let seen = 0;
      for (let page = 0; page < 20; page++) {
        const res = await call(http, 'get', `${NS}/changes${after ? `?after=${after}` : ''}`);
        expectStatus(res, 200);
        seen += (res.body.changes as Rec[]).length;
        after = res.body.next_cursor as string;
        if (!res.body.has_more) break;
      }
      assert.ok(seen >= 4, 'every change was read');
    });
  });
});
