import assert from 'node:assert/strict';
import { NS } from '../helpers/app.js';
import { assertOneVersion, versionedUpdate } from './versioned-updates.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';

type Rec = Record<string, any>;

/**
 * Several processes on one database: WORKERS=2 (node:cluster) shares the port between two workers.
 * Concurrency across processes is where a stateful or non-atomic write would show.
 */
describe('several processes (WORKERS=2)', function () {
  this.timeout(180_000);
  let database: Awaited<ReturnType<typeof serviceDatabase>>;
  let service: Service | undefined;
  let authorization: string;

  before(async function () {
    database = await serviceDatabase();
    if (database.engine !== 'mysql') {
      // One SQLite file has one writer at a time; WORKERS > 1 is refused on SQLite (see the last test).
      await database.close();
      this.skip();
    }
  });
  beforeEach(async () => {
    authorization = await addUser(database.db, `workers-editor-${Date.now()}`);
    service = await startService({ DATABASE_URL: database.url, WORKERS: '2', METRICS: 'on', SHUTDOWN_TIMEOUT: '20' });
    // Both workers listen (each logs with its worker id).
    await service.waitForLog((line) => line.worker === 2 && typeof line.msg === 'string' && line.msg.startsWith('listening on '));
    await service.waitForLog((line) => line.worker === 1 && typeof line.msg === 'string' && line.msg.startsWith('listening on '));
  });
  afterEach(async () => {
    killService(service);
    service = undefined;
  });
  after(async () => {
    if (database?.engine === 'mysql') await database.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${service!.url}${NS}${path}`, { method: 'POST', headers: { Authorization: authorization, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const servedBy = () =>
    new Set(
      service!
        .logs()
        .filter((line) => line.req !== undefined && line.worker !== undefined)
        .map((line) => line.worker),
    );

  it('serves from both workers; concurrent creates with one title get distinct slugs and no errors', async () => {
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        post('/events', { title: 'Across Processes', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00', categories: ['Shared New'] }),
      ),
    );
    const bodies = await Promise.all(answers.map((res) => res.json() as Promise<Rec>));
    for (const [i, res] of answers.entries()) assert.equal(res.status, 201, JSON.stringify(bodies[i]));
    const slugs = bodies.map((body) => body.slug as string).sort();
    assert.deepEqual(slugs, ['across-processes', ...Array.from({ length: 15 }, (_, i) => `across-processes-${i + 2}`)].sort());
    // One category, created once, whichever process got there first.
    assert.equal(new Set(bodies.map((body) => body.categories[0].id)).size, 1);
    assert.deepEqual([...servedBy()].sort(), [1, 2], 'both workers answered requests');
  });

  it('never loses a link or leaves a half-written record under concurrent updates of one event from both workers', async () => {
    const created = (await (await post('/events', { title: 'Contended', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00' })).json()) as Rec;
    const updates = await Promise.all(Array.from({ length: 12 }, (_, i) => post(`/events/${created.id}`, versionedUpdate(i))));
    for (const res of updates) assert.equal(res.status, 200, await res.text());
    const final = (await (await fetch(`${service!.url}${NS}/events/${created.id}`, { headers: { Authorization: authorization } })).json()) as Rec;
    assertOneVersion(final);
    assert.deepEqual([...servedBy()].sort(), [1, 2]);
  });

  it('replaces a worker that dies, adds up metrics over the workers, and stops every worker on SIGTERM', async () => {
    const worker = service!.logs().find((line) => line.worker === 1 && typeof line.msg === 'string' && line.msg.startsWith('listening on '))!;
    process.kill(Number(worker.pid), 'SIGKILL');
    await service!.waitForLog((line) => line.msg === 'worker died; starting another');
    await service!.waitForLog((line) => line.worker === 3 && typeof line.msg === 'string' && line.msg.startsWith('listening on '));
    for (let i = 0; i < 10; i++) assert.equal((await fetch(`${service!.url}${NS}/events`)).status, 200);

    // A scrape reaches one worker but counts the requests of all of them.
    const metrics = await (await fetch(`${service!.url}/metrics`)).text();
    const total = metrics
      .split('\n')
      .filter((line) => line.startsWith('http_requests_total{') && line.includes('operation="listEvents"'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    assert.ok(total >= 10, `listEvents counted ${total} times`);
    assert.match(metrics, /db_pool_connections_max \d+/);

    service!.child.kill('SIGTERM');
    const { code } = await service!.exited;
    assert.equal(code, 0);
  });
});

describe('WORKERS on SQLite', () => {
  it('is refused: one SQLite file has one writer', async () => {
    const { loadConfig } = await import('../../src/core/config.js');
    assert.throws(() => loadConfig({ WORKERS: '2', DATABASE_URL: 'sqlite:data/x.sqlite' }), /WORKERS/);
    assert.equal(loadConfig({ WORKERS: '2', DATABASE_URL: 'mysql://u@h/db' }).workers, 2);
  });
});
