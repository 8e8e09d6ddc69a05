/**
 * `npm run bench`: seeds a calendar, starts the service and the stack's floor as separate processes,
 * drives every scenario (scenarios.ts) closed-loop (load.ts) and reports requests/s, p50/p99 latency,
 * non-2xx, CPU per request and the ratio to the floor; printed and written to bench/results/ (git-ignored).
 * docs/performance.md "Running the benchmark" describes every mode; `--MODE --help` prints its options.
 *
 *   npm run bench -- [options]   (--database mysql://root@127.0.0.1:3306/bench for MySQL/MariaDB)
 *   npm run bench -- --cluster | --soak MINUTES | --webhooks | --cache | --terms | --recurrence [...]
 *   npm run bench -- --probe cpu|purge|commit|memory|explain|profile [...]   (cpu: --set requests|feed|search|ics)
 *
 * --scale       the list scenarios at each size, one connection and a 60 s timeout: latency is service time.
 * --skip-seed   reuses the database when it holds about the requested number of events and the current schema.
 * --profile DIR starts the service with `node --cpu-prof --cpu-prof-dir DIR` (`--probe profile --file FILE` summarises it).
 * --quiet-wait S waits up to S seconds before each measurement until other processes use under 0.3 core.
 * --paired-rounds N  rounds of the alternating windows (alone, beside, beside, alone) of the reads beside the writer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import * as c from './common.js';
import { closedLoop, openLoop, send, type ClosedResult } from './load.js';
import { FLOOR, SCENARIOS, samplesOf, scenario, type Samples, type Scenario } from './scenarios.js';
import { seedCalendar, type SeedReport } from './seed.js';

const MODES: Record<string, () => Promise<{ main(argv: string[]): Promise<void> }>> = {
  cluster: () => import('./cluster.js'),
  soak: () => import('./soak.js'),
  webhooks: () => import('./webhooks.js'),
  cache: () => import('./cache.js'),
  terms: () => import('./terms.js'),
  recurrence: () => import('./recurrence.js'),
  probe: () => import('./probes.js'),
};

const SPEC = {
  scale: ['boolean'],
  events: ['number', 100_000, 100, 5_000_000],
  database: ['string'],
  duration: ['number', 10, 1, 120],
  connections: ['number', (o) => (o.scale ? 1 : 32), 1, 256],
  warmup: ['number', 3, 0, 30],
  'scale-sizes': ['string', '10000,100000,1000000'],
  'skip-seed': ['boolean'],
  scenarios: ['string'],
  'no-floor': ['boolean'],
  profile: ['string'],
  tsx: ['boolean'],
  seed: ['number', 42],
  force: ['boolean'],
  'quiet-wait': ['number', 30, 0, 600],
  'node-args': ['string', ''],
  timeout: ['number', (o) => (o.scale ? 60 : 10), 1, 120],
  'paired-rounds': ['number', 1, 1, 10],
} satisfies c.Spec;

type Options = c.Options<typeof SPEC>;

export interface ScenarioResult extends ClosedResult {
  name: string;
  label: string;
  serverCpuMsPerRequest?: number;
  dbCpuMsPerRequest?: number;
  /** Cores used during the measurement by the server, the database server, this load generator, and everything else (noise). */
  cores: { server?: number; db?: number; loadGenerator: number; other?: number };
  ratioToFloor?: number;
  checkFailure?: string;
  /** The open-loop second client, if any: what it sent and its latency. */
  background?: { sent: number; perSecond: number; answeredPerSecond: number; non2xx: number; errors: number; latencyMs: ReturnType<typeof c.quantiles> };
  /** Reads alone and beside the second client in alternating windows: req/s of each, and beside over alone. */
  paired?: { windowSeconds: number; aloneRps: number[]; besideRps: number[]; ratio: number };
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

type Run = { opts: Options; samples: Samples; dbPid?: number };

