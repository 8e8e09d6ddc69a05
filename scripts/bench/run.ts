/**
 * `npm run bench`: seeds a calendar, starts the service and the stack's floor as separate processes,
 * drives them with autocannon (programmatic API, in this process) and reports, per scenario,
 * requests/s, p50/p99 latency, non-2xx responses and the ratio to the floor. Results are printed and
 * written to bench/results/<timestamp>.json (git-ignored). Only 127.0.0.1 is ever contacted.
 *
 *   npm run bench -- [--events 100000] [--database mysql://root@127.0.0.1:3306/bench] [--duration 10]
 *                    [--connections 32] [--warmup 3] [--scale] [--skip-seed] [--scenarios a,b]
 *                    [--no-floor] [--profile DIR] [--tsx] [--seed 42] [--force] [--quiet-wait 30]
 *   npm run bench -- --cluster [...]   (three Galera nodes and three processes: see scripts/bench/cluster.ts)
 *   npm run bench -- --soak MINUTES [...]  (a steady mix for a long time, memory sampled each minute: see scripts/bench/soak.ts)
 *   npm run bench -- --webhooks [...]  (3 webhooks: delivery lag and the writes' throughput with and without: see scripts/bench/webhooks.ts)
 *   npm run bench -- --cache [...]     (1,000 subscribers polling public URLs through Varnish: what the origin saw; see scripts/bench/cache.ts)
 *   npm run bench -- --terms [...]     (term lists on 1,000,000 tags: latency and the loop's longest hold; see scripts/bench/terms.ts)
 *
 * --scale       runs the list scenarios at 10k, 100k and 1M events (--scale-sizes to change) and
 *               prints how latency grows; one connection and a 60 s timeout unless --connections /
 *               --timeout are given, so that latency is service time, not queueing.
 * --skip-seed   reuses the database when it already holds about the requested number of events.
 * --profile DIR starts the service with `node --cpu-prof --cpu-prof-dir DIR` (a .cpuprofile is
 *               written when it stops; summarise it with scripts/bench/profile-summary.ts).
 * --tsx         runs the service from src/ with tsx instead of building dist/ first.
 * --timeout S   seconds before autocannon gives up on a response (default 10; counted as errors).
 * --node-args "..." extra flags for the service's node process, after those of `npm start` (package.json),
 *               which it always uses (e.g. "--max-old-space-size=96" to try another heap limit).
 * --keep-auth-limit  keeps the service's AUTH_FAILURE_LIMIT default (20) instead of raising it.
 * --quiet-wait S before each measurement, waits up to S seconds (default 30, 0 = never) until other
 *               processes on the machine use under 0.3 core; the noise measured is reported anyway.
 * --paired-rounds N  rounds of the alternating windows (alone, beside, beside, alone) of the reads
 *               beside the writer (default 1); their sums give the target's ratio.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import {
  BENCH_DB_DIR, LIMITS, codeFingerprint, NAMESPACE_PATH, RESULTS_DIR, ROOT, bounded, checkDatabaseUrl, cpuMsOf, defaultSqliteUrl, describeUrl, findDatabaseServerPid,
  freePort, machineBusyMs, memoryOf, parseArgs, round, startNode, stopChild, table, waitForHttp, type Child,
} from './common.js';
import { cacheBench } from './cache.js';
import { termsBench } from './terms.js';
import { clusterBench } from './cluster.js';
import { soakBench } from './soak.js';
import { webhooksBench } from './webhooks.js';
import { seedCalendar, type SeedReport } from './seed.js';
import { FLOOR, SCENARIOS, loadSamples, type Samples, type Scenario } from './scenarios.js';
import { buildService, drive, serviceEnv, startEnv, startFlags } from './service.js';

const SPEC = {
  events: 'number', database: 'string', duration: 'number', connections: 'number', warmup: 'number', scale: 'boolean', 'scale-sizes': 'string',
  'skip-seed': 'boolean', scenarios: 'string', 'no-floor': 'boolean', profile: 'string', tsx: 'boolean', seed: 'number', force: 'boolean', help: 'boolean', 'quiet-wait': 'number', 'keep-auth-limit': 'boolean', 'node-args': 'string', timeout: 'number',
  'paired-rounds': 'number',
} as const;

interface Options {
  events: number;
  database: string | undefined;
  duration: number;
  connections: number;
  warmup: number;
  scale: boolean;
  scaleSizes: number[];
  skipSeed: boolean;
  scenarios: Scenario[];
  floor: boolean;
  profileDir: string | undefined;
  tsx: boolean;
  seed: number;
  force: boolean;
  quietWait: number;
  keepAuthLimit: boolean;
  /** Extra flags for the service's node (e.g. "--max-old-space-size=96"), to try settings. */
  nodeArgs: string[];
  /** Seconds autocannon waits for a response before counting an error (and reconnecting). */
  timeout: number;
  /** Rounds of the four alternating windows of reads alone and beside the writer (`pairedWithWriter`). */
  pairedRounds: number;
}

