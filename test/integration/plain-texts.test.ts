import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import type { Knex } from 'knex';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { text as utf8Text } from '../helpers/calendar-instances.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, createEvent, eventsApp, type Http, type Rec } from '../helpers/events.js';
import { wrongPlainForms } from '../helpers/plain-forms.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { MIGRATION_TOOLS } from '../../src/db/migrate.js';
import { up as fillPlainTexts } from '../../src/db/migrations/20261208000101_fill_plain_texts.js';
import { renderCalls } from '../../src/text/html.js';
import { PLAIN_FIELDS, plainOnRead } from '../../src/text/plain-forms.js';

/**
 * Plain forms stored when written (src/text/plain-forms.ts, docs/architecture.md "Rendered texts"):
 * pages, iCalendar feeds and feed names show the titles, names, address lines, phone, e-mail, cost and
 * term names a write stored in plain form, and decode nothing on a read (`htmlToText` counts its calls
 * in `renderCalls`); the API's records keep the stored values; every write path stores the forms.
 */

const CLOCK = '2030-04-20T12:00:00Z';
const DATES = { start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' };

describe('plain forms stored when written (src/text/plain-forms.ts)', function () {
  this.timeout(60_000);
  let http: Http;
  let db: Knex;
  let users: Record<string, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp({}, CLOCK));
    ({ db } = await openTestDatabase());
    users = await createUsers();
  });

  const text = async (path: string): Promise<string> => {
    const res = await utf8Text(http().get(path));
    expectStatus(res, 200);
    return res.body as string;
  };
  const post = async (path: string, body: object): Promise<Rec> => {
    const res = await call(http, 'post', `${NS}/${path}`, users.administrator, body);
    expectStatus(res, 201);
    return res.body as Rec;
  };
  const vevent = (ics: string) => new ICAL.Component(ICAL.parse(ics) as unknown[]).getFirstSubcomponent('vevent')!;
  const calendarName = (ics: string) => String(new ICAL.Component(ICAL.parse(ics) as unknown[]).getFirstPropertyValue('x-wr-calname'));

  /** An event with a venue, an organizer, a category, a tag and a cost, each with references in its stored text. */
  async function writeEvent() {
    const venue = await post('venues', { venue: 'Café & Bar', address: '1 Rue &amp; Co', city: 'Saint-&Eacute;tienne', zip: '42000', country: 'France', phone: '+33 &#49;' });
    const organizer = await post('organizers', { organizer: 'Ann &amp; Bob', email: 'ann@example.org', phone: '555 &amp; 556' });
    const category = await post('categories', { name: 'Jazz & Blues' });
    const tag = await post('tags', { name: 'Late &amp; loud' });
    const event = await createEvent(http, users.administrator, {
      title: 'Rock & Roll &quot;night&quot;',
      ...DATES,
      cost: 'Donation &amp; more',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      tags: [tag.id],
    });
    return { event, venue, organizer, category, tag };
  }

  /** Every read that shows plain text: the pages, the iCalendar feeds and their names. */
  async function readEverything({ event, venue, organizer, category, tag }: Awaited<ReturnType<typeof writeEvent>>) {
    return {
      eventPage: await text(`/event/${event.slug}/`),
      venuePage: await text(`/venue/${venue.slug}/`),
      organizerPage: await text(`/organizer/${organizer.slug}/`),
      categoryPage: await text(`/events/category/${category.slug}/`),
      tagPage: await text(`/tag/${tag.slug}/`),
      upcomingPage: await text('/events/'),
      ics: await text(`${NS}/events/${event.id}.ics`),
      feed: await text(`${NS}/events.ics`),
    };
  }

  it('pages, iCalendar feeds and feed names decode nothing on a read, and show the decoded text', async () => {
    const written = await writeEvent();
    await bumpDataVersion(db);
    renderCalls.count = 0;
    plainOnRead.count = 0;
    const read = await readEverything(written);
    assert.equal(renderCalls.count, 0, 'no read ran htmlToText (or any other rendering)');
    assert.equal(plainOnRead.count, 0, 'every plain form was stored');
    assert.match(read.eventPage, /<h1>Rock &#38; Roll &#34;night&#34;<\/h1>/);
    assert.match(read.eventPage, />Café &#38; Bar<\/a><br>1 Rue &#38; Co, Saint-Étienne, 42000, France/);
    assert.match(read.eventPage, />Ann &#38; Bob<\/a>/);
    assert.match(read.eventPage, /<dd>Donation &#38; more<\/dd>/);
    assert.match(read.eventPage, />Jazz &#38; Blues<\/a>/);
    assert.match(read.eventPage, />Late &#38; loud<\/a>/);
    assert.match(read.venuePage, /<h1>Café &#38; Bar<\/h1>/);
    assert.match(read.venuePage, /<dd>\+33 1<\/dd>/);
    assert.match(read.organizerPage, /<dd>555 &#38; 556<\/dd>/);
    assert.match(read.organizerPage, /href="mailto:ann@example.org">ann@example.org<\/a>/);
    assert.match(read.categoryPage, /<h1>Jazz &#38; Blues<\/h1>/);
    assert.match(read.tagPage, /<h1>Late &#38; loud<\/h1>/);
    assert.match(read.upcomingPage, />Rock &#38; Roll &#34;night&#34;<\/a><\/h2>/);
    const entry = vevent(read.ics);
    assert.equal(entry.getFirstPropertyValue('summary'), 'Rock & Roll "night"');
    assert.equal(entry.getFirstPropertyValue('location'), 'Café & Bar, 1 Rue & Co, Saint-Étienne, 42000, France');
    assert.equal(String(entry.getFirstProperty('organizer')!.getParameter('cn')), 'Ann & Bob');
    assert.deepEqual(entry.getFirstProperty('categories')!.getValues(), ['Jazz & Blues']);
    assert.match(calendarName(read.ics), /Events: Rock & Roll "night"$/);
    assert.equal(vevent(read.feed).getFirstPropertyValue('summary'), 'Rock & Roll "night"');
  });

  it('reads show the stored plain forms: markers written into the plain columns come back in pages and feeds, the API keeps the stored values', async () => {
    const written = await writeEvent();
    const { event, venue, organizer, category, tag } = written;
    for (const id of [event.id, venue.id, organizer.id])
      await db('posts')
        .where({ id })
        .update({ title_plain: `TITLE-${id}` });
    for (const id of [category.id, tag.id])
      await db('terms')
        .where({ id })
        .update({ name_plain: `TERM-${id}` });
    await db('venues').where({ post_id: venue.id }).update({ address_plain: 'ADDRESS-MARK', city_plain: 'CITY-MARK', phone_plain: 'VPHONE-MARK' });
    await db('organizers').where({ post_id: organizer.id }).update({ phone_plain: 'OPHONE-MARK', email_plain: 'EMAIL-MARK' });
    await db('events').where({ post_id: event.id }).update({ cost_plain: 'COST-MARK' });
    // A new version for each, as a write gives it: the app's related-row cache keeps rows by version (src/repositories/related-row-cache.ts).
    await db('posts')
      .whereIn('id', [event.id, venue.id, organizer.id])
      .update({ version: db.raw('version + 1') });
    await db('terms')
      .whereIn('id', [category.id, tag.id])
      .update({ version: db.raw('version + 1') });
    await bumpDataVersion(db);
    renderCalls.count = 0;
    const read = await readEverything(written);
    assert.equal(renderCalls.count, 0);
    assert.match(read.eventPage, new RegExp(`<h1>TITLE-${event.id}</h1>`));
    assert.match(read.eventPage, new RegExp(`>TITLE-${venue.id}</a><br>ADDRESS-MARK, CITY-MARK, 42000, France`));
    assert.match(read.eventPage, new RegExp(`>TITLE-${organizer.id}</a>`));
    assert.match(read.eventPage, /<dd>COST-MARK<\/dd>/);
    assert.match(read.eventPage, new RegExp(`>TERM-${category.id}</a>`));
    assert.match(read.eventPage, new RegExp(`>TERM-${tag.id}</a>`));
    assert.match(read.venuePage, new RegExp(`<h1>TITLE-${venue.id}</h1>`));
    assert.match(read.venuePage, /<dd>VPHONE-MARK<\/dd>/);
    assert.match(read.organizerPage, /<dd>OPHONE-MARK<\/dd>/);
    assert.match(read.organizerPage, /<dd>EMAIL-MARK<\/dd>/, 'not an address: not linked');
    assert.match(read.categoryPage, new RegExp(`<h1>TERM-${category.id}</h1>`));
    assert.match(read.upcomingPage, new RegExp(`>TITLE-${event.id}</a></h2>\\n<p><time[^\\n]*</p>\\n<p>TITLE-${venue.id}, CITY-MARK</p>`));
    const entry = vevent(read.ics);
    assert.equal(entry.getFirstPropertyValue('summary'), `TITLE-${event.id}`);
    assert.equal(entry.getFirstPropertyValue('location'), `TITLE-${venue.id}, ADDRESS-MARK, CITY-MARK, 42000, France`);
    assert.equal(String(entry.getFirstProperty('organizer')!.getParameter('cn')), `TITLE-${organizer.id}`);
    assert.deepEqual(entry.getFirstProperty('categories')!.getValues(), [`TERM-${category.id}`]);
    assert.match(calendarName(read.ics), new RegExp(`Events: TITLE-${event.id}$`));
    // The API's records show the stored values, as before.
    const record = (await call(http, 'get', `${NS}/events/${event.id}`)).body as Rec;
    assert.equal(record.title, (await db('posts').where({ id: event.id }).first('title')).title);
    assert.equal(record.venue.city, (await db('venues').where({ post_id: venue.id }).first('city')).city);
    assert.equal(record.categories[0].name, (await db('terms').where({ id: category.id }).first('name')).name);
  });

  it('every API write stores the forms: creates, updates, series and their copies; migration 20261208000101 fills rows stored before', async () => {
    const written = await writeEvent();
    const patch = async (path: string, body: object) => expectStatus(await call(http, 'patch', `${NS}/${path}`, users.administrator, body), 200);
    await patch(`events/${written.event.id}`, { title: 'Now &lt;two&gt;', cost: '€5 - €10' });
    await patch(`venues/${written.venue.id}`, { venue: 'Hall &amp; Co', city: 'Li&egrave;ge', stateprovince: 'Li&egrave;ge &amp; around' });
    await patch(`organizers/${written.organizer.id}`, { organizer: 'Cy &amp; Di', email: 'not &amp; an address' });
    await patch(`categories/${written.category.id}`, { name: 'Jazz &amp; Soul' });
    const series = await createEvent(http, users.administrator, { title: 'Weekly &amp; more', ...DATES, cost: '&pound;3', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    assert.deepEqual(await wrongPlainForms(db), []);
    assert.equal(Number((await db('posts').where('title_plain', 'Weekly & more').count({ n: '*' }))[0]!.n), 4, 'the copies carry the form');
    expectStatus(await call(http, 'patch', `${NS}/events/${series.id}?scope=all`, users.administrator, { title: 'Weekly &lt;all&gt;', cost: '7 &amp; up' }), 200);
    assert.deepEqual(await wrongPlainForms(db), []);
    assert.equal(Number((await db('posts').where('title_plain', 'Weekly <all>').count({ n: '*' }))[0]!.n), 4);

    // Rows stored before the plain columns: the migration fills them as a write would.
    for (const [table, fields] of Object.entries(PLAIN_FIELDS)) await db(table).update(Object.fromEntries(fields.map((field) => [`${field}_plain`, null])));
    await db('events').update({ cost_plain: null });
    assert.notDeepEqual(await wrongPlainForms(db), []);
    await bumpDataVersion(db);
    plainOnRead.count = 0;
    const page = await text(`/event/${written.event.slug}/`);
    assert.match(page, /<h1>Now &#60;two&#62;<\/h1>/, 'a row without its forms is shown as before, its forms made on the read');
    assert.ok(plainOnRead.count > 0);
    await fillPlainTexts(db, MIGRATION_TOOLS);
    assert.deepEqual(await wrongPlainForms(db), []);
  });
});
