/**
 * `npm run bench -- --soak MINUTES`: a long run of a steady, moderate mix of every kind of request,
 * to see whether the service's memory stays flat over time (issue #29, docs/performance.md "Soak").
 *
 *   npm run bench -- --soak 60 [--database mysql://root@127.0.0.1:3306/bench] [--events 20000]
 *                    [--rate 60] [--long-polls 4] [--warmup-minutes N] [--out DIR] [--skip-seed]
 *                    [--seed 42] [--force] [--tsx]
 *
 * The calendar is seeded (seed.ts), the service started as `npm start` starts it (METRICS=on, so that
 * /metrics gives the heap and the event-loop delay), and driven open-loop at --rate requests/s (not
 * waiting for answers, as independent clients would): reads of every kind, creates, updates and
 * deletes, idempotent creates (new keys and replays), recurring series (create, edit, delete), plus
 * --long-polls clients following `/changes` with `wait`. Each minute it samples the SERVICE process's
 * VmRSS (/proc), heap used and event-loop delay (/metrics), and the minute's error count and p50/p99
 * per request kind. At the end: the table per minute (also as CSV), the least-squares slope of RSS
 * and heap in MB per hour after the warm-up (the first 10 minutes, or the first third of shorter
 * runs), the errors and the p99 of the first and last warm-up-long spans. The exit code is 1 if any
 * answer was an error (5xx, an unexpected status, no answer within 30 s).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DB_DIR, NAMESPACE_PATH, RESULTS_DIR, ROOT, checkDatabaseUrl, codeFingerprint, cpuMsOf, describeUrl, machineBusyMs, memoryOf, parseArgs, round, stopChild, table, type Child, log, printUsageAndExit } from './common.js';
import { seedCalendar } from './seed.js';
import { samplesOf } from './scenarios.js';
import { buildService, startAsNpmStart } from './service.js';
import { MIX, type Kind, type SoakState } from './soak-mix.js';

const SPEC = {
  soak: 'number', database: 'string', events: 'number', rate: 'number', 'long-polls': 'number', 'warmup-minutes': 'number', out: 'string', 'skip-seed': 'boolean', seed: 'number', force: 'boolean', tsx: 'boolean', help: 'boolean',
} as const;

/** Requests sent but not answered beyond which the load generator skips sends (and says so): the service is not keeping up. */
const MAX_IN_FLIGHT = 256;
const REQUEST_TIMEOUT_MS = 30_000;
/** Seconds each `/changes` long poll may be held. */
const LONG_POLL_WAIT = 20;

interface Options {
  minutes: number;
  database: string;
  events: number;
  rate: number;
  longPolls: number;
  warmupMinutes: number;
  out: string;
  skipSeed: boolean;
  seed: number;
  force: boolean;
  tsx: boolean;
}

/** What one minute saw: latencies and statuses per kind, then the service's memory at its end. */
interface Minute {
  minute: number;
  latencies: Map<string, number[]>;
  errors: number;
  skipped: number;
  rssMb?: number;
  heapUsedMb?: number;
  externalMb?: number;
  lagP99Ms?: number;
  lagMaxMs?: number;
  /** Cores used during the minute by the service, and by the whole machine (the run shares it with other work). */
  serviceCores?: number;
  machineCores?: number;
}

function options(argv: string[]): Options {
  const args = parseArgs(argv, SPEC);
  if (args.help) printUsageAndExit(import.meta.url);
  const minutes = Number(args.soak);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60) throw new Error(`--soak needs whole minutes, 1 to 1440, got ${args.soak}`);
  const events = Number(args.events ?? 20_000);
  const database = String(args.database ?? `sqlite:${path.relative(ROOT, path.join(BENCH_DB_DIR, `soak-${events}.sqlite`))}`);
  checkDatabaseUrl(database);
  const rate = Number(args.rate ?? 60);
  if (!(rate >= 1 && rate <= 1000)) throw new Error('--rate must be 1 to 1000 requests/s');
  return {
    minutes,
    database,
    events,
    rate,
    longPolls: Math.max(0, Math.min(50, Number(args['long-polls'] ?? 4))),
    // The first 10 minutes, or the first third of a shorter run, are the warm-up (caches filling).
    warmupMinutes: Number(args['warmup-minutes'] ?? (minutes >= 30 ? 10 : Math.max(1, Math.floor(minutes / 3)))),
    out: path.resolve(ROOT, String(args.out ?? RESULTS_DIR)),
    skipSeed: Boolean(args['skip-seed']),
    seed: Number(args.seed ?? 42),
    force: Boolean(args.force),
    tsx: Boolean(args.tsx),
  };
}