export interface ScenarioResult {
  name: string;
  label: string;
  requests: number;
  seconds: number;
  rps: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  kbPerResponse: number;
  serverCpuMsPerRequest: number | undefined;
  dbCpuMsPerRequest: number | undefined;
  /** Cores used during the measurement by the server, the database server, this load generator, and everything else (noise). */
  cores: { server?: number; db?: number; loadGenerator: number; other?: number };
  ratioToFloor?: number;
  checkFailure?: string;
  /** The fixed-rate second client of the scenario, if any: what it sent and its latency. */
  background?: { sent: number; perSecond: number; answeredPerSecond: number; non2xx: number; errors: number; latencyMs: { p50: number; p99: number; max: number } };
  /** Reads alone and beside the second client in alternating windows (`pairedWithWriter`). */
  paired?: PairedWindows;
}

interface PairedWindows {
  windowSeconds: number;
  /** req/s of the alone windows of every round (its first and last), in order. */
  aloneRps: number[];
  /** req/s of the beside windows of every round (its two middle ones), in order. */
  besideRps: number[];
  /** Beside over alone: the sum of the beside windows over the sum of the alone windows. */
  ratio: number;
}

interface SuiteResult {
  events: number;
  database: string;
  engine: string;
  engineVersion: string;
  seed: SeedReport | 'reused';
  floor: { before?: ScenarioResult; after?: ScenarioResult; rps?: number };
  scenarios: ScenarioResult[];
  memory: { service?: { hwmMb: number; rssMb: number }; floor?: { hwmMb: number; rssMb: number } };
  profile?: string[];
}