/** True when the database has the tables and columns the current migrations create (against a freshly migrated in-memory SQLite). */
async function schemaCurrent(url: string): Promise<boolean> {
  const reference = openDatabase('sqlite::memory:').db;
  const { db } = openDatabase(url);
  try {
    await migrateLatest(reference);
    const applied = new Set((await db('knex_migrations').pluck('name')).map(String));
    const missing = (await reference('knex_migrations').pluck('name')).map(String).filter((name) => !applied.has(name));
    if (missing.length) return (c.log(`migrations added since the database was seeded: ${missing.join(', ')}`), false);
    for (const table of ['users', 'secrets', 'posts', 'events', 'venues', 'organizers', 'images', 'event_venues', 'event_organizers', 'terms', 'event_terms']) {
      const [want, have] = [Object.keys(await reference(table).columnInfo()), Object.keys(await db(table).columnInfo())].map((k) => k.sort().join(','));
      if (want !== have) return (c.log(`the schema of ${table} changed since the database was seeded (${have || 'missing'} -> ${want})`), false);
    }
    return true;
  } catch {
    return false;
  } finally {
    await reference.destroy();
    await db.destroy();
  }
}

/** Seeds the database, or reuses it with --skip-seed when it holds about `events` events (write scenarios add a few thousand a run). */
export async function prepare(url: string, events: number, o: { skipSeed: boolean; seed: number; force: boolean }): Promise<SeedReport | 'reused'> {
  if (o.skipSeed && (await schemaCurrent(url))) {
    const { db } = openDatabase(url);
    const count = await db('posts')
      .where('type', 'event')
      .count({ n: '*' })
      .then(([{ n }]) => Number(n))
      .finally(() => db.destroy());
    if (count >= events && count <= events * 1.2 + 20_000) return (c.log(`reusing ${c.describeUrl(url)} (${count.toLocaleString('en')} events)`), 'reused');
    c.log(`--skip-seed: ${c.describeUrl(url)} holds ${count} events, not ${events}; seeding it`);
  } else if (o.skipSeed) c.log(`--skip-seed: ${c.describeUrl(url)} does not have the current schema; seeding it again`);
  return seedCalendar({ events, databaseUrl: url, seed: o.seed, force: o.force });
}

/** Waits until the server has finished the requests abandoned at the end of a loop: its CPU under 10 % for 300 ms (at most 60 s). */
async function settle(pid: number | undefined): Promise<void> {
  for (const deadline = Date.now() + 60_000; pid !== undefined && Date.now() < deadline;) {
    const before = c.cpuMsOf(pid);
    await c.sleep(300);
    const after = c.cpuMsOf(pid);
    if (before === undefined || after === undefined || after - before <= 30) return;
  }
}

/** Waits (at most `maxSeconds`) until other processes (not `pids`, not this one) use under 0.3 core over a second. */
async function waitForQuiet(maxSeconds: number, pids: Array<number | undefined>): Promise<void> {
  const deadline = Date.now() + maxSeconds * 1000;
  for (let announced = false; ; announced = true) {
    const [busy0, ours0, self0] = [c.machineBusyMs(), pids.map(c.cpuMsOf), process.cpuUsage()];
    await c.sleep(1000);
    const [busy1, ours1, self] = [c.machineBusyMs(), pids.map(c.cpuMsOf), process.cpuUsage(self0)];
    if (busy0 === undefined || busy1 === undefined) return;
    const ours = ours1.reduce<number>((sum, v, i) => sum + (v !== undefined && ours0[i] !== undefined ? v - ours0[i]! : 0), 0) + (self.user + self.system) / 1000;
    const other = c.round(Math.max(0, busy1 - busy0 - ours) / 1000, 2);
    if (other < 0.3 || Date.now() >= deadline)
      return void (announced && c.log(`    machine ${other < 0.3 ? 'quiet again' : `still busy (${other} cores used by other processes); measuring anyway`}`));
    if (!announced) c.log(`    waiting for other processes to calm down (${other} cores busy; up to ${maxSeconds}s)`);
  }
}

const drive = (base: string, scenario: Scenario, run: Run, seconds: number) =>
  closedLoop({ base, connections: run.opts.connections, seconds, timeout: run.opts.timeout, request: () => scenario.request(run.samples, Math.random) });

function background(base: string, scenario: Scenario, run: Run) {
  const { perSecond, request } = scenario.background!;
  const loop = openLoop({ base, rate: perSecond, request: () => request(run.samples, Math.random) });
  return async (): Promise<ScenarioResult['background']> => {
    const r = await loop.stop();
    return { sent: r.sent, perSecond, answeredPerSecond: r.answeredPerSecond, non2xx: r.non2xx, errors: r.errors, latencyMs: c.quantiles(r.latencies) };
  };
}

