import assert from 'node:assert/strict';
import net from 'node:net';
import request from 'supertest';
import type { Knex } from 'knex';
import { createApp } from '../../src/http/app.js';
import { openDatabase } from '../../src/db/knex.js';
import { createLogger } from '../../src/core/logger.js';
import { NS, testConfig } from '../helpers/app.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../helpers/database.js';
import { expectStatus } from '../helpers/assertions.js';
import { waitFor } from '../helpers/wait.js';
import { UserRepository } from '../../src/repositories/users.js';

/**
 * A TCP proxy between the service and MySQL that the test controls: `up` forwards, `down` cuts every
 * connection and refuses new ones, `hang` accepts connections and stalls every byte (a database or
 * network that stops answering without closing anything).
 */
class Proxy {
  private server = net.createServer((client) => this.accept(client));
  private pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  mode: 'up' | 'down' | 'hang' = 'up';

  constructor(private target: { host: string; port: number }) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** When set, the first packet from the service that contains it cuts every connection first. */
  private trigger: Buffer | undefined;

  private accept(client: net.Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'down') {
      client.destroy();
      return;
    }
    // Registered before the pipe below, so it runs first and the packet never reaches the server.
    client.on('data', (chunk: Buffer) => {
      if (this.trigger && chunk.includes(this.trigger)) {
        this.trigger = undefined;
        this.cut();
      }
    });
    const upstream = net.connect(this.target);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    const pair = { client, upstream };
    this.pairs.add(pair);
    client.once('close', () => (this.pairs.delete(pair), upstream.destroy()));
    upstream.once('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.mode === 'hang') this.stall(pair);
  }

  private stall({ client, upstream }: { client: net.Socket; upstream: net.Socket }): void {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  }

  cut(): void {
    this.mode = 'down';
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
  }

  /** Cuts every connection when the service sends `text` (e.g. a statement inside a transaction). */
  cutWhenSent(text: string): void {
    this.trigger = Buffer.from(text);
  }

  hang(): void {
    this.mode = 'hang';
    for (const pair of this.pairs) this.stall(pair);
  }