const HELP = fs.readFileSync(new URL(import.meta.url), 'utf8').match(/\/\*\*([\s\S]*?)\*\//)?.[1].replace(/^ \* ?/gm, '') ?? '';

function options(): Options {
  const args = parseArgs(process.argv.slice(2), SPEC);
  if (args.help) {
    process.stdout.write(`${HELP}\nScenarios: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
    process.exit(0);
  }
  const names = args.scenarios ? String(args.scenarios).split(',').map((s) => s.trim()) : undefined;
  const unknown = names?.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown?.length) throw new Error(`unknown scenarios: ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);
  const scale = Boolean(args.scale);
  let scenarios = names ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  if (scale && !names) scenarios = SCENARIOS.filter((s) => s.list);
  const database = args.database === undefined ? undefined : String(args.database);
  if (database) checkDatabaseUrl(database);
  const scaleSizes = String(args['scale-sizes'] ?? '10000,100000,1000000')
    .split(',')
    .map((s) => bounded('scale-sizes', Number(s.trim().replace(/k$/i, '000').replace(/m$/i, '000000')), LIMITS.events));
  return {
    events: bounded('events', Number(args.events ?? 100_000), LIMITS.events),
    database,
    duration: bounded('duration', Number(args.duration ?? 10), LIMITS.duration),
    // --scale measures service time: one connection unless told otherwise (32 would only measure queueing).
    connections: bounded('connections', Number(args.connections ?? (scale ? 1 : 32)), LIMITS.connections),
    warmup: bounded('warmup', Number(args.warmup ?? 3), LIMITS.warmup),
    scale,
    scaleSizes,
    skipSeed: Boolean(args['skip-seed']),
    scenarios,
    floor: !args['no-floor'] && !scale,
    profileDir: args.profile === undefined ? undefined : path.resolve(ROOT, String(args.profile)),
    tsx: Boolean(args.tsx),
    seed: Number(args.seed ?? 42),
    force: Boolean(args.force),
    keepAuthLimit: Boolean(args['keep-auth-limit']),
    timeout: bounded('timeout', Number(args.timeout ?? (scale ? 60 : 10)), { min: 1, max: 120 }),
    nodeArgs: args['node-args'] ? String(args['node-args']).split(/\s+/).filter((a) => a.startsWith('--')) : [],
    quietWait: Math.min(600, Math.max(0, Number(args['quiet-wait'] ?? 30))),
    pairedRounds: bounded('paired-rounds', Math.floor(Number(args['paired-rounds'] ?? 1)), { min: 1, max: 10 }),
  };
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Database

async function eventCount(url: string): Promise<number | undefined> {
  if (url.startsWith('sqlite:') && !fs.existsSync(path.resolve(ROOT, url.slice('sqlite:'.length)))) return undefined;
  const { db } = openDatabase(url);
  try {
    const [{ n }] = await db('posts').where('type', 'event').count({ n: '*' });
    return Number(n);
  } catch {
    return undefined;
  } finally {
    await db.destroy();
  }
}

/**
 * True when the database has the tables and columns the current migrations create (compared with a
 * freshly migrated in-memory SQLite database): a migration edited in place, or a new one, means the
 * benchmark database must be seeded again.
 */
async function schemaCurrent(url: string): Promise<boolean> {
  const reference = openDatabase('sqlite::memory:').db;
  const { db } = openDatabase(url);
  try {
    await migrateLatest(reference);
    // A new migration may add what no listed column shows (the search index, say).
    const applied = new Set((await db('knex_migrations').pluck('name')).map(String));
    const missing = (await reference('knex_migrations').pluck('name')).map(String).filter((name) => !applied.has(name));
    if (missing.length) {
      log(`migrations added since the database was seeded: ${missing.join(', ')}`);
      return false;
    }
    const tables = ['users', 'secrets', 'posts', 'events', 'venues', 'organizers', 'images', 'event_venues', 'event_organizers', 'terms', 'event_terms'];
    for (const table of tables) {
      const want = Object.keys(await reference(table).columnInfo()).sort().join(',');
      const have = Object.keys(await db(table).columnInfo()).sort().join(',');
      if (want !== have) {
        log(`the schema of ${table} changed since the database was seeded (${have || 'missing'} -> ${want})`);
        return false;
      }
    }
    return true;
  } catch {
    return false;
  } finally {
    await reference.destroy();
    await db.destroy();
  }
}

/** Seeds the database, or reuses it with --skip-seed when it holds about `events` events. */
async function prepare(url: string, events: number, opts: Options): Promise<SeedReport | 'reused'> {
  if (opts.skipSeed && !(await schemaCurrent(url))) {
    log(`--skip-seed: ${describeUrl(url)} does not have the current schema; seeding it again`);
  } else if (opts.skipSeed) {
    const count = await eventCount(url);
    // Write scenarios add a few thousand events per run; more than 20 % off means another size.
    if (count !== undefined && count >= events && count <= events * 1.2 + 20_000) {
      log(`reusing ${describeUrl(url)} (${count.toLocaleString('en')} events)`);
      return 'reused';
    }
    log(`--skip-seed: ${describeUrl(url)} holds ${count ?? 'no'} events, not ${events}; seeding it`);
  }
  return seedCalendar({ events, databaseUrl: url, seed: opts.seed, force: opts.force });
}

async function engineVersion(url: string): Promise<string> {
  const { db, target } = openDatabase(url);
  try {
    if (target.engine === 'sqlite') return `SQLite ${(await db.raw('select sqlite_version() as v'))[0].v}`;
    return `MySQL ${(await db.raw('select version() as v'))[0][0].v}`;
  } finally {
    await db.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

function build(opts: Options): void {
  if (opts.tsx) return;
  if (!buildService()) opts.tsx = true;
}

async function startService(url: string, opts: Options, extraEnv: Record<string, string> = {}): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const profile = opts.profileDir ? ['--cpu-prof', '--cpu-prof-dir', opts.profileDir] : [];
  if (opts.profileDir) fs.mkdirSync(opts.profileDir, { recursive: true });
  const entry = opts.tsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/src/main.js'];
  const child = startNode('service', [...startFlags(), ...opts.nodeArgs, ...profile, ...entry], { ...serviceEnv(url, port, opts.keepAuthLimit), ...startEnv(), ...extraEnv }, true);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}${NAMESPACE_PATH}/`, child);
  const settings = Object.entries(extraEnv).map(([name, value]) => `, ${name}=${value}`).join('');
  log(`service ready on ${base} (pid ${child.pid}${settings}${opts.tsx ? ', from src/ with tsx' : ', dist/'}${opts.profileDir ? `, profiling into ${opts.profileDir}` : ''})`);
  return { child, base };
}

async function startFloor(url: string): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const child = startNode('floor', ['--import', 'tsx', 'scripts/bench/floor.ts'], serviceEnv(url, port), false);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/items/1`, child);
  log(`floor ready on ${base} (pid ${child.pid})`);
  return { child, base };
}

// ---------------------------------------------------------------------------------------------
// Load

/** One request of each scenario before the load: a non-2xx here is shown with its body. */
async function check(base: string, scenario: Scenario, samples: Samples): Promise<string | undefined> {
  for (let i = 0; i < 3; i++) {
    const request = scenario.request(samples, Math.random);
    const res = await fetch(base + request.path, { method: request.method, headers: request.headers, body: request.body, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) return `${request.method} ${request.path} -> ${res.status} ${text.slice(0, 500)}`;
  }
  return undefined;
}


/**
 * Waits until the server has finished the requests autocannon abandoned when it stopped (they are
 * still queued in the server): its CPU use must fall under 10 % for 300 ms (at most 60 s).
 */
async function settle(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const before = cpuMsOf(pid);
    await new Promise((r) => setTimeout(r, 300));
    const after = cpuMsOf(pid);
    if (before === undefined || after === undefined || after - before <= 30) return;
  }
}

/**
 * A second client sending one request every 1/perSecond s (each on its own, not waiting for the
 * previous answer, as independent writers would) until stopped; its latencies and failures.
 */
function startBackground(base: string, background: NonNullable<Scenario['background']>, samples: Samples) {
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let non2xx = 0;
  let errors = 0;
  const send = () => {
    const next = background.request(samples, Math.random);
    const started = performance.now();
    const sent = fetch(`${base}${next.path}`, { method: next.method, headers: next.headers, body: next.body })
      .then(async (res) => {
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        if (res.status < 200 || res.status > 299) non2xx++;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => pending.delete(sent));
    pending.add(sent);
  };
  // On the clock: the n-th request is due at n/perSecond s. A timer that fires late (this process also
  // drives the 32 reading connections) sends every request due by then, so the client asks its rate
  // even when its own loop is busy; `setInterval` skipped the ticks it missed, and the writer seemed
  // to get fewer writes than the service would have answered.
  const started = performance.now();
  const period = 1000 / background.perSecond;
  let due = 1; // the number of the next request; the first is due after one period, as before
  const tick = () => {
    for (; due * period <= performance.now() - started; due++) send();
    timer = setTimeout(tick, due * period - (performance.now() - started));
  };
  let timer = setTimeout(tick, period);
  return {
    async stop() {
      clearTimeout(timer);
      // What the writer got: answers (2xx) that came within the measured time, per second of it.
      const answeredPerSecond = round((latencies.length - non2xx) / ((performance.now() - started) / 1000), 1);
      await Promise.all(pending);
      latencies.sort((a, b) => a - b);
      const at = (q: number) => (latencies.length ? round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))], 1) : 0);
      return { sent: latencies.length + errors, perSecond: background.perSecond, answeredPerSecond, non2xx, errors, latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) } };
    },
  };
}

