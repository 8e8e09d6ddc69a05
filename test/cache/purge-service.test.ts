import assert from 'node:assert/strict';
import { addUser, killService, serviceDatabase, startService, type Service } from '../ops/service.js';
import { CacheReceiver } from '../helpers/cache-receiver.js';

const NS = '/wp-json/tribe/events/v1';

/**
 * PURGE_URL in the real process (src/main.ts): refused at start-up when it is no http(s) URL; when
 * set, the process's writes are banned at the cache, the metrics count the BANs, and a shutdown
 * stops the purger cleanly.
 */
describe('PURGE_URL in the service process', function () {
  this.timeout(90_000);
  let database: Awaited<ReturnType<typeof serviceDatabase>>;
  let service: Service | undefined;
  let receiver: CacheReceiver | undefined;

  before(async () => {
    database = await serviceDatabase();
  });
  after(async () => {
    await database.close();
  });
  afterEach(async () => {
    killService(service);
    service = undefined;
    await receiver?.stop();
    receiver = undefined;
  });

  it('refuses to start with a PURGE_URL that is no absolute http(s) URL, saying so', async () => {
    await assert.rejects(startService({ DATABASE_URL: database.url, PURGE_URL: 'cache.internal:6081' }), /could not start: PURGE_URL must be an (absolute )?http\(s\) URL/);
  });

  it('bans what a write altered at the cache, counts it in the metrics, and stops cleanly', async () => {
    receiver = await CacheReceiver.start();
    const authorization = await addUser(database.db, 'purge-service-editor');
    service = await startService({ DATABASE_URL: database.url, PURGE_URL: receiver.url, METRICS: 'on' });
    const res = await fetch(`${service.url}${NS}/events`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Purged', status: 'publish', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const { id } = (await res.json()) as { id: number };
    await receiver.waitFor(() => receiver!.acknowledgedBans().some((pattern) => new RegExp(pattern).test(`${NS}/events/${id}`)), 10_000);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    assert.match(metrics, /cache_purges_total\{result="acknowledged"\} [1-9]/);
    service.child.kill('SIGTERM');
    const exit = await service.exited;
    assert.equal(exit.code, 0, JSON.stringify(service.logs().slice(-5)));
  });
});
