import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import type { Knex } from 'knex';
import { createUsers, NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { text as utf8Text } from '../helpers/calendar-instances.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, createEvent, eventsApp, type Http, type Rec } from '../helpers/events.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { MIGRATION_TOOLS } from '../../src/db/migrate.js';
import { up as fillRenderedTexts } from '../../src/db/migrations/20261207000101_fill_rendered_texts.js';
import * as html from '../../src/text/html.js';
import { TEXT_LIMITS, boundedHtml } from '../../src/text/limits.js';
import { escapeHtml } from '../../src/records/pages/layout.js';
import { renderedOnRead } from '../../src/text/rendered-forms.js';

/**
 * Texts rendered when written (src/db/rendered-texts.ts, docs/architecture.md "Rendered texts"):
 * what every read shows of a description, an excerpt and a term's description is the same, byte for
 * byte, as the read-time functions made of the stored text before (written out here as the readers
 * called them); reads show the stored forms and render nothing; texts are shared and cleaned.
 */

/** Events in the default list window of this clock. */
const CLOCK = '2030-04-20T12:00:00Z';
const DATES = { start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' };

/** Marked-up texts: paragraphs, line breaks, scripts, entities, headings, links, lists, comments, the embedded cut, empty. */
const CORPUS = [
  '',
  '   ',
  'One line of plain text',
  'Line one\nLine two\n\nA new paragraph\r\nand a break',
  '<p>Para with <strong>bold</strong> &amp; <em>emphasis</em></p><p>Second para</p>',
  '<h1>Heading one</h1><h2>Two</h2>Text after the headings',
  '<script>alert(1)</script><p onclick="x()">Click</p><style>p { color: red }</style>',
  'Entities: &lt;tag&gt; &eacute; &#8212; &#x1F600; &bogus; a &amp;&amp; b',
  '<a href="https://example.org/x" onclick="evil()" target="_blank">a link</a> and <a href="javascript:alert(1)">a bad one</a>',
  '<ul><li>One</li><li>Two</li></ul><blockquote>A quote</blockquote><table><tr><td>cell</td></tr></table>',
  `<p>${'A long paragraph word '.repeat(25)}</p>\n\n<p>Tail with <b>bold</b> &amp; <a href="https://example.org/">link</a></p>`,
  '<!-- a comment --><div id="d" class="c">Div <span lang="fr">texte</span></div><br>after a break',
  '<img src="https://img.example/a.png" onerror="x()" alt="A"><img src="javascript:x">\nafter the image',
  'Text <with> stray < and > signs & an ampersand',
];

const { renderCalls } = html;

/** The read-time functions, called by the test without counting in `renderCalls` (only the service's calls count). */
function uncounted<A extends unknown[]>(f: (...args: A) => string): (...args: A) => string {
  return (...args) => {
    const before = renderCalls.count;
    const result = f(...args);
    renderCalls.count = before;
    return result;
  };
}
const autoParagraph = uncounted(html.autoParagraph);
const plainText = uncounted(html.plainText);
const sanitizePageHtml = uncounted(html.sanitizePageHtml);
const htmlToText = uncounted(html.htmlToText);
const summaryOf = (text: string) => htmlToText(text).replace(/\s+/g, ' ').trim();
const unset = (value: unknown) => (value === undefined || value === null ? '' : value);

describe('texts rendered when written (src/db/rendered-texts.ts)', function () {
  this.timeout(120_000);
  let http: Http;
  let db: Knex;
  let users: Record<string, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp({}, CLOCK));
    ({ db } = await openTestDatabase());
    users = await createUsers();
  });

  const get = async (path: string): Promise<Rec> => {
    const res = await call(http, 'get', path);
    expectStatus(res, 200);
    return res.body as Rec;
  };
  const text = async (path: string): Promise<string> => {
    const res = await utf8Text(http().get(path));
    expectStatus(res, 200);
    return res.body as string;
  };
  const icsDescription = (ics: string): string => {
    const vevent = new ICAL.Component(ICAL.parse(ics) as unknown[]).getFirstSubcomponent('vevent')!;
    return String(vevent.getFirstPropertyValue('description') ?? '');
  };
  const stored = async (id: number) => (await db('posts').where({ id }).first('description', 'excerpt', 'slug')) as { description: string; excerpt: string; slug: string };
  const pageDescription = (page: string, html: string) =>
    html ? assert.ok(page.includes(`<div class="description">\n${html}\n</div>`), `${html}\nin\n${page}`) : assert.ok(!page.includes('<div class="description">'), page);
  const pageSummary = (page: string, summary: string) => {
    // The layout's cut of a long meta description (records/pages/layout.ts).
    const characters = [...summary];
    const meta = characters.length > 300 ? `${characters.slice(0, 297).join('').trimEnd()}…` : summary;
    if (meta) assert.ok(page.includes(`<meta name="description" content="${escapeHtml(meta)}">`), `${meta}\nin\n${page}`);
    else assert.ok(!page.includes('<meta name="description"'));
  };

  /** Every read of the corpus: the records, embeds, JSON-LD, iCalendar and pages, each compared with the read-time functions over the stored text. */
  async function readEverything(events: Array<{ id: number; venue: number; category: number }>): Promise<void> {
    const feed = await get(`${NS}/events.jsonld?per_page=50`);
    const list = await get(`${NS}/events?per_page=50`);
    for (const { id, venue, category } of events) {
      const { description, excerpt, slug } = await stored(id);
      const venueText = await stored(venue);
      const record = await get(`${NS}/events/${id}`);
      assert.equal(record.description, autoParagraph(description));
      assert.equal(record.excerpt, autoParagraph(excerpt));
      assert.equal(unset(record.json_ld.description), plainText(excerpt || description));
      const listed = (list.events as Rec[]).find((event) => event.id === id)!;
      assert.equal(listed.description, record.description);
      assert.equal(listed.excerpt, record.excerpt);
      // The venue embedded: its text cut shorter, and its Place.
      assert.equal(unset(record.venue.description), autoParagraph(boundedHtml(venueText.description, TEXT_LIMITS.embedded)));
      assert.equal(unset(record.venue.json_ld.description), plainText(venueText.description));
      assert.equal(unset(record.json_ld.location.description), plainText(venueText.description));
      const item = (feed.itemListElement as Rec[]).map((element) => element.item as Rec).find((data) => data.url === record.url)!;
      assert.equal(unset(item.description), plainText(excerpt || description));
      assert.equal(icsDescription(await text(`${NS}/events/${id}.ics`)), htmlToText(description));
      const page = await text(`/event/${slug}/`);
      pageDescription(page, sanitizePageHtml(autoParagraph(description)).trim());
      pageSummary(page, summaryOf(autoParagraph(excerpt) || autoParagraph(description)));
      // The venue's own record and page.
      const venueRecord = await get(`${NS}/venues/${venue}`);
      assert.equal(unset(venueRecord.description), autoParagraph(venueText.description));
      assert.equal(unset(venueRecord.json_ld.description), plainText(venueText.description));
      const venuePage = await text(`/venue/${venueText.slug}/`);
      pageDescription(venuePage, sanitizePageHtml(autoParagraph(venueText.description)).trim());
      pageSummary(venuePage, summaryOf(autoParagraph(venueText.description)));
      // The category's page (its record shows the description as stored).
      const term = (await db('terms').where({ id: category }).first('description', 'slug', 'name')) as { description: string; slug: string; name: string };
      const termPage = await text(`/events/category/${term.slug}/`);
      pageDescription(termPage, sanitizePageHtml(term.description).trim());
      pageSummary(termPage, summaryOf(term.description) || `Upcoming events in ${term.name}.`);
    }
  }

  async function writeCorpus(): Promise<Array<{ id: number; venue: number; category: number }>> {
    const events = [];
    for (const [i, description] of CORPUS.entries()) {
      const venue = await call(http, 'post', `${NS}/venues`, users.administrator, { venue: `Venue ${i}`, description: CORPUS[(i + 5) % CORPUS.length] });
      expectStatus(venue, 201);
      const termText = CORPUS[(i + 2) % CORPUS.length]!;
      // A category's description, when sent, has a character at least.
      const category = await call(http, 'post', `${NS}/categories`, users.administrator, { name: `Category ${i}`, ...(termText ? { description: termText } : {}) });
      expectStatus(category, 201);
      const event = await createEvent(http, users.administrator, {
        title: `Event ${i}`,
        ...DATES,
        description,
        excerpt: CORPUS[(i + 3) % CORPUS.length],
        venue: venue.body.id,
        categories: [category.body.id],
      });
      events.push({ id: event.id as number, venue: venue.body.id as number, category: category.body.id as number });
    }
    return events;
  }

  it('every read shows what the read-time functions made of the stored text, and renders nothing', async () => {
    const events = await writeCorpus();
    await bumpDataVersion(db);
    renderCalls.count = 0;
    renderedOnRead.count = 0;
    await readEverything(events);
    assert.equal(renderCalls.count, 0, 'no read rendered a text');
    assert.equal(renderedOnRead.count, 0, 'every text had its stored forms');
  });

  it('reads show the stored forms: a marker written into rendered_texts comes back through records, embeds, JSON-LD, iCalendar and pages', async () => {
    const venue = await call(http, 'post', `${NS}/venues`, users.administrator, { venue: 'Hall', description: '<p>The hall</p>' });
    const category = await call(http, 'post', `${NS}/categories`, users.administrator, { name: 'Jazz', description: '<em>All</em> jazz' });
    const event = await createEvent(http, users.administrator, {
      title: 'Marked',
      ...DATES,
      description: '<p>Described</p>',
      excerpt: 'In short',
      venue: venue.body.id,
      categories: [category.body.id],
    });
    // Each form of each row: a marker naming the form and the row's key.
    const mysql = db.client.config.client === 'mysql2';
    const marker = (before: string, after = '') => db.raw(mysql ? `concat(?, substr(hash, 1, 6), ?)` : `? || substr(hash, 1, 6) || ?`, [before, after]);
    await db('rendered_texts').update({
      paragraphs: marker('<p>P-', '</p>'),
      embedded: marker('<p>E-', '</p>'),
      plain: marker('PLAIN-'),
      text: marker('TEXT-'),
      page_html: marker('<p>PAGE-', '</p>'),
      summary: marker('SUMMARY-'),
    });
    await bumpDataVersion(db);
    const keys = (await db('posts').where({ id: event.id }).first('description_hash', 'excerpt_hash')) as { description_hash: string; excerpt_hash: string };
    const venueKey = String((await db('posts').where({ id: venue.body.id }).first('description_hash')).description_hash).slice(0, 6);
    const termKey = String((await db('terms').where({ id: category.body.id }).first('description_hash')).description_hash).slice(0, 6);
    const [d, x] = [keys.description_hash.slice(0, 6), keys.excerpt_hash.slice(0, 6)];
    renderCalls.count = 0;
    const record = await get(`${NS}/events/${event.id}`);
    assert.equal(record.description, `<p>P-${d}</p>`);
    assert.equal(record.excerpt, `<p>P-${x}</p>`);
    assert.equal(record.json_ld.description, `PLAIN-${x}`);
    assert.equal(record.venue.description, `<p>E-${venueKey}</p>`);
    assert.equal(record.json_ld.location.description, `PLAIN-${venueKey}`);
    assert.equal((await get(`${NS}/venues/${venue.body.id}`)).description, `<p>P-${venueKey}</p>`);
    assert.equal(((await get(`${NS}/events.jsonld`)).itemListElement as Rec[])[0]!.item.description, `PLAIN-${x}`);
    assert.equal(icsDescription(await text(`${NS}/events/${event.id}.ics`)), `TEXT-${d}`);
    const page = await text(`/event/${event.slug}/`);
    pageDescription(page, `<p>PAGE-${d}</p>`);
    pageSummary(page, `SUMMARY-${x}`);
    const termPage = await text(`/events/category/${category.body.slug}/`);
    pageDescription(termPage, `<p>PAGE-${termKey}</p>`);
    pageSummary(termPage, `SUMMARY-${termKey}`);
    assert.equal(renderCalls.count, 0);
  });

  it('texts are shared by key and a row goes when nothing names it any more', async () => {
    const count = async () => Number((await db('rendered_texts').count({ n: '*' }))[0]!.n);
    const a = await createEvent(http, users.administrator, { title: 'A', ...DATES, description: '<p>Shared</p>' });
    const b = await createEvent(http, users.administrator, { title: 'B', ...DATES, description: '<p>Shared</p>' });
    assert.equal(await count(), 1);
    expectStatus(await call(http, 'patch', `${NS}/events/${a.id}`, users.administrator, { description: '<p>Own</p>' }), 200);
    assert.equal(await count(), 2, 'the shared text stays while B names it');
    expectStatus(await call(http, 'delete', `${NS}/events/${b.id}?force=true`, users.administrator), 200);
    assert.equal(await count(), 1, 'gone with its last event');
    // An excerpt with the description's text names the same row; a term's description has its own kind.
    expectStatus(await call(http, 'patch', `${NS}/events/${a.id}`, users.administrator, { excerpt: '<p>Own</p>' }), 200);
    assert.equal(await count(), 1);
    const tag = await call(http, 'post', `${NS}/tags`, users.administrator, { name: 'T', description: '<p>Own</p>' });
    assert.equal(await count(), 2);
    expectStatus(await call(http, 'patch', `${NS}/tags/${tag.body.id}`, users.administrator, { description: 'Other' }), 200);
    assert.equal(await count(), 2);
    expectStatus(await call(http, 'delete', `${NS}/tags/${tag.body.id}?force=true`, users.administrator), 200);
    expectStatus(await call(http, 'delete', `${NS}/events/${a.id}?force=true`, users.administrator), 200);
    assert.equal(await count(), 0);
  });

  it('a series of 1,000 occurrences shares one rendered row, rendered once, and a rewrite with scope=all leaves one', async () => {
    const description = `<p>${'Every hour, the same long text. '.repeat(400)}</p>`;
    renderCalls.count = 0;
    const series = await createEvent(http, users.administrator, {
      title: 'Hourly',
      description,
      start_date: '2030-05-01 09:00:00',
      end_date: '2030-05-01 09:30:00',
      recurrence: ['RRULE:FREQ=HOURLY;COUNT=1000'],
    });
    const keys = await db('events as x').join('posts as p', 'p.id', 'x.post_id').where('x.series_id', series.id).distinct('p.description_hash').pluck('p.description_hash');
    assert.equal(Number((await db('events').where('series_id', series.id).count({ n: '*' }))[0]!.n), 1000);
    assert.equal(keys.length, 1);
    assert.equal(Number((await db('rendered_texts').count({ n: '*' }))[0]!.n), 1);
    // autoParagraph, plainText, sanitizePageHtml and htmlToText (the iCalendar text, the page summary) once each (the
    // embedded cut's autoParagraph once more), and htmlToText once for the title's plain form (src/text/plain-forms.ts).
    assert.ok(renderCalls.count <= 7, `${renderCalls.count} render calls`);
    expectStatus(await call(http, 'patch', `${NS}/events/${series.id}?scope=all`, users.administrator, { description: '<p>New text</p>' }), 200);
    const after = await db('posts').whereIn('id', db('events').where('series_id', series.id).select('post_id')).distinct('description_hash').pluck('description_hash');
    assert.equal(after.length, 1);
    assert.notEqual(after[0], keys[0]);
    assert.deepEqual(await db('rendered_texts').pluck('hash'), after);
  });

  it('migration 20261207000101 renders the texts of rows stored before it', async () => {
    const events = await writeCorpus();
    const before = await db('posts').orderBy('id').select('id', 'description_hash', 'excerpt_hash');
    const terms = await db('terms').orderBy('id').select('id', 'description_hash');
    await db('posts').update({ description_hash: null, excerpt_hash: null });
    await db('terms').update({ description_hash: null });
    await db('rendered_texts').delete();
    // Without their forms, rows are rendered when read (and counted: the counters above see renders).
    await bumpDataVersion(db);
    renderCalls.count = 0;
    renderedOnRead.count = 0;
    await readEverything(events.slice(3, 5));
    assert.ok(renderedOnRead.count > 0 && renderCalls.count > 0);
    await fillRenderedTexts(db, MIGRATION_TOOLS);
    assert.deepEqual(await db('posts').orderBy('id').select('id', 'description_hash', 'excerpt_hash'), before);
    assert.deepEqual(await db('terms').orderBy('id').select('id', 'description_hash'), terms);
    renderCalls.count = 0;
    renderedOnRead.count = 0;
    await readEverything(events.slice(0, 4));
    assert.equal(renderedOnRead.count, 0);
    assert.equal(renderCalls.count, 0);
  });
});