/**
 * Waits (at most `maxSeconds`) until the machine is quiet: other processes (not the server, the
 * database server or this process) use under 0.3 core over one second. Returns what it last saw.
 */
async function waitForQuiet(maxSeconds: number, pids: Array<number | undefined>): Promise<number | undefined> {
  const deadline = Date.now() + maxSeconds * 1000;
  let other: number | undefined;
  let announced = false;
  for (;;) {
    const busy0 = machineBusyMs();
    const ours0 = pids.map(cpuMsOf);
    const self0 = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 1000));
    const busy1 = machineBusyMs();
    const ours1 = pids.map(cpuMsOf);
    const self = process.cpuUsage(self0);
    if (busy0 === undefined || busy1 === undefined) return undefined;
    const oursMs = ours1.reduce<number>((sum, v, i) => sum + (v !== undefined && ours0[i] !== undefined ? v - ours0[i]! : 0), 0) + (self.user + self.system) / 1000;
    other = round(Math.max(0, busy1 - busy0 - oursMs) / 1000, 2);
    if (other < 0.3 || Date.now() >= deadline) {
      if (announced) log(`    machine ${other < 0.3 ? 'quiet again' : `still busy (${other} cores used by other processes); measuring anyway`}`);
      return other;
    }
    if (!announced) log(`    waiting for other processes to calm down (${other} cores busy; up to ${maxSeconds}s)`);
    announced = true;
  }
}