  /** Back to forwarding; safe to call in any mode (only stalled connections are piped again). */
  restore(): void {
    const stalled = this.mode === 'hang';
    this.mode = 'up';
    this.trigger = undefined;
    if (!stalled) return;
    for (const { client, upstream } of this.pairs) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// The embedded SQLite database is a file in this process, with no network to lose: this runs in the
// MySQL leg of the suite (TEST_DATABASE_URL=mysql://…, as .ci/run does) and is pending on SQLite.
const isMysql = /^(mysql|mariadb):/.test(TEST_DATABASE_URL);

(isMysql ? describe : describe.skip)('database unreachable (MySQL through a proxy the test controls)', function () {
  this.timeout(120_000);
  let proxy: Proxy;
  let db: Knex;
  let http: () => ReturnType<typeof request>;

  before(async () => {
    const target = new URL(TEST_DATABASE_URL.replace(/^mariadb:/, 'mysql:'));
    proxy = new Proxy({ host: target.hostname, port: Number(target.port || 3306) });
    const port = await proxy.listen();
    const proxied = new URL(target);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(port);
    // DB_TIMEOUT=1 and REQUEST_TIMEOUT=3: an outage must show within seconds.
    const quiet = { warn: () => undefined, error: () => undefined };
    ({ db } = openDatabase(proxied.toString(), { timeoutMs: 1000, log: quiet }));
    const app = createApp({ config: testConfig({ requestTimeoutSeconds: 3, dbTimeoutSeconds: 1 }), db, logger: createLogger('silent') });
    http = () => request(app);
  });
  after(async () => {
    await db?.destroy();
    await proxy?.close();
  });
  // A failed test must not leave the next one without a database.
  afterEach(() => proxy.restore());

  /** Asserts an answer that tells the client to come back, within a bounded time. */
  async function expectUnavailable(send: () => Promise<request.Response>, label: string): Promise<void> {
    const started = Date.now();
    const res = await send();
    const took = Date.now() - started;
    assert.equal(res.status, 503, `${label}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.ok(['rest_database_unavailable', 'rest_request_timeout'].includes(res.body.code), `${label}: ${res.body.code}`);
    assert.equal(res.body.data.status, 503);
    assert.ok(Number(res.headers['retry-after']) > 0, `${label}: no Retry-After`);
    // Bounded: REQUEST_TIMEOUT is 3 s; a hanging request would take the mocha timeout.
    assert.ok(took < 10_000, `${label}: answered after ${took} ms`);
  }

  /** Polls until the service answers again, without a restart. */
  async function expectRecovery(): Promise<void> {
    let res: request.Response | undefined;
    await waitFor(async () => (res = await http().get(`${NS}/events`)).status === 200, 'the service to recover', 30_000, 200).catch(() =>
      assert.fail(`not recovered: ${res?.status} ${JSON.stringify(res?.body)}`),
    );
    assert.equal((await http().get('/readyz')).status, 200);
    assert.equal((await http().get(`${NS}/categories?hide_empty=0`)).status, 200);
  }

  it('answers 503 rest_database_unavailable with Retry-After when connections are cut, fails /readyz, and recovers by itself', async () => {
    assert.equal((await http().get(`${NS}/events`)).status, 200);
    assert.equal((await http().get('/readyz')).status, 200);

    proxy.cut();
    for (let i = 0; i < 3; i++) await expectUnavailable(() => http().get(`${NS}/events`), `list ${i}`);
    await expectUnavailable(() => http().get(`${NS}/venues/1`), 'single read');
    // A write authenticates against the database first: 503 too, never 401.
    await expectUnavailable(
      () =>
        http()
          .post(`${NS}/categories`)
          .set('Authorization', `Basic ${Buffer.from('someone:secret-0123456789').toString('base64')}`)
          .send({ name: 'X' }),
      'write',
    );
    const ready = await http().get('/readyz');
    assert.equal(ready.status, 503);
    assert.ok(Number(ready.headers['retry-after']) > 0);
    // The process itself is alive.
    assert.equal((await http().get('/healthz')).status, 200);

    proxy.restore();
    await expectRecovery();
  });

  it('answers 503 to writes whose connection is lost inside their transaction, keeps none of them, and recovers', async () => {
    const { db: direct } = await openTestDatabase();
    const secret = 'outage-editor-secret-0123456789';
    await new UserRepository(direct).add('outage-editor', 'editor', secret);
    const create = (title: string) =>
      http()
        .post(`${NS}/events`)
        .auth('outage-editor', secret)
        .send({ title, start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', venue: { venue: `${title} Hall` } });
    expectStatus(await create('Before The Outage'), 201);

    // One write: its post is inserted, then the connection dies as the event row is sent; the
    // rollback then fails on the closed connection.
    proxy.cutWhenSent('insert into `events`');
    const alone = await create('Cut Mid Write');
    assert.equal(alone.status, 503, JSON.stringify(alone.body));
    assert.equal(alone.body.code, 'rest_database_unavailable');
    assert.ok(Number(alone.headers['retry-after']) > 0);
    proxy.restore();
    await expectRecovery();

    // Several writes in flight when the connection dies: each one gets 503, none half-written.
    proxy.cutWhenSent('insert into `events`');
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(`In Flight ${i}`)));
    for (const [i, res] of answers.entries()) {
      assert.equal(res.status, 503, `write ${i}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.ok(['rest_database_unavailable', 'rest_request_timeout'].includes(res.body.code), `write ${i}: ${res.body.code}`);
      assert.ok(Number(res.headers['retry-after']) > 0, `write ${i}: no Retry-After`);
    }
    assert.ok(Date.now() - started < 10_000);
    proxy.restore();
    await expectRecovery();

    // The server rolled every cut transaction back: no post, event or venue of theirs remains.
    const titles = await direct('posts').whereIn('type', ['event', 'venue']).pluck('title');
    assert.deepEqual(titles.sort(), ['Before The Outage', 'Before The Outage Hall']);
    expectStatus(await create('After The Outage'), 201);
  });

  it('answers 503 within the timeouts when the database stops answering without closing, and recovers when it answers again', async () => {
    assert.equal((await http().get(`${NS}/events`)).status, 200);
    proxy.hang();
    await Promise.all([
      expectUnavailable(() => http().get(`${NS}/events`), 'list on a stalled connection'),
      expectUnavailable(() => http().get(`${NS}/organizers`), 'another list'),
    ]);
    const ready = await http().get('/readyz');
    assert.equal(ready.status, 503);

    proxy.restore();
    await expectRecovery();
  });
});
