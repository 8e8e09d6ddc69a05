import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig, type Config } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { startCachePurger, type CachePurger } from '../../src/cache/purger.js';
import { NS, createUser, testApp, type TestUser } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/wait.js';
import { startVarnish, varnishAvailable, type Varnish } from '../../scripts/cache/varnish.js';

/**
 * PURGE_URL end to end: the service behind real Varnish with the repository's VCL
 * (scripts/cache/varnish.vcl), answers fresh for 60 s (CACHE_MAX_AGE=60), and the cache purger
 * (cache/purger.ts) sending its BANs to that Varnish. A write is visible through the cache within
 * about a second, on every URL that shows it, instead of after max-age (docs/caching.md "Making
 * writes visible at once").
 */

const HOST = 'calendar.test';

function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, headers: { Host: HOST, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Skips the suite unless varnishd is installed; REQUIRE_VARNISH=1 (set by .ci/run) makes its absence a failure. */
function requireVarnish(context: Mocha.Context): void {
  if (varnishAvailable()) return;
  if (process.env.REQUIRE_VARNISH === '1') throw new Error('REQUIRE_VARNISH=1 but varnishd is missing (apt-get install -y varnish)');
  console.log('    (skipped: varnishd is missing; apt-get install -y varnish, or set REQUIRE_VARNISH=1 to make this a failure)');
  context.skip();
}

describe('PURGE_URL through Varnish: writes visible at once', function () {
  this.timeout(60_000);
  let app: Express;
  let server: http.Server;
  let varnish: Varnish | undefined;
  let purger: CachePurger | undefined;
  let editor: TestUser;
  /** Requests that reached the service, path and query. */
  const seen: string[] = [];

  before(async function () {
    requireVarnish(this);
    const settings = loadConfig({ LOG_LEVEL: 'error', CACHE_MAX_AGE: '60', CACHE_STALE_SECONDS: '60' });
    const overrides = Object.fromEntries(Object.entries(settings).filter(([key]) => key.startsWith('cache'))) as Partial<Config>;
    app = (await testApp(overrides)).app;
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    varnish = await startVarnish({ backendPort: (server.address() as AddressInfo).port });
  });

  after(async () => {
    await purger?.stop();
    await varnish?.stop();
    if (server?.listening) {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    }
  });

  beforeEach(async () => {
    await purger?.stop();
    // What Varnish stored from an earlier test goes (the database was emptied).
    assert.equal((await send(varnish!.url, 'BAN', '/', { 'X-Ban-Url': '.' })).status, 200);
    editor = await createUser('editor', 'purge-editor');
  });

  /** Starts the purger once the test's records exist: it follows the feed from there (the writes before are not its to ban). */
  async function startPurger(): Promise<void> {
    const { db } = await openTestDatabase();
    purger = startCachePurger({ db, config: { publicUrl: undefined, basePath: '/wp-json', purgeUrl: varnish!.url }, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent') });
    await purger.ready;
  }

  const through = (path: string) => send(varnish!.url, 'GET', path);
  /** Reads each path through Varnish twice: the second answer comes from the cache. */
  async function cache(paths: string[], text: string): Promise<void> {
    for (const path of paths) {
      const first = await through(path);
      assert.equal(first.status, 200, `${path}: ${first.body}`);
      assert.ok(first.body.includes(text), `${path} shows ${text}`);
      const before = seen.length;
      const second = await through(path);
      assert.equal(second.headers['x-cache'], 'HIT', path);
      assert.equal(seen.length, before, `${path} reached the service again`);
    }
  }

  /** Waits until every path, read through Varnish, shows `text`; returns how long that took. */
  async function visible(paths: string[], text: string, withinMs: number): Promise<number> {
    const started = Date.now();
    let stale: string[] = [];
    const fresh = async () => {
      stale = [];
      for (const path of paths) if (!(await through(path)).body.includes(text)) stale.push(path);
      return stale.length === 0;
    };
    await waitFor(fresh, `${text} through Varnish`, withinMs, 50).catch(() => assert.fail(`still stale after ${withinMs} ms through Varnish: ${stale.join(' ')}`));
    return Date.now() - started;
  }

  it('a PATCH of an event is visible through Varnish within about a second on every URL that shows it', async () => {
    const created = await request(app)
      .post(`${NS}/events`)
      .set('Host', HOST)
      .set('Authorization', editor.authorization)
      .send({ title: 'Before', status: 'publish', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 12:00:00' });
    assert.equal(created.status, 201, created.text);
    const { id, slug } = created.body;
    const paths = [
      `${NS}/events/${id}`,
      `${NS}/events/${id}.ics`,
      `${NS}/events/${id}/ics`,
      `${NS}/events/by-slug/${slug}`,
      `${NS}/events`,
      `${NS}/events.ics`,
      `/event/${slug}/`,
      '/events/',
    ];
    await startPurger();
    await cache(paths, 'Before');
    const patched = await request(app).patch(`${NS}/events/${id}`).set('Host', HOST).set('Authorization', editor.authorization).send({ title: 'After' });
    assert.equal(patched.status, 200, patched.text);
    const took = await visible(paths, 'After', 1500);
    assert.ok(took < 1500, `${took} ms`);
  });

  it('a venue rename reaches the events that embed it, through Varnish, within about a second', async () => {
    const venue = await request(app).post(`${NS}/venues`).set('Host', HOST).set('Authorization', editor.authorization).send({ venue: 'Old Hall' });
    assert.equal(venue.status, 201, venue.text);
    const event = await request(app)
      .post(`${NS}/events`)
      .set('Host', HOST)
      .set('Authorization', editor.authorization)
      .send({ title: 'At the hall', status: 'publish', venue: venue.body.id, start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 12:00:00' });
    assert.equal(event.status, 201, event.text);
    const paths = [`${NS}/events/${event.body.id}`, `${NS}/venues/${venue.body.id}`, `${NS}/events`, `/event/${event.body.slug}/`];
    await startPurger();
    await cache(paths, 'Old Hall');
    const renamed = await request(app).patch(`${NS}/venues/${venue.body.id}`).set('Host', HOST).set('Authorization', editor.authorization).send({ venue: 'New Hall' });
    assert.equal(renamed.status, 200, renamed.text);
    await visible(paths, 'New Hall', 1500);
  });
});
