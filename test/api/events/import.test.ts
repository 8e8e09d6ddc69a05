import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createUser, NS, testApp, testConfig, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { projectRoot } from '../../../src/openapi/document.js';
import { ICS_MAX_BYTES, ICS_MAX_EVENTS } from '../../../src/importing/ics.js';

/**
 * `POST /events/import` (docs/importing.md "Importing a calendar file"): a calendar sent as the body
 * or fetched from a URL under the outbound rule (docs/settings.md "Outbound requests"), its report,
 * who may, and every way a calendar is refused with nothing written (docs/contract.md §20).
 */

const fixture = (name: string) => fs.readFileSync(path.join(projectRoot(), 'test/fixtures/ics', `${name}.ics`), 'utf8');
const IMPORT = `${NS}/events/import`;

/** A calendar of `count` small events. */
function calendarOf(count: number, prefix = 'ev'): string {
  const events = Array.from(
    { length: count },
    (_, i) =>
      `BEGIN:VEVENT\r\nUID:${prefix}-${i}@example.org\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:20270601T100000Z\r\nDTEND:20270601T110000Z\r\nSUMMARY:Event ${i}\r\nEND:VEVENT\r\n`,
  );
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${events.join('')}END:VCALENDAR\r\n`;
}

async function eventCount(): Promise<number> {
  const { db } = await openTestDatabase();
  return Number((await db('events').count({ n: '*' }))[0].n);
}

/** A calendar server on 127.0.0.1: `/x.ics` answers a calendar, `/hang` never answers, `/moved` redirects to `Location` given in `?to=`. */
async function calendarServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/google.ics') res.writeHead(200, { 'content-type': 'text/calendar' }).end(fixture('google'));
    else if (url.pathname === '/big.ics') res.writeHead(200, { 'content-type': 'text/calendar' }).end('X'.repeat(ICS_MAX_BYTES + 1));
    else if (url.pathname === '/hang') hanging.add(res);
    else if (url.pathname === '/moved') res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('POST /events/import', () => {
  let editor: TestUser;
  beforeEach(async () => {
    editor = await createUser('editor');
  });

  it('imports a calendar sent as text/calendar, reports it, and updates instead of duplicating the second time', async () => {
    const { http: api } = await testApp();
    const res = await api().post(IMPORT).set('Authorization', editor.authorization).set('Content-Type', 'text/calendar').send(fixture('google'));
    expectStatus(res, 200);
    assert.equal(res.body.source, 'upload');
    assert.deepEqual([res.body.dry_run, res.body.counts.event.created, res.body.counts.venue.created, res.body.skipped.length], [false, 3, 1, 2]);
    assert.ok(res.body.skipped.some((s: { source_id: string; reason: string }) => s.source_id === 'cancelled1x2y3z@google.com' && /STATUS:CANCELLED/.test(s.reason)));
    // The series among them count their occurrences too.
    const stored = await eventCount();
    const again = await api().post(IMPORT).set('Authorization', editor.authorization).set('Content-Type', 'text/calendar').send(fixture('google'));
    expectStatus(again, 200);
    assert.deepEqual([again.body.counts.event.created, again.body.counts.event.unchanged], [0, 3]);
    assert.equal(await eventCount(), stored);
    const dry = await api().post(`${IMPORT}?dry_run=true`).set('Authorization', editor.authorization).set('Content-Type', 'text/calendar').send(calendarOf(2, 'dry'));
    expectStatus(dry, 200);
    assert.deepEqual([dry.body.dry_run, dry.body.counts.event.created], [true, 2]);
    assert.equal(await eventCount(), stored, 'a dry run writes nothing');
  });

  it('two imports of the same calendar at once create each event once', async () => {
    const { http: api } = await testApp();
    const text = calendarOf(20, 'race');
    const send = () => api().post(IMPORT).set('Authorization', editor.authorization).set('Content-Type', 'text/calendar').send(text);
    const [a, b] = await Promise.all([send(), send()]);
    expectStatus(a, 200);
    expectStatus(b, 200);
    assert.equal(await eventCount(), 20);
    assert.equal(a.body.counts.event.created + b.body.counts.event.created, 20, JSON.stringify([a.body.counts.event, b.body.counts.event]));
    assert.equal(a.body.counts.event.failed + b.body.counts.event.failed, 0);
  });

  it('is for editors and administrators: an author gets 403, nobody 401, and nothing is written', async () => {
    const { http: api } = await testApp();
    const author = await createUser('author');
    expectError(await api().post(IMPORT).set('Authorization', author.authorization).set('Content-Type', 'text/calendar').send(calendarOf(1)), 403, 'rest_forbidden');
    expectError(await api().post(IMPORT).set('Content-Type', 'text/calendar').send(calendarOf(1)), 401, 'rest_forbidden');
    const admin = await createUser('administrator');
    expectStatus(await api().post(IMPORT).set('Authorization', admin.authorization).set('Content-Type', 'text/calendar').send(calendarOf(1)), 200);
    assert.equal(await eventCount(), 1);
  });

  it('refuses what is no calendar (400), too many events (400) and more than 5 MiB (413), writing nothing', async () => {
    const { http: api } = await testApp();
    const post = (text: string) => api().post(IMPORT).set('Authorization', editor.authorization).set('Content-Type', 'text/calendar').send(text);
    const notCalendar = await post('{"not": "a calendar"}');
    expectError(notCalendar, 400, 'rest_invalid_calendar');
    assert.match(notCalendar.body.message, /not an iCalendar text/);
    const tooMany = await post(calendarOf(ICS_MAX_EVENTS + 1));
    expectError(tooMany, 400, 'rest_invalid_calendar');
    assert.match(tooMany.body.message, /2001 events; an import takes at most 2000/);
    const big = await post(`BEGIN:VCALENDAR\r\n${'X'.repeat(ICS_MAX_BYTES)}`);
    expectError(big, 413, 'rest_request_too_large');
    assert.match(big.body.message, /5 MiB/);
    expectError(await api().post(IMPORT).set('Authorization', editor.authorization).send({ url: 'https://example.org/a.ics', extra: 1 }), 400, 'rest_invalid_param');
    const plain = await api().post(IMPORT).set('Authorization', editor.authorization).set('Content-Type', 'text/plain').send('BEGIN:VCALENDAR');
    expectError(plain, 415, 'rest_unsupported_media_type');
    assert.match(plain.body.message, /text\/calendar or application\/json for POST \/events\/import/);
    assert.equal(await eventCount(), 0);
  });

  describe('from a url', () => {
    let server: Awaited<ReturnType<typeof calendarServer>>;
    before(async () => {
      server = await calendarServer();
    });
    after(async () => {
      await server.close();
    });
    const allowed = { outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'], fetchTimeoutSeconds: 0.5 } };

    it('fetches it over http from a network OUTBOUND_ALLOWED_NETWORKS lists; the URL names the source', async () => {
      const { http: api } = await testApp(allowed);
      const url = `${server.origin}/google.ics`;
      const res = await api().post(IMPORT).set('Authorization', editor.authorization).send({ url });
      expectStatus(res, 200);
      assert.deepEqual([res.body.source, res.body.counts.event.created], [url, 3]);
      const stored = await eventCount();
      // A redirect is followed, and checked: into the listed network, yes.
      const moved = await api()
        .post(IMPORT)
        .set('Authorization', editor.authorization)
        .send({ url: `${server.origin}/moved?to=/google.ics` });
      expectStatus(moved, 200);
      assert.equal(moved.body.counts.event.created, 3, 'another source (URL), its own events');
      assert.equal(await eventCount(), 2 * stored);
    });

    it('refuses the same server without the allowance, and every forbidden address, with 400 on url', async () => {
      const { http: api } = await testApp();
      for (const url of [
        `${server.origin}/google.ics`,
        'https://127.0.0.1/a.ics',
        'https://[::127.0.0.1]/a.ics',
        'https://[::ffff:169.254.169.254]/',
        'https://10.0.0.1/',
        'ftp://example.org/a.ics',
      ]) {
        const data = expectError(await api().post(IMPORT).set('Authorization', editor.authorization).send({ url }), 400, 'rest_invalid_param');
        assert.ok('url' in (data.params as object), url);
      }
      assert.equal(await eventCount(), 0);
    });

    it('refuses a redirect to an address the rule refuses', async () => {
      const { http: api } = await testApp(allowed);
      const data = expectError(
        await api()
          .post(IMPORT)
          .set('Authorization', editor.authorization)
          .send({ url: `${server.origin}/moved?to=https://169.254.169.254/latest` }),
        400,
        'rest_invalid_param',
      );
      assert.match(
        String((data.params as Record<string, string>).url),
        /^a redirect to https:\/\/169\.254\.169\.254\/latest: url may not be reached: 169\.254\.169\.254 is a linkLocal address/,
      );
      assert.equal(await eventCount(), 0);
    });

    it('answers 502 for a source that fails or cannot be reached, 504 for one that does not answer in time, 413 for one too large', async () => {
      const { http: api } = await testApp(allowed);
      const post = (url: string) => api().post(IMPORT).set('Authorization', editor.authorization).send({ url });
      const gone = await post(`${server.origin}/gone.ics`);
      expectError(gone, 502, 'rest_import_source_unavailable');
      assert.match(gone.body.message, /answered HTTP 404/);
      expectError(await post('http://127.0.0.1:9/closed.ics'), 502, 'rest_import_source_unavailable');
      expectError(await post(`${server.origin}/hang`), 504, 'rest_import_source_timeout');
      expectError(await post(`${server.origin}/big.ics`), 413, 'rest_request_too_large');
      assert.equal(await eventCount(), 0);
    });
  });
});