function startService(opts: Options): Promise<{ child: Child; base: string }> {
  return startAsNpmStart(opts.database, opts.tsx, (env) => {
    env.METRICS = 'on';
    delete env.METRICS_TOKEN;
  });
}

/** Heap and event-loop delay from the prom-client default metrics (the delay histogram is reset at each scrape: the minute's own). */
async function scrape(base: string): Promise<Pick<Minute, 'heapUsedMb' | 'externalMb' | 'lagP99Ms' | 'lagMaxMs'>> {
  try {
    // /metrics skips the reads' queue, but on a starved machine the event loop itself may take seconds to get to it.
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
    const value = (name: string) => {
      const match = new RegExp(`^${name} ([0-9.eE+-]+)`, 'm').exec(text);
      return match ? Number(match[1]) : undefined;
    };
    const mb = (v: number | undefined) => (v === undefined ? undefined : round(v / 2 ** 20, 1));
    const ms = (v: number | undefined) => (v === undefined ? undefined : round(v * 1000, 1));
    return { heapUsedMb: mb(value('nodejs_heap_size_used_bytes')), externalMb: mb(value('nodejs_external_memory_bytes')), lagP99Ms: ms(value('nodejs_eventloop_lag_p99_seconds')), lagMaxMs: ms(value('nodejs_eventloop_lag_max_seconds')) };
  } catch {
    return {};
  }
}

function percentile(sorted: number[], q: number): number | undefined {
  return sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))], 1) : undefined;
}

/** Least-squares slope of y over x (minutes), in units per hour; undefined with fewer than 2 points. */
export function slopePerHour(points: Array<[number, number]>): number | undefined {
  if (points.length < 2) return undefined;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx === 0 ? undefined : round((sxy / sxx) * 60, 2);
}

