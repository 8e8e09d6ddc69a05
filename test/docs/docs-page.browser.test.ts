import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { testApp, createUser, NS } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { listOperations, loadDocument, projectRoot } from '../../src/openapi/document.js';
import type { Config } from '../../src/core/config.js';

/** Debian's Chromium; `.ci/run` installs it and sets REQUIRE_BROWSER=1 so that CI cannot skip this. */
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = path.join(projectRoot(), 'artifacts', 'docs-page.png');

/**
 * Flags that work on this machine's closed network: without the background-networking ones Chromium
 * keeps trying to reach Google's hosts. Playwright adds --headless, and launch() starts every browser
 * on a new, empty temporary profile (its own --user-data-dir).
 */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface RunningService {
  origin: string;
  /** `METHOD url` of every request the service received, in order. */
  received: string[];
  close: () => Promise<void>;
}

/** The app on a real ephemeral port of the loopback interface, recording what reaches it. */
async function startService(overrides: Partial<Config> = {}): Promise<RunningService> {
  const { app } = await testApp(overrides);
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What went wrong in the page: CSP violations, script errors, console errors, failed requests. */
interface PageProblems {
  list: string[];
}

async function openDocs(browser: Browser, service: RunningService): Promise<{ page: Page; problems: PageProblems }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: PageProblems = { list: [] };
  // Reported by the browser itself whenever the page's CSP refuses something (this script is added
  // by the debugging protocol, not by the page, so the CSP does not apply to it).
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.list.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.list.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.list.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on('request', (request) => {
    if (!request.url().startsWith(`${service.origin}/`)) problems.list.push(`request to another origin: ${request.url()}`);
  });
  const response = await page.goto(`${service.origin}/docs`);
  assert.equal(response?.status(), 200);
  await page.waitForSelector('.opblock', { timeout: 60_000 });
  return { page, problems };
}

/** `METHOD path operationId` of every operation block Swagger UI rendered. */
async function listedOperations(page: Page): Promise<string[]> {
  const rows = await page.$$eval('.opblock', (blocks) =>
    blocks.map((block) =>
      [
        block.querySelector('.opblock-summary-method')?.textContent?.trim(),
        block.querySelector('.opblock-summary-path')?.getAttribute('data-path'),
        block.querySelector('.opblock-summary-operation-id')?.textContent?.trim(),
      ].join(' '),
    ),
  );
  return [...new Set(rows)].sort();
}

function block(page: Page, id: string): Locator {
  return page.locator(`#${id}`);
}

/** Opens an operation, presses "Try it out" then "Execute", and returns the status and body shown. */
async function tryIt(page: Page, blockId: string): Promise<{ status: string; body: string; requestUrl: string }> {
  const operation = block(page, blockId);
  await operation.locator('.opblock-summary-control').click();
  await operation.locator('button.try-out__btn').click();
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status');
  await status.waitFor({ timeout: 30_000 });
  return {
    status: (await status.textContent())?.trim() ?? '',
    body: (await operation.locator('.live-responses-table .response-col_description pre.microlight').first().textContent()) ?? '',
    requestUrl: (await operation.locator('.request-url pre').textContent())?.trim() ?? '',
  };
}

/** `YYYY-MM-DD HH:mm:ss`, days from now (the list shows upcoming events only). */
function daysFromNow(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
}

describe('GET /docs in headless Chromium', function () {
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

  it('lists every operation of the document and "Try it out" on GET /events shows this service\'s 200', async () => {
    const service = await startService();
    try {
      const { http: api } = await testApp();
      const admin = await createUser('administrator');
      const created = await api()
        .post(`${NS}/events`)
        .set('Authorization', admin.authorization)
        .send({ title: 'Docs page launch party', start_date: daysFromNow(30), end_date: daysFromNow(31) });
      expectStatus(created, 201);

      const { page, problems } = await openDocs(browser, service);
      const expected = listOperations(loadDocument())
        .map((op) => `${op.method.toUpperCase()} ${op.path} ${op.operationId}`)
        .sort();
      assert.ok(expected.length > 20, 'the document has its operations');
      assert.deepEqual(await listedOperations(page), expected);

      // The one server offered is this service's namespace.
      assert.deepEqual(await page.$$eval('.servers select option', (options) => options.map((o) => (o as HTMLOptionElement).value)), [`${service.origin}${NS}`]);

      const received = service.received.length;
      const result = await tryIt(page, 'operations-Events-listEvents');
      assert.equal(result.status, '200');
      assert.ok(result.requestUrl.startsWith(`${service.origin}${NS}/events`), result.requestUrl);
      assert.match(result.body, /Docs page launch party/);
      assert.ok(
        service.received.slice(received).some((line) => line.startsWith(`GET ${NS}/events`)),
        `the service received the call: ${service.received.slice(received).join(', ')}`,
      );

      // The picture shows the call and its answer.
      await block(page, 'operations-Events-listEvents')
        .locator('.request-url')
        .evaluate((element) => element.scrollIntoView({ block: 'start' }));
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
      assert.ok(fs.statSync(SCREENSHOT).size > 10_000, 'a screenshot with content');

      // The schema views render under the same CSP (no violation below).
      const models = page.locator('section.models .model-container .model-box-control');
      assert.ok((await models.count()) > 5, 'the Schemas section lists the models');
      for (let i = 0; i < 3; i++) await models.nth(i).click();
      await page.locator('section.models .model-container .model-box .property-row').first().waitFor();

      assert.deepEqual(problems.list, []);
      await page.close();
    } finally {
      await service.close();
    }
  });

  it('with PUBLIC_URL set to another origin, "Try it out" still calls the service that served the page', async () => {
    const service = await startService({ publicUrl: 'https://events.example.invalid' });
    try {
      const { page, problems } = await openDocs(browser, service);
      // The document itself advertises PUBLIC_URL (for SDK generators) ...
      const doc = await page.evaluate(async () => (await fetch('wp-json/tribe/events/v1/doc')).json());
      assert.equal(doc.servers[0].url, `https://events.example.invalid${NS}`);
      // ... but the page calls the origin it was loaded from, which its CSP allows.
      const result = await tryIt(page, 'operations-Index-getNamespaceIndex');
      assert.equal(result.status, '200');
      assert.ok(result.requestUrl.startsWith(`${service.origin}${NS}/`), result.requestUrl);
      assert.match(result.body, /"namespace": "tribe\/events\/v1"/);
      assert.ok(
        service.received.some((line) => line.startsWith(`GET ${NS}/?`)),
        service.received.join(', '),
      );
      assert.deepEqual(problems.list, []);
      await page.close();
    } finally {
      await service.close();
    }
  });
});
