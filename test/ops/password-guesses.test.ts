import assert from 'node:assert/strict';
import http from 'node:http';
import { NS } from '../helpers/app.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';

/** The setting under test: this many wrong guesses per client and record, then 429. */
const LIMIT = 6;

/**
 * The record-password guess counter is one count per database (issue #29): under `WORKERS=2` the
 * limit is `PASSWORD_FAILURE_LIMIT`, not twice it, whichever worker each guess reaches. On MySQL the
 * real service runs two workers; on SQLite (one process, WORKERS > 1 is refused there) the same
 * guesses go to one process, and the count outlives a restart, since it is in the database.
 */
describe('record-password guesses are counted once for every process of a database (WORKERS=2)', function () {
  this.timeout(180_000);
  let database: Awaited<ReturnType<typeof serviceDatabase>>;
  let service: Service | undefined;
  let authorization: string;
  let workers: number;

  before(async () => {
    database = await serviceDatabase();
    workers = database.engine === 'mysql' ? 2 : 1;
  });
  beforeEach(async () => {
    authorization = await addUser(database.db, `guesses-admin-${Date.now()}`, 'administrator');
    service = await start();
  });
  afterEach(() => {
    killService(service);
    service = undefined;
  });
  after(async () => {
    // The MySQL test database stays open for the rest of the run; a SQLite file is removed.
    await database?.close();
  });

  async function start(): Promise<Service> {
    const started = await startService({
      DATABASE_URL: database.url,
      WORKERS: String(workers),
      PASSWORD_FAILURE_LIMIT: String(LIMIT),
      PASSWORD_FAILURE_WINDOW: '120',
    });
    for (let worker = 1; workers > 1 && worker <= workers; worker++)
      await started.waitForLog((line) => line.worker === worker && typeof line.msg === 'string' && line.msg.startsWith('listening on '), 90_000);
    return started;
  }

  /** One GET on a connection of its own (no keep-alive), so that the workers take turns at answering. */
  function get(path: string): Promise<{ status: number; retryAfter?: string; code?: string }> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${service!.url}${path}`, { agent: false }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, code: (JSON.parse(text) as { code?: string }).code }));
      });
      req.on('error', reject);
    });
  }

  async function protectedEvent(title: string): Promise<number> {
    const res = await fetch(`${service!.url}${NS}/events`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title, start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', password: 'the-right-one' }),
    });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    return (JSON.parse(text) as { id: number }).id;
  }

  /** The workers that answered the password attempts on the record (each request's log line names its worker). */
  const answeredBy = (id: number) =>
    new Set(
      service!
        .logs()
        .filter((line) => String((line.req as { url?: string } | undefined)?.url ?? '').startsWith(`${NS}/events/${id}?password=`))
        .map((line) => line.worker),
    );

  it('refuses the guess after the limit, the right password too, whichever worker answers', async () => {
    const id = await protectedEvent('Guessed In Turns');
    for (let n = 1; n <= LIMIT; n++) {
      const res = await get(`${NS}/events/${id}?password=guess-${n}`);
      assert.deepEqual([res.status, res.code], [403, 'event-password-protected'], `guess ${n}`);
    }
    // Counted per process, two workers would have allowed twice as many.
    for (const password of ['guess-7', 'the-right-one', 'guess-8', 'the-right-one']) {
      const res = await get(`${NS}/events/${id}?password=${password}`);
      assert.deepEqual([res.status, res.code], [429, 'rest_too_many_requests'], password);
      assert.ok(Number(res.retryAfter) > 0 && Number(res.retryAfter) <= 120, `Retry-After ${res.retryAfter}`);
    }
    if (workers > 1) assert.deepEqual([...answeredBy(id)].sort(), [1, 2], 'both workers answered guesses');
    // Another record is counted apart.
    const other = await protectedEvent('Not Guessed');
    assert.equal((await get(`${NS}/events/${other}?password=the-right-one`)).status, 200);
  });

  it('counts concurrent guesses exactly: of twice the limit at once, the limit are 403 and the rest 429', async () => {
    const id = await protectedEvent('Guessed At Once');
    const answers = await Promise.all(Array.from({ length: 2 * LIMIT }, (_, n) => get(`${NS}/events/${id}?password=at-once-${n}`)));
    const statuses = answers.map((res) => res.status).sort();
    assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(403), ...Array<number>(LIMIT).fill(429)]);
    if (workers > 1) assert.deepEqual([...answeredBy(id)].sort(), [1, 2], 'both workers answered guesses');
  });

  it('keeps the count across a restart of the service: it is in the database', async () => {
    const id = await protectedEvent('Guessed Before A Restart');
    for (let n = 1; n <= LIMIT; n++) assert.equal((await get(`${NS}/events/${id}?password=guess-${n}`)).status, 403);
    killService(service);
    await service!.exited;
    service = await start();
    assert.equal((await get(`${NS}/events/${id}?password=the-right-one`)).status, 429);
  });
});