async function measure(base: string, scenario: Scenario, run: Run, pid: number | undefined): Promise<ScenarioResult> {
  let checkFailure: string | undefined;
  for (let i = 0; i < 3 && !checkFailure; i++) {
    const req = scenario.request(run.samples, Math.random);
    const answer = await send(base, req);
    if (answer.status < 200 || answer.status > 299) checkFailure = `${req.method} ${req.path} -> ${answer.status} ${answer.body.slice(0, 500)}`;
  }
  if (checkFailure) c.log(`!!! ${scenario.name}: the check request failed: ${checkFailure}`);
  if (run.opts.warmup > 0) await drive(base, scenario, run, run.opts.warmup);
  await settle(pid);
  if (run.opts.quietWait > 0) await waitForQuiet(run.opts.quietWait, [pid, run.dbPid]);
  const before = { server: c.cpuMsOf(pid), db: c.cpuMsOf(run.dbPid), busy: c.machineBusyMs(), self: process.cpuUsage() };
  const second = scenario.background ? background(base, scenario, run) : undefined;
  const result = await drive(base, scenario, run, run.opts.duration);
  const writer = await second?.();
  const self = process.cpuUsage(before.self);
  const after = { server: c.cpuMsOf(pid), db: c.cpuMsOf(run.dbPid), busy: c.machineBusyMs() };
  await settle(pid);
  const delta = (k: 'server' | 'db' | 'busy') => (before[k] === undefined || after[k] === undefined ? undefined : after[k]! - before[k]!);
  const perRequest = (ms: number | undefined) => (ms === undefined || !result.requests ? undefined : c.round(ms / result.requests, 3));
  const cores = (ms: number | undefined) => (ms === undefined ? undefined : c.round(ms / 1000 / result.seconds, 2));
  const loadGenerator = (self.user + self.system) / 1000;
  const other = delta('busy') === undefined ? undefined : Math.max(0, delta('busy')! - (delta('server') ?? 0) - (delta('db') ?? 0) - loadGenerator);
  const out: ScenarioResult = {
    name: scenario.name,
    label: scenario.label,
    ...result,
    serverCpuMsPerRequest: perRequest(delta('server')),
    dbCpuMsPerRequest: perRequest(delta('db')),
    cores: { server: cores(delta('server')), db: cores(delta('db')), loadGenerator: cores(loadGenerator)!, other: cores(other) },
    ...(checkFailure ? { checkFailure } : {}),
    ...(writer ? { background: writer } : {}),
  };
  if (scenario.pairedAlone && scenario.background) out.paired = await pairedWithWriter(base, scenario, run, pid);
  if (writer)
    c.log(
      `  ${''.padEnd(20)} the second client: ${writer.sent} requests at ${writer.perSecond}/s, ${writer.answeredPerSecond}/s answered in time, p50 ${writer.latencyMs.p50} ms, p99 ${writer.latencyMs.p99} ms, non-2xx ${writer.non2xx}, errors ${writer.errors}`,
    );
  const noise = out.cores.other !== undefined && out.cores.other > 0.25 ? `   (noise: other processes used ${out.cores.other} cores)` : '';
  const flag = out.non2xx || out.errors ? `   !!! NON-2XX ${out.non2xx} ERRORS ${out.errors} ${JSON.stringify(out.statusCodes)}` : '';
  c.log(
    `  ${scenario.name.padEnd(20)} ${String(out.rps).padStart(8)} req/s  p50 ${out.latencyMs.p50} ms  p99 ${out.latencyMs.p99} ms  server ${out.cores.server ?? '-'} cores${flag}${noise}`,
  );
  return out;
}

/**
 * The reads alone and beside the second client in windows of half the duration: alone, beside, beside,
 * alone (`--paired-rounds` times). The machine's speed drifts within a run; the alternating order
 * weighs a steady drift on both sums alike (docs/performance.md "Running the benchmark").
 */
