import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page, type Response as PageResponse } from 'playwright-core';
import { testApp, createUser, NS } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { projectRoot } from '../../src/openapi/document.js';

/**
 * The public pages (docs/contract.md §13) in Debian's Chromium, under their own CSP: an event page,
 * a category page and `/events/`, their JSON-LD as the browser reads it, their links and headers,
 * and a screenshot of each in artifacts/. Any CSP violation the browser reports fails the test.
 */

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(projectRoot(), 'artifacts');
/** See test/docs/docs-page.browser.test.ts: flags for this machine's closed network. */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface RunningService {
  origin: string;
  close: () => Promise<void>;
}

async function startService(): Promise<RunningService> {
  const { app } = await testApp();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** `YYYY-MM-DD HH:mm:ss`, days from now at 19:30 UTC (the pages list upcoming events only). */
function daysFromNow(days: number, hour = 19): string {
  return `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)} ${String(hour).padStart(2, '0')}:30:00`;
}

interface Opened {
  page: Page;
  response: PageResponse;
  problems: string[];
}

/** Opens a URL in a new page, collecting CSP violations, console errors, script errors and failed requests. */
async function open(browser: Browser, url: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  const problems: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  const response = await page.goto(url);
  assert.ok(response, url);
  return { page, response, problems };
}

/** The JSON-LD blocks of the page, as the browser parsed them. */
async function jsonLdOf(page: Page): Promise<Array<Record<string, unknown>>> {
  const texts = await page.$$eval('script[type="application/ld+json"]', (scripts) => scripts.map((s) => s.textContent ?? ''));
  return texts.map((text) => JSON.parse(text));
}

async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage: true });
  assert.ok(fs.statSync(file).size > 10_000, `${name} has content`);
}

