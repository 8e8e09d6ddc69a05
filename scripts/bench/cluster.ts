/**
 * `npm run bench -- --cluster`: the service on a three-node Galera cluster on this machine
 * (scripts/cluster/galera.ts, ports 3411-3413), one service process per node. It seeds a calendar
 * through the first node, then measures, each phase with the same total connections: `POST /events`
 * with every writer on one process, then spread over the three; `GET /events/{id}` through one, then
 * three; the conflicts each phase caused (`wsrep_local_cert_failures`, `wsrep_local_bf_aborts`: each
 * one write run again by the service, docs/contract.md §18), per second; and what
 * `wsrep_sync_wait = 1` costs one primary-key read, on one connection.
 *
 *   npm run bench -- --cluster [options]
 *
 * The cluster is removed afterwards. Results go to bench/results/cluster-<timestamp>.json.
 */
import mysql from 'mysql2/promise';
import { startCluster, nodeStatus, type GaleraCluster } from '../cluster/galera.js';
import * as c from './common.js';
import { closedLoop } from './load.js';
import { samplesOf, scenario, type Samples, type Scenario } from './scenarios.js';
import { seedCalendar } from './seed.js';

/** The seeder drops the tables of databases named for the benchmark only. */
const CLUSTER_DATABASE = 'tec_bench';
const SPEC = {
  cluster: ['boolean'],
  events: ['number', 2000, 100, 5_000_000],
  duration: ['number', 10, 1, 120],
  connections: ['number', 24, 1, 256],
  warmup: ['number', 2, 0, 30],
  tsx: ['boolean'],
} satisfies c.Spec;

export async function main(argv: string[]): Promise<void> {
  const o = c.options(argv, SPEC, import.meta.url);
  const tsx = o.tsx || !c.buildService();
  const started = new Date();
  const cluster = await startCluster({ log: c.log, database: CLUSTER_DATABASE });
  const services: c.Child[] = [];
  try {
    await seedCalendar({ events: o.events, databaseUrl: cluster.urls[0], seed: 42 });
    const { samples } = await samplesOf(cluster.urls[0]);
    const bases: string[] = [];
    for (const [i, url] of cluster.urls.entries()) {
      const service = await c.startService(url, { tsx, name: `service${i + 1}` });
      services.push(service.child);
      bases.push(service.base);
    }
    /** The scenario through each target at once, the connections split between them; the slowest process's latency (a client of any of them sees that). */
    const phase = async (label: string, s: Scenario, targets: string[]) => {
      const drive = (seconds: number) =>
        Promise.all(
          targets.map((base) =>
            closedLoop({ base, connections: Math.max(1, Math.floor(o.connections / targets.length)), seconds, request: () => s.request(samples, Math.random) }),
          ),
        );
      c.log(`${label}: ${o.warmup}s warm-up + ${o.duration}s`);
      await drive(o.warmup);
      const before = await conflicts(cluster);
      const results = await drive(o.duration);
      const after = await conflicts(cluster);
      const [certFailures, bfAborts] = [after.certFailures - before.certFailures, after.bfAborts - before.bfAborts];
      const sum = (f: (r: (typeof results)[number]) => number) => results.reduce((total, r) => total + f(r), 0);
      const max = (f: (r: (typeof results)[number]) => number) => Math.max(...results.map(f));
      return [
        label,
        targets.length,
        c.round(sum((r) => r.rps)),
        max((r) => r.latencyMs.p50),
        max((r) => r.latencyMs.p99),
        sum((r) => r.non2xx),
        sum((r) => r.errors + r.timeouts),
        c.round((certFailures + bfAborts) / o.duration, 1),
        certFailures,
        bfAborts,
      ];
    };
    const phases = [
      await phase('POST /events, every writer through one process', scenario('create-event'), bases.slice(0, 1)),
      await phase('POST /events, writers spread over three processes', scenario('create-event'), bases),
      await phase('GET /events/{id}, through one process', scenario('event-by-id'), bases.slice(0, 1)),
      await phase('GET /events/{id}, through three processes', scenario('event-by-id'), bases),
    ];
    const syncWait = await syncWaitCost(cluster, samples);
    const m = c.machine();
    const text = [
      `Cluster: three Galera nodes and three service processes on this machine (${m.cpus} x ${m.cpuModel}, Node ${m.node}); ${o.events.toLocaleString('en')} events seeded; ${o.connections} connections in all per phase, ${o.warmup}s warm-up + ${o.duration}s; code ${c.codeFingerprint()}`,
      '',
      c.table(['phase', 'processes', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'conflicts/s', 'cert failures', 'bf aborts'], phases),
      '',
      `wsrep_sync_wait = 1 on one primary-key read (one connection, ${syncWait.reads} reads each way, alternating): ${syncWait.withMs} ms with, ${syncWait.withoutMs} ms without (+${c.round(syncWait.withMs - syncWait.withoutMs, 3)} ms per read statement)`,
    ].join('\n');
    c.writeResults('cluster-', started, { ...o, phases, syncWait }, text);
  } finally {
    for (const child of services) await c.stopChild(child);
    await cluster.stop();
  }
}

async function conflicts(cluster: GaleraCluster): Promise<{ certFailures: number; bfAborts: number }> {
  const figures = await Promise.all(
    cluster.nodes.map(async (node) => ({
      certFailures: Number(await nodeStatus(node, 'wsrep_local_cert_failures')),
      bfAborts: Number(await nodeStatus(node, 'wsrep_local_bf_aborts')),
    })),
  );
  return figures.reduce((sum, f) => ({ certFailures: sum.certFailures + f.certFailures, bfAborts: sum.bfAborts + f.bfAborts }), { certFailures: 0, bfAborts: 0 });
}

/** Mean time of one primary-key read with and without waiting for certified commits, alternating rounds. */
async function syncWaitCost(cluster: GaleraCluster, samples: Samples): Promise<{ reads: number; withMs: number; withoutMs: number }> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: cluster.nodes[0].sqlPort, user: 'root', database: CLUSTER_DATABASE });
  const reads = 2000;
  const totals = { with: 0, without: 0 };
  try {
    for (let round = 0; round < 4; round++) {
      await connection.query(`SET SESSION wsrep_sync_wait = ${round % 2 === 0 ? 1 : 0}`);
      const began = performance.now();
      for (let i = 0; i < reads / 2; i++) await connection.query('SELECT id FROM posts WHERE id = ?', [samples.events[i % samples.events.length].id]);
      totals[round % 2 === 0 ? 'with' : 'without'] += performance.now() - began;
    }
  } finally {
    await connection.end();
  }
  return { reads, withMs: c.round(totals.with / reads, 3), withoutMs: c.round(totals.without / reads, 3) };
}