async function measure(base: string, scenario: Scenario, samples: Samples, opts: Options, servicePid: number | undefined, dbPid: number | undefined): Promise<ScenarioResult> {
  const checkFailure = await check(base, scenario, samples);
  if (checkFailure) log(`!!! ${scenario.name}: the check request failed: ${checkFailure}`);
  if (opts.warmup > 0) await drive(base, scenario, samples, opts.warmup, opts.connections, opts.timeout);
  await settle(servicePid);
  if (opts.quietWait > 0) await waitForQuiet(opts.quietWait, [servicePid, dbPid]);
  const cpuBefore = cpuMsOf(servicePid);
  const dbBefore = cpuMsOf(dbPid);
  const busyBefore = machineBusyMs();
  const selfBefore = process.cpuUsage();
  const second = scenario.background ? startBackground(base, scenario.background, samples) : undefined;
  const result = await drive(base, scenario, samples, opts.duration, opts.connections, opts.timeout);
  const background = second ? await second.stop() : undefined;
  const selfMs = (() => {
    const used = process.cpuUsage(selfBefore);
    return (used.user + used.system) / 1000;
  })();
  const busyAfter = machineBusyMs();
  const cpuAfter = cpuMsOf(servicePid);
  const dbAfter = cpuMsOf(dbPid);
  await settle(servicePid);
  const requests = result.requests.total;
  const seconds = result.duration;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, Number(stat.count)]));
  const perRequest = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined || requests === 0 ? undefined : round((after - before) / requests, 3);
  const out: ScenarioResult = {
    name: scenario.name,
    label: scenario.label,
    requests,
    seconds: round(seconds, 2),
    rps: round(requests / seconds, 1),
    latencyMs: { mean: round(result.latency.average, 2), p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    kbPerResponse: requests ? round(result.throughput.total / requests / 1024, 2) : 0,
    serverCpuMsPerRequest: perRequest(cpuBefore, cpuAfter),
    dbCpuMsPerRequest: perRequest(dbBefore, dbAfter),
    cores: cores(seconds, { server: [cpuBefore, cpuAfter], db: [dbBefore, dbAfter], busy: [busyBefore, busyAfter] }, selfMs),
    ...(checkFailure ? { checkFailure } : {}),
    ...(background ? { background } : {}),
  };
  if (scenario.pairedAlone && scenario.background) out.paired = await pairedWithWriter(base, scenario, samples, opts, servicePid);
  if (background) {
    log(`  ${''.padEnd(20)} the second client: ${background.sent} requests at ${background.perSecond}/s, ${background.answeredPerSecond}/s answered in time, p50 ${background.latencyMs.p50} ms, p99 ${background.latencyMs.p99} ms, non-2xx ${background.non2xx}, errors ${background.errors}`);
  }
  const noise = out.cores.other !== undefined && out.cores.other > 0.25 ? `   (noise: other processes used ${out.cores.other} cores)` : '';
  const flag = out.non2xx || out.errors ? `   !!! NON-2XX ${out.non2xx} ERRORS ${out.errors} ${JSON.stringify(statusCodes)}` : '';
  log(`  ${scenario.name.padEnd(20)} ${String(out.rps).padStart(8)} req/s  p50 ${out.latencyMs.p50} ms  p99 ${out.latencyMs.p99} ms  server ${out.cores.server ?? '-'} cores${flag}${noise}`);
  return out;
}

/**
 * The scenario's reads alone and beside its second client, in four windows of half the duration
 * each: alone, beside, beside, alone. This machine's speed drifts within a run (the floor has moved
 * by 15 % between its measurements before and after the scenarios), and a scenario measured alone
 * minutes before the one beside the writer carries that drift into their ratio; the alternating
 * order weighs a steady drift on both sums alike (docs/performance.md "Running the benchmark").
 * `--paired-rounds N` repeats the four windows N times, so that one unsteady window weighs less.
 */