async function pairedWithWriter(base: string, scenario: Scenario, run: Run, pid: number | undefined): Promise<NonNullable<ScenarioResult['paired']>> {
  const windowSeconds = Math.max(2, Math.round(run.opts.duration / 2));
  const [aloneRps, besideRps]: number[][] = [[], []];
  for (const beside of Array.from({ length: run.opts.pairedRounds }, () => [false, true, true, false]).flat()) {
    await settle(pid);
    const second = beside ? background(base, scenario, run) : undefined;
    const result = await drive(base, scenario, run, windowSeconds);
    await second?.();
    (beside ? besideRps : aloneRps).push(result.rps);
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const ratio = c.round(sum(besideRps) / sum(aloneRps), 3);
  c.log(
    `  ${''.padEnd(20)} paired windows of ${windowSeconds} s (${run.opts.pairedRounds} round(s) of alone, beside, beside, alone): alone ${aloneRps.join(', ')}; beside ${besideRps.join(', ')} req/s: beside/alone ${ratio.toFixed(2)}`,
  );
  return { windowSeconds, aloneRps, besideRps, ratio };
}

async function suite(url: string, events: number, scenarios: Scenario[], opts: Options, withFloor: boolean): Promise<SuiteResult> {
  const seed = await prepare(url, events, opts);
  const { engine, samples } = await samplesOf(url);
  const { db } = openDatabase(url);
  const version = await (
    engine === 'sqlite' ? db.raw('select sqlite_version() as v').then((r) => `SQLite ${r[0].v}`) : db.raw('select version() as v').then((r) => `MySQL ${r[0][0].v}`)
  ).finally(() => db.destroy());
  const run: Run = { opts, samples, dbPid: engine === 'mysql' ? c.findDatabaseServerPid() : undefined };
  const profileFlags = opts.profile ? ['--cpu-prof', '--cpu-prof-dir', opts.profile] : [];
  if (opts.profile) fs.mkdirSync(opts.profile, { recursive: true });
  const serviceOptions = (env: Record<string, string> = {}): c.ServiceOptions => ({
    tsx: opts.tsx,
    flags: [...opts.nodeArgs.split(/\s+/).filter((a) => a.startsWith('--')), ...profileFlags],
    env: (e) => Object.assign(e, env),
  });
  const service = await c.startService(url, serviceOptions());
  let floor: { child: c.Child; base: string } | undefined;
  if (withFloor) {
    const port = await c.freePort();
    floor = { child: c.startNode('floor', ['--import', 'tsx', 'scripts/bench/floor.ts'], c.serviceEnv(url, port)), base: `http://127.0.0.1:${port}` };
    await c.waitForHttp(`${floor.base}/items/1`, floor.child);
  }
  const result: SuiteResult = { events, database: c.describeUrl(url), engine, engineVersion: version, seed, floor: {}, scenarios: [], memory: {} };
  try {
    c.log(
      `driving ${scenarios.length} scenarios: ${opts.connections} connections, ${opts.warmup}s warm-up + ${opts.duration}s each, ${events.toLocaleString('en')} events on ${version}`,
    );
    if (floor) result.floor.before = await measure(floor.base, FLOOR, run, floor.child.pid);
    for (const scenario of scenarios) {
      if (scenario.onlyOn && scenario.onlyOn !== engine) c.log(`  ${scenario.name.padEnd(20)} skipped: measured on ${scenario.onlyOn} only`);
      else if (!scenario.serviceEnv) result.scenarios.push(await measure(service.base, scenario, run, service.child.pid));
      else {
        // Settings of its own: a second process on the same database; the first stays up, idle.
        const apart = await c.startService(url, serviceOptions(scenario.serviceEnv));
        result.scenarios.push(await measure(apart.base, scenario, run, apart.child.pid).finally(() => c.stopChild(apart.child)));
      }
    }
    if (floor) {
      result.floor.after = await measure(floor.base, FLOOR, run, floor.child.pid);
      result.floor.rps = c.round((result.floor.before!.rps + result.floor.after.rps) / 2, 1);
      for (const s of result.scenarios) s.ratioToFloor = c.round(s.rps / result.floor.rps, 3);
      result.memory.floor = c.memoryOf(floor.child.pid);
    }
    result.memory.service = c.memoryOf(service.child.pid);
  } finally {
    await c.stopChild(service.child);
    if (floor) await c.stopChild(floor.child);
  }
  if (opts.profile) {
    result.profile = fs
      .readdirSync(opts.profile)
      .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${service.child.pid}.`))
      .map((f) => path.join(opts.profile!, f));
    c.log(`profile: ${result.profile.join(', ') || '(none written)'}`);
  }
  return result;
}

function suiteTable(result: SuiteResult): string {
  const rows = [result.floor.before, ...result.scenarios, result.floor.after].filter((s): s is ScenarioResult => s !== undefined);
  return c.table(
    ['scenario', 'req/s', 'x floor', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'svc CPU ms/req', 'db CPU ms/req', 'KB/resp', 'svc cores', 'noise cores'],
    rows.map((s) => [
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
    ]),
  );
}

type Check = { target: string; measured: string; ok: boolean | undefined };

/** The read path's targets (issue 49, which raised those of Performance III; docs/performance.md "Current figures"), at 10,000 events. */
function targets(result: SuiteResult): Check[] {
  const by = (name: string) => result.scenarios.find((s) => s.name === name);
  const checks: Check[] = [];
  const floorRatio = (name: string, label: string, target: number) => {
    const ratio = by(name)?.ratioToFloor;
    if (ratio !== undefined) checks.push({ target: `${label} >= ${target} x floor`, measured: `${ratio.toFixed(2)} x`, ok: ratio >= target });
  };
  floorRatio('event-by-id', 'GET /events/{random id}', result.engine === 'sqlite' ? 0.5 : 0.4);
  floorRatio('event-by-id-same', 'GET /events/{id}, the same event', 0.7);
  const [byId, underWrites, search] = [by('event-by-id'), by('event-by-id-writes'), by('events-search-words')];
  // Judged by the alternating windows when they ran, else against the scenario alone, measured minutes apart.
  const apart = byId && underWrites ? underWrites.rps / byId.rps : undefined;
  const beside = underWrites?.paired?.ratio ?? apart;
  if (beside !== undefined) {
    const measured = underWrites?.paired
      ? `${beside.toFixed(2)} x (paired windows${apart === undefined ? '' : `; ${apart.toFixed(2)} x against the scenario alone, measured apart`})`
      : `${beside.toFixed(2)} x`;
    checks.push({ target: 'GET /events/{id} beside 20 PATCH/s >= 0.85 x alone', measured, ok: beside >= 0.85 });
  }
  const writer = underWrites?.background;
  if (writer)
    checks.push({
      target: 'the writer beside them gets >= 15 PATCH/s',
      measured: `${writer.answeredPerSecond}/s (p99 ${writer.latencyMs.p99} ms)`,
      ok: writer.answeredPerSecond >= 15,
    });
  if (search)
    checks.push({
      target: 'search, common and rare words: >= 150 req/s, p99 <= 500 ms',
      measured: `${search.rps} req/s, p99 ${search.latencyMs.p99} ms`,
      ok: search.rps >= 150 && search.latencyMs.p99 <= 500,
    });
  if (result.memory.service)
    checks.push({ target: 'service resident peak (VmHWM) < 175 MB', measured: `${result.memory.service.hwmMb} MB`, ok: result.memory.service.hwmMb < 175 });
  const failing = result.scenarios.filter((s) => s.non2xx);
  checks.push({ target: 'non-2xx = 0', measured: failing.map((s) => `${s.name}: ${s.non2xx}`).join(', ') || '0', ok: failing.length === 0 });
  const erring = result.scenarios.filter((s) => s.errors);
  if (erring.length) checks.push({ target: 'no errors/timeouts (--timeout)', measured: erring.map((s) => `${s.name}: ${s.errors}`).join(', '), ok: false });
  return checks;
}

const targetTable = (checks: Check[]) =>
  c.table(
    ['target', 'measured', 'met'],
    checks.map((x) => [x.target, x.measured, x.ok === undefined ? '?' : x.ok ? 'yes' : 'NO']),
  );
const short = (n: number) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n));

function scaleReport(suites: SuiteResult[], opts: Options): { text: string; checks: Check[] } {
  const checks: Check[] = [];
  const [first, last] = [suites[0], suites[suites.length - 1]];
  const rows = first.scenarios.map(({ name }) => {
    const cells = suites.map((s) => s.scenarios.find((x) => x.name === name)!);
    const growth = cells[0].latencyMs.mean > 0 ? c.round(cells[cells.length - 1].latencyMs.mean / cells[0].latencyMs.mean, 2) : undefined;
    checks.push({
      target: `${name}: latency at ${short(last.events)} <= 1.5 x ${short(first.events)}`,
      measured: `${growth} x`,
      ok: growth === undefined ? undefined : growth <= 1.5,
    });
    return [cells[0].label, ...cells.flatMap((x) => [x.rps, x.latencyMs.mean, x.latencyMs.p99]), growth === undefined ? undefined : `${growth} x`];
  });
  const headers = ['scenario', ...suites.flatMap((s) => [`${short(s.events)} req/s`, `${short(s.events)} mean ms`, `${short(s.events)} p99`]), 'growth (mean)'];
  const text = [
    `Scale (${first.engineVersion}, ${opts.connections} connections, ${opts.duration}s per scenario)`,
    '',
    c.table(headers, rows),
    '',
    targetTable(checks),
    '',
    c.table(
      ['events', 'service VmHWM MB'],
      suites.map((s) => [s.events, s.memory.service?.hwmMb]),
    ),
  ];
  return { text: text.join('\n'), checks };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const mode = Object.keys(MODES).find((name) => argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`)));
  if (mode) return (await MODES[mode]()).main(argv);
  const opts = c.options(argv, SPEC, import.meta.url);
  const names = opts.scenarios?.split(',').map((s) => s.trim());
  names?.forEach(scenario); // throws on an unknown name
  const scenarios = SCENARIOS.filter((s) => (names ? names.includes(s.name) : !opts.scale || s.list));
  if (opts.database) c.checkDatabaseUrl(opts.database);
  if (opts.profile) opts.profile = path.resolve(c.ROOT, opts.profile);
  const started = new Date();
  fs.mkdirSync(c.BENCH_DB_DIR, { recursive: true });
  if (!opts.tsx && !c.buildService()) opts.tsx = true;
  const report: Record<string, unknown> = { options: { ...opts, scenarios: scenarios.map((s) => s.name), database: opts.database && c.describeUrl(opts.database) } };
  let text: string;
  if (opts.scale) {
    const suites: SuiteResult[] = [];
    for (const size of opts.scaleSizes.split(',').map((s) => Number(s.trim().replace(/k$/i, '000').replace(/m$/i, '000000')))) {
      c.log(`\n=== scale: ${size.toLocaleString('en')} events ===`);
      suites.push(await suite(opts.database ?? c.defaultSqliteUrl(size), size, scenarios, opts, false));
    }
    const scaled = scaleReport(suites, opts);
    text = scaled.text;
    Object.assign(report, { mode: 'scale', suites, targets: scaled.checks });
  } else {
    const result = await suite(opts.database ?? c.defaultSqliteUrl(opts.events), opts.events, scenarios, opts, !opts.noFloor);
    const checks = targets(result);
    const seedText = result.seed === 'reused' ? 'reused database' : `seeded in ${result.seed.seconds}s (${result.seed.rows.toLocaleString('en')} rows)`;
    text = [
      `${result.events.toLocaleString('en')} events on ${result.engineVersion} (${result.database}; ${seedText}); ${opts.connections} connections, ${opts.warmup}s warm-up + ${opts.duration}s per scenario`,
      `machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, ${c.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}; code ${c.codeFingerprint()}`,
      `floor: ${result.floor.rps ?? '-'} req/s (before ${result.floor.before?.rps ?? '-'}, after ${result.floor.after?.rps ?? '-'}); service VmHWM ${result.memory.service?.hwmMb} MB, VmRSS ${result.memory.service?.rssMb} MB`,
      '',
      suiteTable(result),
      '',
      targetTable(checks),
    ].join('\n');
    Object.assign(report, { mode: 'suite', ...result, targets: checks });
  }
  c.writeResults('', started, report, text);
  if (/"non2xx":[1-9]/.test(JSON.stringify(report))) process.stdout.write('\n!!! SOME RESPONSES WERE NOT 2XX: see the non-2xx column and statusCodes in the JSON !!!\n');
}

// Date parsing needs a UTC process (src/dates); the probes run the service in this process.
process.env.TZ = 'UTC';
main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
