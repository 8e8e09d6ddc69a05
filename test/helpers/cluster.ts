/**
 * The Galera cluster for the opt-in cluster tests (test/cluster/): the same harness `npm run cluster`
 * uses (scripts/cluster/galera.ts). Starting three nodes takes seconds and a few hundred MB, so these
 * tests run only when asked: CLUSTER_TESTS=1.
 */
import { startCluster, nodeStatus, type GaleraCluster } from '../../scripts/cluster/galera.js';
import { openDatabase } from '../../src/db/knex.js';
import { addUser, startService, type Service } from '../ops/service.js';

export { startCluster, nodeStatus, queryNode, type GaleraCluster, type GaleraNode } from '../../scripts/cluster/galera.js';

export const CLUSTER_TESTS = process.env.CLUSTER_TESTS === '1';

/** The one-line reason a cluster test gives when it skips. */
export const CLUSTER_SKIP_REASON = 'cluster tests are opt-in: set CLUSTER_TESTS=1 to run them on a three-node Galera cluster';

let shared: Promise<GaleraCluster> | undefined;

/**
 * The one cluster of a test run, started by the first cluster test that asks (about 15–40 s) and
 * stopped by the root hooks after the run (test/hooks.ts), so several files share its start-up cost.
 */
export function sharedCluster(): Promise<GaleraCluster> {
  shared ??= startCluster({ log: (message) => console.log(`      [cluster] ${message}`) });
  return shared;
}

export async function stopSharedCluster(): Promise<void> {
  const cluster = await shared?.catch(() => undefined);
  shared = undefined;
  await cluster?.stop();
}

/** Every node's figures of interest: certification failures and transactions aborted by replication. */
export async function conflictFigures(cluster: GaleraCluster): Promise<Array<{ node: string; certFailures: number; bfAborts: number }>> {
  return Promise.all(
    cluster.nodes.map(async (node) => ({
      node: node.name,
      certFailures: Number(await nodeStatus(node, 'wsrep_local_cert_failures')),
      bfAborts: Number(await nodeStatus(node, 'wsrep_local_bf_aborts')),
    })),
  );
}

/**
 * One service process per node, each validating its answers against the OpenAPI document (the first
 * starts alone: on a fresh cluster it migrates before the others start), with `env` added to their
 * settings, and the credentials of a new editor and a new administrator named after `login`.
 */
export async function servicesOnEveryNode(
  cluster: GaleraCluster,
  login: string,
  env: Record<string, string> = {},
): Promise<{ services: Service[]; authorization: string; administrator: string }> {
  const start = (url: string) => startService({ DATABASE_URL: url, VALIDATE_RESPONSES: '1', ...env });
  const services = [await start(cluster.urls[0])];
  services.push(...(await Promise.all(cluster.urls.slice(1).map(start))));
  const { db } = openDatabase(cluster.urls[0]);
  try {
    const suffix = Date.now();
    return {
      services,
      authorization: await addUser(db, `${login}-${suffix}`),
      administrator: await addUser(db, `${login}-admin-${suffix}`, 'administrator'),
    };
  } finally {
    await db.destroy();
  }
}