async function pairedWithWriter(base: string, scenario: Scenario, samples: Samples, opts: Options, servicePid: number | undefined): Promise<PairedWindows> {
  const windowSeconds = Math.max(2, Math.round(opts.duration / 2));
  const aloneRps: number[] = [];
  const besideRps: number[] = [];
  const order = Array.from({ length: opts.pairedRounds }, () => [false, true, true, false]).flat();
  for (const beside of order) {
    await settle(servicePid);
    const second = beside ? startBackground(base, scenario.background!, samples) : undefined;
    const result = await drive(base, scenario, samples, windowSeconds, opts.connections, opts.timeout);
    await second?.stop();
    (beside ? besideRps : aloneRps).push(round(result.requests.total / result.duration, 1));
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const ratio = round(sum(besideRps) / sum(aloneRps), 3);
  log(`  ${''.padEnd(20)} paired windows of ${windowSeconds} s (${opts.pairedRounds} round${opts.pairedRounds > 1 ? 's' : ''} of alone, beside, beside, alone): alone ${aloneRps.join(', ')}; beside ${besideRps.join(', ')} req/s: beside/alone ${ratio.toFixed(2)}`);
  return { windowSeconds, aloneRps, besideRps, ratio };
}

/**
 * A scenario with settings of its own (`serviceEnv`), measured on a second service process started
 * with them on the same database; the first one stays up, idle, and serves the scenarios after it.
 */
async function measureApart(url: string, scenario: Scenario, samples: Samples, opts: Options, dbPid: number | undefined): Promise<ScenarioResult> {
  const apart = await startService(url, opts, scenario.serviceEnv);
  try {
    return await measure(apart.base, scenario, samples, opts, apart.child.pid, dbPid);
  } finally {
    await stopChild(apart.child);
  }
}

type Span = [number | undefined, number | undefined];

function cores(seconds: number, spans: { server: Span; db: Span; busy: Span }, selfMs: number): ScenarioResult['cores'] {
  const used = ([before, after]: Span) => (before === undefined || after === undefined ? undefined : (after - before) / 1000 / seconds);
  const server = used(spans.server);
  const db = used(spans.db);
  const busy = used(spans.busy);
  const loadGenerator = selfMs / 1000 / seconds;
  const other = busy === undefined ? undefined : Math.max(0, busy - (server ?? 0) - (db ?? 0) - loadGenerator);
  const r = (v: number | undefined) => (v === undefined ? undefined : round(v, 2));
  return { server: r(server), db: r(db), loadGenerator: round(loadGenerator, 2), other: r(other) };
}

async function suite(url: string, events: number, scenarios: Scenario[], opts: Options, withFloor: boolean): Promise<SuiteResult> {
  const engine = checkDatabaseUrl(url);
  const seed = await prepare(url, events, opts);
  const version = await engineVersion(url);
  const { db } = openDatabase(url);
  let samples: Samples;
  try {
    samples = await loadSamples(db);
  } finally {
    await db.destroy();
  }
  const dbPid = engine === 'mysql' ? findDatabaseServerPid() : undefined;
  const service = await startService(url, opts);
  const floor = withFloor ? await startFloor(url) : undefined;
  const result: SuiteResult = { events, database: describeUrl(url), engine, engineVersion: version, seed, floor: {}, scenarios: [], memory: {} };
  try {
    log(`driving ${scenarios.length} scenarios: ${opts.connections} connections, ${opts.warmup}s warm-up + ${opts.duration}s each, ${events.toLocaleString('en')} events on ${version}`);
    if (floor) result.floor.before = await measure(floor.base, FLOOR, samples, opts, floor.child.pid, dbPid);
    for (const scenario of scenarios) {
      if (scenario.onlyOn && scenario.onlyOn !== engine) log(`  ${scenario.name.padEnd(20)} skipped: measured on ${scenario.onlyOn} only`);
      else if (scenario.serviceEnv) result.scenarios.push(await measureApart(url, scenario, samples, opts, dbPid));
      else result.scenarios.push(await measure(service.base, scenario, samples, opts, service.child.pid, dbPid));
    }
    if (floor) {
      result.floor.after = await measure(floor.base, FLOOR, samples, opts, floor.child.pid, dbPid);
      const floorRps = round((result.floor.before!.rps + result.floor.after.rps) / 2, 1);
      result.floor.rps = floorRps;
      for (const s of result.scenarios) s.ratioToFloor = round(s.rps / floorRps, 3);
    }
    result.memory.service = memoryOf(service.child.pid);
    if (floor) result.memory.floor = memoryOf(floor.child.pid);
  } finally {
    await stopChild(service.child);
    if (floor) await stopChild(floor.child);
  }
  if (opts.profileDir) {
    result.profile = fs.readdirSync(opts.profileDir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${service.child.pid}.`)).map((f) => path.join(opts.profileDir!, f));
    log(`profile: ${result.profile.join(', ') || '(none written)'}`);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Reports


function suiteTable(result: SuiteResult): string {
  const rows = [
    ...(result.floor.before ? [result.floor.before] : []),
    ...result.scenarios,
    ...(result.floor.after ? [result.floor.after] : []),
  ].map((s) => [
    s.background ? `${s.label} (writer p99 ${s.background.latencyMs.p99} ms)` : s.label,
    s.rps,
    s.ratioToFloor?.toFixed(2) ?? (s.name === 'floor' ? '1.00' : undefined),
    s.latencyMs.p50,
    s.latencyMs.p99,
    s.latencyMs.max,
    s.non2xx || s.errors ? `${s.non2xx}${s.errors ? ` +${s.errors} err` : ''} !!!` : 0,
    s.serverCpuMsPerRequest,
    s.dbCpuMsPerRequest,
    s.kbPerResponse,
    s.cores.server,
    s.cores.other,
  ]);
  return table(['scenario', 'req/s', 'x floor', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'svc CPU ms/req', 'db CPU ms/req', 'KB/resp', 'svc cores', 'noise cores'], rows);
}

interface TargetCheck {
  target: string;
  measured: string;
  ok: boolean | undefined;
}

function targets(result: SuiteResult): TargetCheck[] {
  const by = (name: string) => result.scenarios.find((s) => s.name === name);
  const checks: TargetCheck[] = [];
  const floorRatio = (name: string, label: string, target: number) => {
    const scenario = by(name);
    if (scenario?.ratioToFloor !== undefined) checks.push({ target: `${label} >= ${target} x floor`, measured: `${scenario.ratioToFloor.toFixed(2)} x`, ok: scenario.ratioToFloor >= target });
  };
  // The targets of the Performance III issue (docs/performance.md "Current figures"), at 10,000 events.
  floorRatio('event-by-id', 'GET /events/{random id}', result.engine === 'sqlite' ? 0.4 : 0.3);
  floorRatio('event-by-id-same', 'GET /events/{id}, the same event', 0.7);
  const byId = by('event-by-id');
  const underWrites = by('event-by-id-writes');
  // Judged by the alternating windows of one stretch of time (pairedWithWriter) when they ran, else
  // against the scenario alone, measured minutes apart; the ratio apart is printed beside in both cases.
  const apart = byId && underWrites ? underWrites.rps / byId.rps : undefined;
  const besideWrites = underWrites?.paired?.ratio ?? apart;
  if (besideWrites !== undefined) {
    const measured = underWrites?.paired
      ? `${besideWrites.toFixed(2)} x (paired windows${apart === undefined ? '' : `; ${apart.toFixed(2)} x against the scenario alone, measured apart`})`
      : `${besideWrites.toFixed(2)} x`;
    checks.push({ target: 'GET /events/{id} beside 20 PATCH/s >= 0.85 x alone', measured, ok: besideWrites >= 0.85 });
  }
  const writer = underWrites?.background;
  if (writer) checks.push({ target: 'the writer beside them gets >= 15 PATCH/s', measured: `${writer.answeredPerSecond}/s (p99 ${writer.latencyMs.p99} ms)`, ok: writer.answeredPerSecond >= 15 });
  const search = by('events-search-words');
  if (search) checks.push({ target: 'search, common and rare words: >= 150 req/s, p99 <= 500 ms', measured: `${search.rps} req/s, p99 ${search.latencyMs.p99} ms`, ok: search.rps >= 150 && search.latencyMs.p99 <= 500 });
  if (result.memory.service) checks.push({ target: 'service resident peak (VmHWM) < 160 MB', measured: `${result.memory.service.hwmMb} MB`, ok: result.memory.service.hwmMb < 160 });
  const failing = result.scenarios.filter((s) => s.non2xx);
  checks.push({ target: 'non-2xx = 0', measured: failing.length ? failing.map((s) => `${s.name}: ${s.non2xx}`).join(', ') : '0', ok: failing.length === 0 });
  const erring = result.scenarios.filter((s) => s.errors);
  if (erring.length) {
    checks.push({ target: 'no errors/timeouts (--timeout)', measured: erring.map((s) => `${s.name}: ${s.errors}`).join(', '), ok: false });
  }
  return checks;
}

function targetTable(checks: TargetCheck[]): string {
  return table(['target', 'measured', 'met'], checks.map((c) => [c.target, c.measured, c.ok === undefined ? '?' : c.ok ? 'yes' : 'NO']));
}

function scaleTable(suites: SuiteResult[]): { text: string; checks: TargetCheck[] } {
  const names = suites[0].scenarios.map((s) => s.name);
  const headers = ['scenario', ...suites.flatMap((s) => [`${short(s.events)} req/s`, `${short(s.events)} mean ms`, `${short(s.events)} p99`]), 'growth (mean)'];
  const checks: TargetCheck[] = [];
  const rows = names.map((name) => {
    const cells = suites.map((s) => s.scenarios.find((x) => x.name === name)!);
    const first = cells[0].latencyMs.mean;
    const last = cells[cells.length - 1].latencyMs.mean;
    const growth = first > 0 ? round(last / first, 2) : undefined;
    checks.push({ target: `${name}: latency at ${short(suites[suites.length - 1].events)} <= 1.5 x ${short(suites[0].events)}`, measured: `${growth} x`, ok: growth === undefined ? undefined : growth <= 1.5 });
    return [cells[0].label, ...cells.flatMap((c) => [c.rps, c.latencyMs.mean, c.latencyMs.p99]), growth === undefined ? undefined : `${growth} x`];
  });
  return { text: table(headers, rows), checks };
}

function short(n: number): string {
  return n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n);
}

function machine(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    host: os.hostname(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    memoryGb: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
  };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // The cluster mode has its own options and runs (cluster.ts).
  if (process.argv.includes('--cluster')) return clusterBench(process.argv.slice(2));
  // So does the soak (soak.ts).
  if (process.argv.includes('--soak')) return soakBench(process.argv.slice(2));
  // And the webhook scenario (webhooks.ts).
  if (process.argv.includes('--webhooks')) return webhooksBench(process.argv.slice(2));
  // And the shared cache's (cache.ts).
  if (process.argv.includes('--cache')) return cacheBench(process.argv.slice(2));
  // And the term lists on a table of many tags (terms.ts).
  if (process.argv.includes('--terms')) return termsBench(process.argv.slice(2));
  const opts = options();
  const started = new Date();
  fs.mkdirSync(BENCH_DB_DIR, { recursive: true });
  build(opts);
  const report: Record<string, unknown> = {
    started: started.toISOString(),
    code: codeFingerprint(),
    machine: machine(),
    options: { ...opts, scenarios: opts.scenarios.map((s) => s.name), database: opts.database ? describeUrl(opts.database) : undefined },
  };
  let text: string;
  if (opts.scale) {
    const suites: SuiteResult[] = [];
    for (const size of opts.scaleSizes) {
      log(`\n=== scale: ${size.toLocaleString('en')} events ===`);
      suites.push(await suite(opts.database ?? defaultSqliteUrl(size), size, opts.scenarios, opts, false));
    }
    const { text: scaleText, checks } = scaleTable(suites);
    text = [
      `Scale (${suites[0].engineVersion}, ${opts.connections} connections, ${opts.duration}s per scenario)`,
      '',
      scaleText,
      '',
      targetTable(checks),
      '',
      table(['events', 'service VmHWM MB'], suites.map((s) => [s.events, s.memory.service?.hwmMb])),
    ].join('\n');
    Object.assign(report, { mode: 'scale', suites, targets: checks });
  } else {
    const url = opts.database ?? defaultSqliteUrl(opts.events);
    const result = await suite(url, opts.events, opts.scenarios, opts, opts.floor);
    const checks = targets(result);
    const seedText = result.seed === 'reused' ? 'reused database' : `seeded in ${result.seed.seconds}s (${result.seed.rows.toLocaleString('en')} rows)`;
    text = [
      `${result.events.toLocaleString('en')} events on ${result.engineVersion} (${result.database}; ${seedText}); ${opts.connections} connections, ${opts.warmup}s warm-up + ${opts.duration}s per scenario`,
      `machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, ${round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}; code ${report.code}`,
      `floor: ${result.floor.rps ?? '-'} req/s (before ${result.floor.before?.rps ?? '-'}, after ${result.floor.after?.rps ?? '-'}); service VmHWM ${result.memory.service?.hwmMb} MB, VmRSS ${result.memory.service?.rssMb} MB`,
      '',
      suiteTable(result),
      '',
      targetTable(checks),
    ].join('\n');
    Object.assign(report, { mode: 'suite', ...result, targets: checks });
  }
  report.finished = new Date().toISOString();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${text}\n\nresults: ${path.relative(ROOT, file)}\n`);
  const bad = JSON.stringify(report).match(/"non2xx":[1-9]/);
  if (bad) process.stdout.write('\n!!! SOME RESPONSES WERE NOT 2XX: see the non-2xx column and statusCodes in the JSON !!!\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
