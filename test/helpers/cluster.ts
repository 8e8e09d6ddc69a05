/**
 * The Galera cluster for the opt-in cluster tests (test/cluster/): the same harness `npm run cluster`
 * uses (scripts/cluster/galera.ts). Starting three nodes takes seconds and a few hundred MB, so these
 * tests run only when asked: CLUSTER_TESTS=1.
 */
export { startCluster, nodeStatus, queryNode, type GaleraCluster, type GaleraNode } from '../../scripts/cluster/galera.js';

export const CLUSTER_TESTS = process.env.CLUSTER_TESTS === '1';

/** The one-line reason a cluster test gives when it skips. */
export const CLUSTER_SKIP_REASON = 'cluster tests are opt-in: set CLUSTER_TESTS=1 to run them on a three-node Galera cluster';
