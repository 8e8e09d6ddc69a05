/**
 * `npm run bench -- --cluster`: the service on a three-node Galera cluster on this machine
 * (scripts/cluster/galera.ts, ports 3411-3413), one service process per node. It seeds a calendar
 * through the first node, then measures, each phase with the same total connections:
 *
 *   - `POST /events` with every writer on one process (node), then spread over the three;
 *   - `GET /events/{id}` through one process, then through the three;
 *   - the conflicts each phase caused: certification failures and transactions rolled back by a
 *     replicated write (`wsrep_local_cert_failures`, `wsrep_local_bf_aborts`), each one write run
 *     again by the service (docs/contract.md §18), per second;
 *   - what `wsrep_sync_wait = 1` costs one primary-key read (docs/contract.md §18), on one connection.
 *
 *   npm run bench -- --cluster [--events 2000] [--duration 10] [--connections 24] [--warmup 2] [--tsx]
 *
 * The cluster is removed afterwards. Results go to bench/results/cluster-<timestamp>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { startCluster, nodeStatus, type GaleraCluster } from '../cluster/galera.js';
import { openDatabase } from '../../src/db/knex.js';
import { codeFingerprint, freePort, LIMITS, NAMESPACE_PATH, RESULTS_DIR, bounded, parseArgs, round, startNode, stopChild, table, waitForHttp, type Child } from './common.js';
import { seedCalendar } from './seed.js';
import { SCENARIOS, loadSamples, type Samples, type Scenario } from './scenarios.js';
import { buildService, drive, serviceEnv, startEnv, startFlags } from './service.js';

/** The seeder drops the tables of databases named for the benchmark only. */
const CLUSTER_DATABASE = 'tec_bench';

const SPEC = { cluster: 'boolean', events: 'number', duration: 'number', connections: 'number', warmup: 'number', tsx: 'boolean' } as const;

interface Phase {
  label: string;
  processes: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  conflictsPerSecond: number;
  certFailures: number;
  bfAborts: number;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

export async function clusterBench(argv: string[]): Promise<void> {
  const args = parseArgs(argv, SPEC);
  const events = bounded('events', Number(args.events ?? 2000), LIMITS.events);
  const duration = bounded('duration', Number(args.duration ?? 10), LIMITS.duration);
  const connections = bounded('connections', Number(args.connections ?? 24), LIMITS.connections);
  const warmup = bounded('warmup', Number(args.warmup ?? 2), LIMITS.warmup);
  const tsx = Boolean(args.tsx) || !buildService();

  const started = new Date();
  const cluster = await startCluster({ log, database: CLUSTER_DATABASE });
  const services: Child[] = [];
  try {
    await seedCalendar({ events, databaseUrl: cluster.urls[0], seed: 42 });
    const { db } = openDatabase(cluster.urls[0]);
    const samples = await loadSamples(db).finally(() => db.destroy());
    const bases: string[] = [];
    for (const [i, url] of cluster.urls.entries()) {
      const port = await freePort();
      const entry = tsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/src/main.js'];
      const child = startNode(`service${i + 1}`, [...startFlags(), ...entry], { ...serviceEnv(url, port), ...startEnv() }, true);
      services.push(child);
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}${NAMESPACE_PATH}/`, child);
      bases.push(base);
    }
    log(`three processes ready: ${bases.join(', ')}`);

    const scenario = (name: string) => SCENARIOS.find((s) => s.name === name)!;
    const phases: Phase[] = [];
    const run = async (label: string, s: Scenario, targets: string[]) => {
      log(`${label}: ${warmup}s warm-up + ${duration}s`);
      await Promise.all(targets.map((base) => drive(base, s, samples, warmup, Math.max(1, Math.floor(connections / targets.length)), 10)));
      phases.push(await phase(cluster, label, s, samples, targets, duration, connections));
    };
    await run('POST /events, every writer through one process', scenario('create-event'), bases.slice(0, 1));
    await run('POST /events, writers spread over three processes', scenario('create-event'), bases);
    await run('GET /events/{id}, through one process', scenario('event-by-id'), bases.slice(0, 1));
    await run('GET /events/{id}, through three processes', scenario('event-by-id'), bases);
    const syncWait = await syncWaitCost(cluster, samples);

    const text = [
      `Cluster: three Galera nodes and three service processes on this machine (${os.cpus().length} x ${os.cpus()[0]?.model}, Node ${process.version}); ` +
        `${events.toLocaleString('en')} events seeded; ${connections} connections in all per phase, ${warmup}s warm-up + ${duration}s; code ${codeFingerprint()}`,
      '',
      table(
        ['phase', 'processes', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'conflicts/s', 'cert failures', 'bf aborts'],
        phases.map((p) => [p.label, p.processes, p.rps, p.p50, p.p99, p.non2xx, p.errors, p.conflictsPerSecond, p.certFailures, p.bfAborts]),
      ),
      '',
      `wsrep_sync_wait = 1 on one primary-key read (one connection, ${syncWait.reads} reads each way, alternating): ` +
        `${syncWait.withMs} ms with, ${syncWait.withoutMs} ms without (+${round(syncWait.withMs - syncWait.withoutMs, 3)} ms per read statement)`,
    ].join('\n');
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `cluster-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, `${JSON.stringify({ started: started.toISOString(), events, duration, connections, phases, syncWait }, null, 2)}\n`);
    process.stdout.write(`\n${text}\n\nresults: ${path.relative(process.cwd(), file)}\n`);
  } finally {
    for (const child of services) await stopChild(child);
    await cluster.stop();
  }
}

/** One measured phase: the scenario through each target at once, the connections split between them. */
async function phase(cluster: GaleraCluster, label: string, s: Scenario, samples: Samples, targets: string[], seconds: number, connections: number): Promise<Phase> {
  const before = await conflicts(cluster);
  const results = await Promise.all(targets.map((base) => drive(base, s, samples, seconds, Math.max(1, Math.floor(connections / targets.length)), 10)));
  const after = await conflicts(cluster);
  const certFailures = after.certFailures - before.certFailures;
  const bfAborts = after.bfAborts - before.bfAborts;
  return {
    label,
    processes: targets.length,
    rps: round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    // The slowest process's figures: a client of any of them sees those.
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    conflictsPerSecond: round((certFailures + bfAborts) / seconds, 1),
    certFailures,
    bfAborts,
  };
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
      const waiting = round % 2 === 0;
      await connection.query(`SET SESSION wsrep_sync_wait = ${waiting ? 1 : 0}`);
      const began = process.hrtime.bigint();
      for (let i = 0; i < reads / 2; i++) await connection.query('SELECT id FROM posts WHERE id = ?', [samples.events[i % samples.events.length].id]);
      totals[waiting ? 'with' : 'without'] += Number(process.hrtime.bigint() - began) / 1e6;
    }
  } finally {
    await connection.end();
  }
  return { reads, withMs: round(totals.with / reads, 3), withoutMs: round(totals.without / reads, 3) };
}
