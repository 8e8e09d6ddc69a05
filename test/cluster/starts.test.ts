import assert from 'node:assert/strict';
import { CLUSTER_SKIP_REASON, CLUSTER_TESTS, sharedCluster, type GaleraCluster } from '../helpers/cluster.js';
import { killService, startService, type Service } from '../ops/service.js';

/**
 * Processes started together on the cluster, spread over its nodes, with nothing pending
 * (src/db/migrate.ts). Migrations themselves must run from one process before the others start:
 * knex's migration lock does not hold across Galera nodes (docs/mysql-and-cluster.md "How it behaves on a cluster").
 */
describe(`cluster: processes started together${CLUSTER_TESTS ? '' : ` (skipped: ${CLUSTER_SKIP_REASON})`}`, function () {
  this.timeout(300_000);
  let cluster: GaleraCluster;
  let services: Array<Service | undefined> = [];

  before(async function () {
    if (!CLUSTER_TESTS) return this.skip();
    cluster = await sharedCluster();
    // One process migrates the cluster's database (if no other test did), then stops.
    const first = await startService({ DATABASE_URL: cluster.urls[0], VALIDATE_RESPONSES: '1' });
    killService(first);
  });
  afterEach(() => {
    for (const service of services) killService(service);
    services = [];
  });

  const startFive = async () => {
    const started = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => startService({ DATABASE_URL: cluster.urls[i % 3], VALIDATE_RESPONSES: '1' })));
    services = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
    const failures = started.flatMap((result) => (result.status === 'rejected' ? [String((result.reason as Error).message).slice(0, 600)] : []));
    assert.deepEqual(failures, []);
    for (const service of services) assert.equal((await fetch(`${service!.url}/readyz`)).status, 200);
    return services.filter((service) => service!.logs().some((line) => line.msg === 'migrations applied')).length;
  };

  it('five processes on three nodes with nothing pending: all start, none migrates', async () => {
    assert.equal(await startFive(), 0);
  });
});
