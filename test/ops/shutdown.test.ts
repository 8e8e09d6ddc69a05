import assert from 'node:assert/strict';
import http from 'node:http';
import type { Knex } from 'knex';
import { NS } from '../helpers/app.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';
import { waitFor } from '../helpers/wait.js';

/** A raw POST that can be held half-sent: the server has the request but not its whole body yet. */
function heldPost(url: string, path: string, authorization: string, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  const request = http.request(`${url}${path}`, {
    method: 'POST',
    agent: false,
    headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length, Authorization: authorization },
  });
  const response = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    request.once('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') as Record<string, unknown> }));
      res.on('error', reject);
    });
    request.once('error', reject);
  });
  request.write(payload.subarray(0, payload.length >> 1));
  return { response, finish: () => request.end(payload.subarray(payload.length >> 1)) };
}

/** Until the service (with METRICS=on) has `count` requests in flight besides the scrape, which its in-flight gauge counts too. */
async function untilInFlight(url: string, count: number): Promise<void> {
  await waitFor(
    async () => Number(/^http_requests_in_flight (\d+)/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0) >= count + 1,
    `${count} request(s) in flight`,
    90_000,
    50,
  );
}

const event = (title: string) => ({
  title,
  start_date: '2027-05-01 10:00:00',
  end_date: '2027-05-01 12:00:00',
  status: 'publish',
  venue: { venue: `${title} Hall` },
  organizer: [{ organizer: `${title} Org` }],
  categories: ['Shutdown Test'],
});

async function storedTitles(db: Knex, ids: number[]): Promise<string[]> {
  const rows = await db('posts').whereIn('id', ids).andWhere('type', 'event').select('title');
  return rows.map((row: { title: string }) => row.title).sort();
}

describe('graceful shutdown (the service as a child process)', function () {
  this.timeout(120_000);
  let database: Awaited<ReturnType<typeof serviceDatabase>>;
  let service: Service | undefined;

  beforeEach(async () => {
    database = await serviceDatabase();
  });
  afterEach(async () => {
    killService(service);
    service = undefined;
    await database.close();
  });

  it('on SIGTERM stops accepting, finishes every request in flight, closes the pool and exits 0', async () => {
    const authorization = await addUser(database.db, 'shutdown-editor');
    service = await startService({ DATABASE_URL: database.url, SHUTDOWN_TIMEOUT: '20', METRICS: 'on' });
    const { url } = service;

    // Load: 40 writes, each on its own connection, held half-sent so that all are in flight at once.
    const held = Array.from({ length: 40 }, (_, i) => heldPost(url, `${NS}/events`, authorization, event(`Held ${i}`)));
    // Signal only once the server has received every one of them.
    await untilInFlight(url, held.length);
    const signalled = Date.now();
    service.child.kill('SIGTERM');
    await service.waitForLog((line) => line.msg === 'shutting down');

    // Stopped accepting: a new connection is refused while the old requests are still running.
    await assert.rejects(fetch(`${url}${NS}/events`), 'a new request was accepted after SIGTERM');
    // The uploads complete after the signal, all at once, and are all served.
    for (const request of held) request.finish();

    const answers = await Promise.all(held.map((request) => request.response));
    for (const [i, answer] of answers.entries()) assert.equal(answer.status, 201, `request ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);

    const { code, signal } = await service.exited;
    assert.equal(signal, null);
    assert.equal(code, 0);
    assert.ok(Date.now() - signalled < 20_000, 'the exit took longer than SHUTDOWN_TIMEOUT');
    assert.ok(
      service.logs().some((line) => line.msg === 'stopped'),
      'the pool was not closed before exiting',
    );

    // Every acknowledged write is in the database.
    const ids = answers.map((answer) => Number(answer.body.id));
    assert.deepEqual(await storedTitles(database.db, ids), held.map((_, i) => `Held ${i}`).sort());
  });

  it('exits after SHUTDOWN_TIMEOUT even when a request never completes', async () => {
    const authorization = await addUser(database.db, 'stuck-editor');
    service = await startService({ DATABASE_URL: database.url, SHUTDOWN_TIMEOUT: '1', METRICS: 'on' });
    const stuck = heldPost(service.url, `${NS}/events`, authorization, event('Never Finished'));
    stuck.response.catch(() => undefined);
    await untilInFlight(service.url, 1);
    const signalled = Date.now();
    service.child.kill('SIGTERM');
    const { code } = await service.exited;
    const waited = Date.now() - signalled;
    // Bounded: it neither waited for the upload nor left before the grace period.
    assert.equal(code, 1);
    assert.ok(waited >= 900 && waited < 15_000, `exited after ${waited} ms`);
    assert.ok(service.logs().some((line) => line.msg === 'in-flight requests did not finish within SHUTDOWN_TIMEOUT'));
  });
});