/** The load: a tick every 50 ms sends rate/20 requests (fractions carried), each drawn from the weighted mix. */
function startLoad(base: string, state: SoakState, rate: number, current: () => Minute, errorLog: (line: string) => void) {
  const totalWeight = MIX.reduce((s, k) => s + k.weight, 0);
  const pending = new Set<Promise<void>>();
  let carry = 0;
  const pickKind = (): Kind => {
    let r = Math.random() * totalWeight;
    for (const kind of MIX) if ((r -= kind.weight) < 0) return kind;
    return MIX[MIX.length - 1];
  };
  const send = (kind: Kind) => {
    const minute = current();
    if (pending.size >= MAX_IN_FLIGHT) {
      minute.skipped++;
      return;
    }
    const request = kind.request(state);
    if (!request) return;
    const started = performance.now();
    const done = fetch(base + request.path, { method: request.method, headers: request.headers, body: request.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
      .then(async (res) => {
        const text = await res.text();
        const ms = performance.now() - started;
        const bucket = current();
        const list = bucket.latencies.get(kind.name) ?? [];
        list.push(ms);
        bucket.latencies.set(kind.name, list);
        const problem = kind.check(res, text, request, state);
        if (problem) {
          bucket.errors++;
          errorLog(`${kind.name}: ${request.method} ${request.path} -> ${res.status} ${problem} ${text.slice(0, 300)}`);
        }
      })
      .catch((err: unknown) => {
        current().errors++;
        errorLog(`${kind.name}: ${request.method} ${request.path} -> no answer (${(err as Error).message})`);
      })
      .finally(() => {
        pending.delete(done);
        if (request.lock !== undefined) state.busy?.delete(request.lock);
      });
    pending.add(done);
  };
  const timer = setInterval(() => {
    carry += rate / 20;
    while (carry >= 1) {
      carry--;
      send(pickKind());
    }
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
    },
  };
}

/** A client following the change feed: `/changes?after=<cursor>&wait=20`, the next cursor each time, until stopped. */
function startLongPoll(base: string, current: () => Minute, errorLog: (line: string) => void) {
  let stopped = false;
  let controller: AbortController | undefined;
  const loop = async () => {
    const first = await fetch(`${base}${NAMESPACE_PATH}/events?per_page=1`);
    await first.arrayBuffer();
    let cursor = first.headers.get('x-tec-change-cursor') ?? '';
    while (!stopped) {
      const started = performance.now();
      controller = new AbortController();
      const timer = setTimeout(() => controller!.abort(), (LONG_POLL_WAIT + 30) * 1000);
      const route = `${NAMESPACE_PATH}/changes?${new URLSearchParams({ after: cursor, wait: String(LONG_POLL_WAIT), per_page: '100' })}`;
      try {
        const res = await fetch(base + route, { signal: controller.signal });
        const text = await res.text();
        const bucket = current();
        const list = bucket.latencies.get('changes-long-poll') ?? [];
        list.push(performance.now() - started);
        bucket.latencies.set('changes-long-poll', list);
        if (res.status !== 200) {
          bucket.errors++;
          errorLog(`changes-long-poll: GET ${route} -> ${res.status} ${text.slice(0, 300)}`);
          await new Promise((r) => setTimeout(r, 1000));
        } else cursor = (JSON.parse(text) as { next_cursor: string }).next_cursor ?? cursor;
      } catch (err) {
        if (!stopped) {
          current().errors++;
          errorLog(`changes-long-poll: GET ${route} -> no answer (${(err as Error).message})`);
        }
      } finally {
        clearTimeout(timer);
      }
    }
  };
  const running = loop().catch((err: unknown) => errorLog(`changes-long-poll: stopped (${(err as Error).message})`));
  return {
    async stop() {
      stopped = true;
      controller?.abort();
      await running;
    },
  };
}

function kindsOf(minutes: Minute[]): string[] {
  const names = new Set<string>();
  for (const m of minutes) for (const name of m.latencies.keys()) names.add(name);
  return [...MIX.map((k) => k.name), 'changes-long-poll'].filter((name) => names.has(name));
}

/** All latencies of the given minutes except the long polls (held up to 20 s by design), sorted. */
function requestLatencies(minutes: Minute[], kind?: string): number[] {
  const all: number[] = [];
  for (const m of minutes) for (const [name, list] of m.latencies) if (name !== 'changes-long-poll' && (kind === undefined || kind === name)) all.push(...list);
  return all.sort((a, b) => a - b);
}

function csv(minutes: Minute[]): string {
  const kinds = kindsOf(minutes);
  const header = ['minute', 'requests', 'long_polls', 'errors', 'skipped', 'rss_mb', 'heap_used_mb', 'external_mb', 'loop_delay_p99_ms', 'loop_delay_max_ms', 'service_cores', 'machine_cores', 'p50_ms', 'p99_ms', ...kinds.flatMap((k) => [`${k}_n`, `${k}_p50_ms`, `${k}_p99_ms`])];
  const rows = minutes.map((m) => {
    const all = requestLatencies([m]);
    const perKind = kinds.flatMap((k) => {
      const list = [...(m.latencies.get(k) ?? [])].sort((a, b) => a - b);
      return [list.length, percentile(list, 0.5), percentile(list, 0.99)];
    });
    return [m.minute, all.length, m.latencies.get('changes-long-poll')?.length ?? 0, m.errors, m.skipped, m.rssMb, m.heapUsedMb, m.externalMb, m.lagP99Ms, m.lagMaxMs, m.serviceCores, m.machineCores, percentile(all, 0.5), percentile(all, 0.99), ...perKind];
  });
  return [header, ...rows].map((row) => row.map((c) => (c === undefined ? '' : String(c))).join(',')).join('\n') + '\n';
}

export async function soakBench(argv: string[]): Promise<void> {
  const opts = options(argv);
  const started = new Date();
  fs.mkdirSync(opts.out, { recursive: true });
  fs.mkdirSync(BENCH_DB_DIR, { recursive: true });
  if (!opts.tsx && !buildService()) opts.tsx = true;
  if (!opts.skipSeed) await seedCalendar({ events: opts.events, databaseUrl: opts.database, seed: opts.seed, force: opts.force });
  const { engine, samples } = await samplesOf(opts.database);
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const prefix = path.join(opts.out, `soak-${engine}-${stamp}`);
  const errorFile = `${prefix}-errors.log`;
  let errorLines = 0;
  const errorLog = (line: string) => {
    // Every error goes to the file; the first 20 to the terminal too.
    fs.appendFileSync(errorFile, `${new Date().toISOString()} ${line}\n`);
    if (errorLines++ < 20) log(`!!! ${line}`);
  };
  const service = await startService(opts);
  const minutes: Minute[] = [];
  const fresh = (minute: number): Minute => ({ minute, latencies: new Map(), errors: 0, skipped: 0 });
  // Minute 0: the service at rest, just started, before any load.
  const zero = fresh(0);
  Object.assign(zero, { rssMb: memoryOf(service.child.pid)?.rssMb }, await scrape(service.base));
  minutes.push(zero);
  let now = fresh(1);
  let cpuMark = { service: cpuMsOf(service.child.pid), machine: machineBusyMs(), at: Date.now() };
  const state: SoakState = { samples, created: [], series: [], keys: [] };
  log(`soak: ${opts.minutes} min at ${opts.rate} req/s + ${opts.longPolls} long polls, ${describeUrl(opts.database)}; warm-up ${opts.warmupMinutes} min; CSV ${prefix}.csv`);
  // Minutes count from the start of the load (not of the build and seeding).
  const loadStarted = Date.now();
  const load = startLoad(service.base, state, opts.rate, () => now, errorLog);
  const polls = Array.from({ length: opts.longPolls }, () => startLongPoll(service.base, () => now, errorLog));
  let died = false;
  let stopping = false;
  // An exit of the service before we stop it is a failure of the run.
  void service.child.exited.then(() => (died = !stopping));
  try {
    for (let minute = 1; minute <= opts.minutes && !died; minute++) {
      // Sleep to the minute's end on the clock of the start (no drift from the sampling itself).
      await new Promise((r) => setTimeout(r, Math.max(0, loadStarted + minute * 60_000 - Date.now())));
      const ended = now;
      now = fresh(minute + 1);
      const mark = { service: cpuMsOf(service.child.pid), machine: machineBusyMs(), at: Date.now() };
      const cores = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : round((b - a) / (mark.at - cpuMark.at), 2));
      Object.assign(ended, { rssMb: memoryOf(service.child.pid)?.rssMb, serviceCores: cores(cpuMark.service, mark.service), machineCores: cores(cpuMark.machine, mark.machine) }, await scrape(service.base));
      cpuMark = mark;
      minutes.push(ended);
      // The CSV so far, every minute: an interrupted run still leaves its figures.
      fs.writeFileSync(`${prefix}.csv`, csv(minutes));
      const all = requestLatencies([ended]);
      log(`minute ${minute}: ${all.length} requests, errors ${ended.errors}${ended.skipped ? `, skipped ${ended.skipped}` : ''}, RSS ${ended.rssMb} MB, heap ${ended.heapUsedMb} MB, loop delay p99 ${ended.lagP99Ms} ms, service ${ended.serviceCores} / machine ${ended.machineCores} cores, p50 ${percentile(all, 0.5)} ms, p99 ${percentile(all, 0.99)} ms`);
    }
  } finally {
    await load.stop();
    await Promise.all(polls.map((p) => p.stop()));
    stopping = true;
    await stopChild(service.child);
  }
  if (died) errorLog(`the service exited during the soak:\n${service.child.output.slice(-30).join('\n')}`);
  report(opts, minutes, prefix, started, died);
}

function report(opts: Options, minutes: Minute[], prefix: string, started: Date, died: boolean): void {
  fs.writeFileSync(`${prefix}.csv`, csv(minutes));
  const loaded = minutes.filter((m) => m.minute > 0);
  const after = loaded.filter((m) => m.minute >= opts.warmupMinutes);
  const points = (key: 'rssMb' | 'heapUsedMb') => after.filter((m) => m[key] !== undefined).map((m): [number, number] => [m.minute, m[key]!]);
  const span = Math.max(1, Math.min(opts.warmupMinutes, Math.floor(loaded.length / 2)));
  const first = loaded.slice(0, span);
  const last = loaded.slice(-span);
  const errors = loaded.reduce((s, m) => s + m.errors, 0);
  const skipped = loaded.reduce((s, m) => s + m.skipped, 0);
  const at = (minute: number) => minutes.find((m) => m.minute === minute);
  const p99Trend = kindsOf(loaded).filter((k) => k !== 'changes-long-poll').map((k) => [k, percentile(requestLatencies(first, k), 0.99), percentile(requestLatencies(last, k), 0.99)]);
  const summary = {
    rssMbAtWarmup: at(opts.warmupMinutes)?.rssMb,
    rssMbAtEnd: loaded.at(-1)?.rssMb,
    rssSlopeMbPerHour: slopePerHour(points('rssMb')),
    heapSlopeMbPerHour: slopePerHour(points('heapUsedMb')),
    p99FirstMs: percentile(requestLatencies(first), 0.99),
    p99LastMs: percentile(requestLatencies(last), 0.99),
    errors,
    skipped,
    serviceDied: died,
  };
  const perMinute = table(
    ['minute', 'requests', 'long polls', 'errors', 'RSS MB', 'heap MB', 'loop delay p99 ms', 'service cores', 'machine cores', 'p50 ms', 'p99 ms'],
    minutes.map((m) => {
      const all = requestLatencies([m]);
      return [m.minute, all.length, m.latencies.get('changes-long-poll')?.length ?? 0, m.errors, m.rssMb, m.heapUsedMb, m.lagP99Ms, m.serviceCores, m.machineCores, percentile(all, 0.5), percentile(all, 0.99)];
    }),
  );
  const text = [
    `Soak: ${opts.minutes} min on ${describeUrl(opts.database)}, ${opts.rate} req/s + ${opts.longPolls} long polls; code ${codeFingerprint()}`,
    '',
    perMinute,
    '',
    table(['figure', 'value'], [
      [`RSS at minute ${opts.warmupMinutes} (end of warm-up), MB`, summary.rssMbAtWarmup],
      [`RSS at minute ${loaded.at(-1)?.minute ?? '-'}, MB`, summary.rssMbAtEnd],
      [`RSS slope after warm-up (least squares), MB/h`, summary.rssSlopeMbPerHour],
      [`heap used slope after warm-up, MB/h`, summary.heapSlopeMbPerHour],
      [`p99 of the first ${span} min, ms`, summary.p99FirstMs],
      [`p99 of the last ${span} min, ms`, summary.p99LastMs],
      ['errors (5xx, unexpected status, no answer)', errors],
      ['sends skipped (more than 256 in flight)', skipped],
    ]),
    '',
    `p99 per kind, first ${span} min vs last ${span} min (ms)`,
    table(['kind', 'first', 'last'], p99Trend as Array<Array<string | number | undefined>>),
  ].join('\n');
  fs.writeFileSync(`${prefix}.json`, `${JSON.stringify({ started: started.toISOString(), finished: new Date().toISOString(), options: { ...opts, database: describeUrl(opts.database) }, code: codeFingerprint(), summary, p99Trend, minutes: minutes.map((m) => ({ ...m, latencies: undefined })) }, null, 2)}\n`);
  fs.writeFileSync(`${prefix}.txt`, `${text}\n`);
  process.stdout.write(`\n${text}\n\nresults: ${prefix}.{csv,json,txt}${errors ? `, errors in ${prefix}-errors.log` : ''}\n`);
  if (summary.rssSlopeMbPerHour !== undefined && summary.rssSlopeMbPerHour > 5) process.stdout.write('\n!!! RSS GROWS MORE THAN 5 MB/h AFTER THE WARM-UP !!!\n');
  if (errors || died) {
    process.stdout.write(`\n!!! ${errors} ERROR ANSWERS${died ? ', THE SERVICE DIED' : ''} !!!\n`);
    process.exitCode = 1;
  }
}