describe('public pages in headless Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      if (process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing (apt-get install -y chromium)`);
      console.log(`    (skipped: ${CHROMIUM} is missing; apt-get install -y chromium, or set REQUIRE_BROWSER=1 to make this a failure)`);
      this.skip();
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
  });

  it('an event page, a category page and /events/: JSON-LD, links and headers, under the CSP, without script', async () => {
    const service = await startService();
    try {
      const { http: api } = await testApp();
      const admin = await createUser('administrator');
      const as = (req: ReturnType<ReturnType<typeof api>['post']>) => req.set('Authorization', admin.authorization);
      const category = await as(api().post(`${NS}/categories`)).send({ name: 'Workshops', description: 'Hands-on sessions, <em>beginners welcome</em>.' });
      expectStatus(category, 201);
      const created = await as(api().post(`${NS}/events`)).send({
        title: 'Printmaking for beginners',
        description: '<p>Learn <strong>linocut</strong> printing in one evening.</p><ul><li>All materials provided</li><li>Bring an apron</li></ul>',
        excerpt: 'Learn linocut printing in one evening.',
        start_date: daysFromNow(20, 18),
        end_date: daysFromNow(20, 21),
        cost: '25',
        categories: [category.body.id],
        tags: ['Beginners'],
        venue: { venue: 'Harbour Studio', address: '12 Quay Street', city: 'Bristol', zip: 'BS1 4RN', country: 'United Kingdom' },
        organizer: [{ organizer: 'Open Press Collective', email: 'hello@openpress.example', website: 'https://openpress.example' }],
      });
      expectStatus(created, 201);
      for (const [i, title] of ['Screen printing open studio', 'Bookbinding basics', 'Risograph zine night'].entries()) {
        const res = await as(api().post(`${NS}/events`)).send({
          title,
          start_date: daysFromNow(25 + i * 7),
          end_date: daysFromNow(25 + i * 7, 21),
          categories: i === 0 ? [category.body.id] : [],
          venue: created.body.venue.id,
        });
        expectStatus(res, 201);
      }
      const event = created.body;
      const eventUrl = `${service.origin}/event/${event.slug}/`;
      const namespace = `${service.origin}${NS}`;

      // The event page.
      const single = await open(browser, eventUrl);
      assert.equal(single.response.status(), 200);
      const headers = single.response.headers();
      assert.equal(headers['x-tec-api-version'], 'v1');
      assert.equal(headers['x-tec-api-root'], `${namespace}/events/${event.id}`);
      assert.equal(headers['x-tec-api-origin'], service.origin);
      assert.match(headers.link ?? '', new RegExp(`<${service.origin}/wp-json/>; rel="https://api.w.org/"`));
      assert.match(headers['content-security-policy'] ?? '', /^default-src 'none'; style-src 'sha256-/);
      const [data] = await jsonLdOf(single.page);
      assert.equal(data?.['@type'], 'Event');
      assert.equal(data?.name, 'Printmaking for beginners');
      assert.equal(data?.url, `${service.origin}/event/${event.slug}/`);
      assert.equal(await single.page.locator('h1').textContent(), 'Printmaking for beginners');
      const add = single.page.getByRole('link', { name: /^Add to calendar/ });
      assert.equal(await add.getAttribute('href'), `${namespace}/events/${event.id}.ics`);
      const ics = await single.page.request.get((await add.getAttribute('href'))!);
      assert.equal(ics.status(), 200);
      assert.match(ics.headers()['content-type'] ?? '', /^text\/calendar/);
      assert.match(await ics.text(), /SUMMARY:Printmaking for beginners/);
      // The landmarks a screen reader offers.
      for (const role of ['banner', 'navigation', 'main', 'contentinfo'] as const) assert.ok((await single.page.getByRole(role).count()) >= 1, role);
      // The styles applied (the CSP allowed the stylesheet by its hash).
      const headerColour = await single.page.$eval('header.site', (element) => getComputedStyle(element).backgroundColor);
      assert.equal(headerColour, 'rgb(20, 54, 92)');
      await screenshot(single.page, 'pages-event.png');
      assert.deepEqual(single.problems, []);

      // The category page, reached by its link on the event page.
      await single.page.getByRole('link', { name: 'Workshops' }).click();
      await single.page.waitForURL(`${service.origin}/events/category/workshops/`);
      await single.page.close();
      const archive = await open(browser, `${service.origin}/events/category/workshops/`);
      assert.equal(archive.response.status(), 200);
      assert.equal(archive.response.headers()['x-tec-api-root'], `${namespace}/events/?categories=workshops`);
      const subscribe = archive.page.getByRole('link', { name: /^Subscribe in a calendar app/ });
      assert.equal(await subscribe.getAttribute('href'), `webcal://${new URL(service.origin).host}${NS}/events.ics?categories=workshops`);
      const feedLink = archive.page.getByRole('link', { name: /^Download the iCalendar feed/ });
      const feed = await archive.page.request.get((await feedLink.getAttribute('href'))!);
      assert.equal(feed.status(), 200);
      assert.equal((await feed.text()).match(/BEGIN:VEVENT/g)?.length, 2);
      const [list] = await jsonLdOf(archive.page);
      assert.equal(list?.['@type'], 'ItemList');
      assert.deepEqual(
        (list?.itemListElement as Array<{ item: { name: string } }>).map((entry) => entry.item.name),
        ['Printmaking for beginners', 'Screen printing open studio'],
      );
      await screenshot(archive.page, 'pages-category.png');
      assert.deepEqual(archive.problems, []);
      await archive.page.close();

      // /events/: every upcoming event, soonest first.
      const upcoming = await open(browser, `${service.origin}/events/`);
      assert.equal(upcoming.response.status(), 200);
      assert.equal(upcoming.response.headers()['x-tec-api-root'], `${namespace}/events/`);
      assert.deepEqual(await upcoming.page.locator('ol.events h2').allTextContents(), [
        'Printmaking for beginners',
        'Screen printing open studio',
        'Bookbinding basics',
        'Risograph zine night',
      ]);
      const [all] = await jsonLdOf(upcoming.page);
      assert.equal((all?.itemListElement as unknown[]).length, 4);
      await screenshot(upcoming.page, 'pages-events.png');
      assert.deepEqual(upcoming.problems, []);
      await upcoming.page.close();

      // Readable without JavaScript: the same content with scripting off.
      const context = await browser.newContext({ javaScriptEnabled: false });
      const plain = await context.newPage();
      await plain.goto(eventUrl);
      assert.equal(await plain.locator('h1').textContent(), 'Printmaking for beginners');
      assert.ok(await plain.getByText('Harbour Studio').first().isVisible());
      await context.close();
    } finally {
      await service.close();
    }
  });

  it("an occurrence of a weekly series says it recurs, in words, and its link opens the series' dates", async () => {
    const service = await startService();
    try {
      const { http: api } = await testApp();
      const admin = await createUser('administrator');
      const start = daysFromNow(14, 18);
      const created = await api()
        .post(`${NS}/events`)
        .set('Authorization', admin.authorization)
        .send({ title: 'Life drawing', start_date: start, end_date: start.replace('18:30', '20:30'), recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
      expectStatus(created, 201);
      const list = await api().get(`${NS}/events/${created.body.id}/occurrences`);
      expectStatus(list, 200);
      const occurrences = list.body.events as Array<{ id: number; slug: string; url: string }>;
      assert.equal(occurrences.length, 6);
      const third = occurrences[2]!;
      const last = new Date(`${start.slice(0, 10)}T00:00:00Z`);
      last.setUTCDate(last.getUTCDate() + 35);
      const until = last.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

      const opened = await open(browser, `${service.origin}/event/${third.slug}/`);
      assert.equal(opened.response.status(), 200);
      const note = opened.page.locator('p.recurrence');
      assert.equal((await note.innerText()).replace(/\s+/g, ' ').trim(), `Recurring event. Every week, 6 times, until ${until}. See all dates`);
      assert.ok(await note.isVisible());
      const [data] = await jsonLdOf(opened.page);
      assert.equal(data?.['@type'], 'Event');
      await screenshot(opened.page, 'pages-occurrence.png');
      assert.deepEqual(opened.problems, []);

      // The link, followed as a visitor would: the series' dates, each a link to its own page.
      await opened.page.getByRole('link', { name: /^See all dates/ }).click();
      await opened.page.waitForURL(`${service.origin}/event/${third.slug}/all/`);
      assert.equal(await opened.page.locator('h1').textContent(), 'Life drawing');
      assert.deepEqual(
        await opened.page.locator('ol.events h3 a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href)),
        occurrences.map((o) => o.url.replace(/^https?:\/\/[^/]+/, service.origin)),
      );
      const [dates] = await jsonLdOf(opened.page);
      assert.equal(dates?.['@type'], 'ItemList');
      await screenshot(opened.page, 'pages-series-dates.png');
      assert.deepEqual(opened.problems, []);
      await opened.page.close();
    } finally {
      await service.close();
    }
  });
});
