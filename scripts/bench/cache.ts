/**
 * `npm run bench -- --cache`: calendar subscribers polling public URLs through Varnish, and what the
 * ORIGIN saw (docs/caching.md "Capacity").
 *
 *   npm run bench -- --cache [--subscribers 1000] [--urls 300] [--duration 60] [--max-age 10]
 *                    [--poll 5] [--connections 200] [--write-every 5] [--cold] [--events 10000]
 *                    [--database URL] [--skip-seed] [--seed 42] [--force] [--tsx]
 *
 * The calendar is seeded (seed.ts; --skip-seed reuses it), the service started as `npm start` starts
 * it with METRICS=on and CACHE_MAX_AGE=--max-age (the other cache settings at their defaults), a
 * counting proxy (origin-counter.ts) in front of it, and Varnish (scripts/cache/varnish.ts, the
 * project's VCL) in front of the proxy: client -> Varnish -> counting proxy -> service.
 *
 * --urls public URLs are chosen (cache-urls.ts: one-event .ics feeds, /events.ics with filters,
 * /events.jsonld, public pages, API lists), each checked once at the service (only 200s kept) and
 * fetched once through Varnish to prime it (counted apart; --cold skips this, so that the run starts
 * with an empty cache and its first polls wait for the origin). Then
 * --subscribers simulated subscribers (cache-subscribers.ts: one URL each, every URL followed by at
 * least one, the rest by popularity) poll their URL every --poll s (±20 %) for --duration s, with
 * If-None-Match after their first 200, over --connections keep-alive connections to Varnish. A writer
 * PATCHes one of the events those URLs show every --write-every s (0: none) at the service itself,
 * not through the cache, so that some revalidations find a changed answer (a 200, not a 304).
 *
 * Reported: the clients' requests, latency p50/p99/max and statuses; the origin's requests counted by
 * the proxy (200 vs 304, conditional ones, the busiest URL), cross-checked with the service's own
 * /metrics counters; the distinct URLs and max-age windows of the run and the check
 * "origin requests <= distinct URLs x (windows + 1)" (met / NOT met); Varnish's objects and storage
 * bytes (varnishstat, scripts/cache/varnish-stats.ts) beside the origin's measured answer sizes; CPU
 * used by the service, this process and the whole machine. Prints the tables and writes
 * bench/results/cache-<engine>-<time>.json. The exit code is 1 when the check is not met, a client got
 * no answer or another status than 200/304, or the writer failed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startVarnish } from '../cache/varnish.js';
import { findVarnishd, varnishStats, type VarnishStats } from '../cache/varnish-stats.js';
import { BENCH_ADMIN, BENCH_DB_DIR, NAMESPACE_PATH, RESULTS_DIR, ROOT, checkDatabaseUrl, codeFingerprint, cpuMsOf, describeUrl, log, machineBusyMs, parseArgs, pick, printUsageAndExit, rng, round, stopChild, table } from './common.js';
import { assignUrls, runSubscribers, type ClientCounts } from './cache-subscribers.js';
import { answeringUrls, candidateUrls, pagePaths } from './cache-urls.js';
import { startOriginCounter, type OriginCounts } from './origin-counter.js';
import { samplesOf } from './scenarios.js';
import { seedCalendar } from './seed.js';
import { buildService, startAsNpmStart } from './service.js';

const SPEC = {
  cache: 'boolean', subscribers: 'number', urls: 'number', duration: 'number', 'max-age': 'number', poll: 'number', connections: 'number', 'write-every': 'number',
  cold: 'boolean', events: 'number', database: 'string', 'skip-seed': 'boolean', seed: 'number', force: 'boolean', tsx: 'boolean', help: 'boolean',
} as const;

const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;
const REQUEST_TIMEOUT_MS = 30_000;

interface Options {
  subscribers: number;
  urls: number;
  duration: number;
  maxAge: number;
  poll: number;
  connections: number;
  writeEvery: number;
  cold: boolean;
  events: number;
  database: string;
  skipSeed: boolean;
  seed: number;
  force: boolean;
  tsx: boolean;
}

function options(argv: string[]): Options {
  const args = parseArgs(argv, SPEC);
  if (args.help) printUsageAndExit(import.meta.url);
  const number = (name: keyof typeof SPEC, fallback: number, min: number, max: number) => {
    const value = Number(args[name] ?? fallback);
    if (!(value >= min && value <= max)) throw new Error(`--${name} must be ${min} to ${max}, got ${args[name]}`);
    return value;
  };
  const events = number('events', 10_000, 100, 1_000_000);
  const database = String(args.database ?? `sqlite:${path.relative(ROOT, path.join(BENCH_DB_DIR, `cache-${events}.sqlite`))}`);
  checkDatabaseUrl(database);
  return {
    subscribers: number('subscribers', 1000, 1, 100_000),
    urls: number('urls', 300, 1, 5000),
    duration: number('duration', 60, 5, 3600),
    maxAge: number('max-age', 10, 1, 3600),
    poll: number('poll', 5, 0.1, 3600),
    connections: number('connections', 200, 1, 1024),
    writeEvery: number('write-every', 5, 0, 3600),
    cold: Boolean(args.cold),
    events,
    database,
    skipSeed: Boolean(args['skip-seed']),
    seed: Number(args.seed ?? 42),
    force: Boolean(args.force),
    tsx: Boolean(args.tsx),
  };
}

// ---------------------------------------------------------------------------------------------
// The verdict (exported for scripts/bench/test/cache.test.ts)

/** The value at quantile q of an ascending list (nearest rank); undefined for an empty list. */
export function percentile(sorted: number[], q: number): number | undefined {
  if (!sorted.length) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export interface WindowCheck {
  distinctUrls: number;
  /** max-age windows the run spans: ceil(duration / max-age). */
  windows: number;
  /** Origin fetches a purge would add (PURGE_URL): none in this benchmark, which sends no PURGE. */
  revalidations: number;
  bound: number;
  originRequests: number;
  met: boolean;
  /** The URL the origin was asked most for, and how often; at most windows + 1 each when the cache does its work. */
  busiestUrl?: { url: string; requests: number };
  perUrlMet: boolean;
}

/**
 * "At most one origin request per distinct URL per max-age window": a URL is fetched when first asked,
 * then again at most once each time its copy expires (the clients meanwhile get the stored copy, or
 * during stale-while-revalidate the stale one while one background fetch runs), so over `windows`
 * windows at most windows + 1 times. A write does not add a fetch without PURGE_URL: it only makes the
 * next revalidation a 200 instead of a 304.
 */
export function windowCheck(perUrl: Map<string, number>, durationSeconds: number, maxAgeSeconds: number, revalidations = 0): WindowCheck {
  const windows = Math.ceil(durationSeconds / maxAgeSeconds);
  const distinctUrls = perUrl.size;
  let originRequests = 0;
  let busiestUrl: WindowCheck['busiestUrl'];
  for (const [url, requests] of perUrl) {
    originRequests += requests;
    if (!busiestUrl || requests > busiestUrl.requests) busiestUrl = { url, requests };
  }
  const bound = distinctUrls * (windows + 1) + revalidations;
  return { distinctUrls, windows, revalidations, bound, originRequests, met: originRequests <= bound, busiestUrl, perUrlMet: (busiestUrl?.requests ?? 0) <= windows + 1 };
}

/**
 * The origin requests the capacity model (docs/caching.md "Capacity") predicts: a URL asked r times a
 * second is fetched, then served from the cache for max-age seconds, then fetched at the next request
 * after that: r / (1 + r x max-age) fetches a second (exact for requests at random times, a TTL
 * cache's renewal rate), at most 1 / max-age however many ask. Summed over the URLs, r being the
 * URL's subscribers / the poll period, over the run's duration.
 */
export function modelOriginRequests(subscribersPerUrl: Iterable<number>, pollSeconds: number, durationSeconds: number, maxAgeSeconds: number): number {
  let total = 0;
  for (const subscribers of subscribersPerUrl) {
    const rate = subscribers / pollSeconds;
    total += (durationSeconds * rate) / (1 + rate * maxAgeSeconds);
  }
  return total;
}

/** The sum of `http_requests_total` in a Prometheus text exposition, leaving out the operations `skip` names (the scrapes) and the methods `skipMethods` names. */
export function requestsTotal(text: string, skip: { operations?: string[]; methods?: string[] } = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^http_requests_total\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (skip.operations?.includes(labels.operation) || skip.methods?.includes(labels.method)) continue;
    sum += Number(match[2]);
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------
// The writer

interface WriterResult {
  sent: number;
  errors: string[];
  patched: number[];
}

/** PATCHes one of `eventIds` (a new title) every `everySeconds` at the service itself, until stopped. */
function startWriter(serviceBase: string, eventIds: number[], everySeconds: number, random: () => number): { stop(): Promise<WriterResult> } {
  const result: WriterResult = { sent: 0, errors: [], patched: [] };
  const pending = new Set<Promise<void>>();
  const write = () => {
    const id = pick(random, eventIds);
    result.sent++;
    const sent = fetch(`${serviceBase}${NAMESPACE_PATH}/events/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: AUTH },
      body: JSON.stringify({ title: `Cache bench ${result.sent} ${Math.floor(random() * 1e9).toString(36)}` }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
      .then(async (res) => {
        const text = await res.text();
        if (res.ok) result.patched.push(id);
        else result.errors.push(`PATCH /events/${id} -> ${res.status} ${text.slice(0, 200)}`);
      })
      .catch((err: unknown) => void result.errors.push(`PATCH /events/${id}: ${(err as Error).message}`))
      .finally(() => pending.delete(sent));
    pending.add(sent);
  };
  const timer = everySeconds > 0 && eventIds.length ? setInterval(write, everySeconds * 1000) : undefined;
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return result;
    },
  };
}

// ---------------------------------------------------------------------------------------------

async function scrapeRequests(serviceBase: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${serviceBase}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
    // The scrapes themselves and the writer's PATCHes (sent to the service directly) are not the cache's requests.
    return requestsTotal(text, { operations: ['metrics'], methods: ['PATCH'] });
  } catch {
    return undefined;
  }
}

/** The Cache-Control the service gives an anonymous GET of `url`: without a public one, Varnish stores nothing. */
async function cacheControlOf(serviceBase: string, url: string): Promise<string> {
  const res = await fetch(serviceBase + url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  await res.arrayBuffer();
  return res.headers.get('cache-control') ?? '(none)';
}

interface Run {
  /** The priming pass (each URL once through Varnish before the clock starts), unless --cold. */
  priming?: { fetched: number; notOk: number; originRequests: number };
  urls: string[];
  dropped: Array<{ url: string; status: number | string }>;
  subscriberUrls: string[];
  cacheControl: Record<string, string>;
  client: ClientCounts;
  origin: OriginCounts;
  metricsRequests?: number;
  writer: WriterResult;
  varnish: { stats?: VarnishStats; error?: string };
  usage: { seconds: number; serviceCores?: number; varnishCores?: number; loadGeneratorCores: number; machineCores?: number };
}

export async function cacheBench(argv: string[]): Promise<void> {
  const opts = options(argv);
  const started = new Date();
  fs.mkdirSync(BENCH_DB_DIR, { recursive: true });
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  if (!opts.tsx && !buildService()) opts.tsx = true;
  if (!opts.skipSeed) await seedCalendar({ events: opts.events, databaseUrl: opts.database, seed: opts.seed, force: opts.force });
  const { engine, samples } = await samplesOf(opts.database);
  const service = await startAsNpmStart(opts.database, opts.tsx, (env) => {
    for (const name of ['CACHE_STALE_SECONDS', 'CACHE_NOT_FOUND_MAX_AGE', 'PURGE_URL', 'METRICS_TOKEN']) delete env[name];
    env.METRICS = 'on';
    env.CACHE_MAX_AGE = String(opts.maxAge);
  });
  const servicePort = Number(new URL(service.base).port);
  const counter = await startOriginCounter(servicePort);
  let varnish: Awaited<ReturnType<typeof startVarnish>> | undefined;
  let run: Run;
  try {
    varnish = await startVarnish({ backendPort: counter.port });
    log(`varnish on ${varnish.url} -> counting proxy on 127.0.0.1:${counter.port} -> service ${service.base}`);
    const random = rng(opts.seed);
    const candidates = candidateUrls(samples, await pagePaths(service.base), opts.urls, opts.seed);
    const { ok, dropped } = await answeringUrls(service.base, candidates.urls);
    if (dropped.length) log(`${dropped.length} URLs left out (not a 200 at the service): ${dropped.slice(0, 5).map((d) => `${d.url} ${d.status}`).join(', ')}`);
    const urls = ok.slice(0, opts.urls);
    const cacheControl: Record<string, string> = {};
    for (const url of [urls.find((u) => u.endsWith('.ics')), urls.find((u) => u.startsWith('/event/')), urls.find((u) => u.includes('/events?'))]) {
      if (url) cacheControl[url] = await cacheControlOf(service.base, url);
    }
    if (!Object.values(cacheControl).some((value) => /\bpublic\b/.test(value))) log(`!!! the service's answers are not public (${JSON.stringify(cacheControl)}): Varnish will store nothing`);
    const subscriberUrls = assignUrls(urls, opts.subscribers, random);
    const writeTargets = candidates.eventIds;

    // The cache as in production: each URL fetched once through it before the clock starts (counted
    // apart), so that the run measures the steady state; --cold starts from an empty cache instead,
    // where the first polls wait for the origin and any one URL's first requests must collapse into one fetch.
    counter.reset();
    let priming: Run['priming'];
    if (!opts.cold) {
      const primed = await answeringUrls(varnish.url, urls);
      priming = { fetched: urls.length, notOk: primed.dropped.length, originRequests: counter.counts.requests };
      log(`cache primed: ${urls.length} URLs through Varnish, ${priming.originRequests} origin requests${primed.dropped.length ? `, ${primed.dropped.length} not 200` : ''}`);
      counter.reset();
    }
    const metricsBefore = await scrapeRequests(service.base);
    const serviceCpu = cpuMsOf(service.child.pid);
    const varnishd = findVarnishd(varnish.port);
    const varnishCpu = () => varnishd?.pids.reduce<number | undefined>((sum, pid) => (sum === undefined ? undefined : (cpuMsOf(pid) ?? 0) + sum), 0);
    const varnishCpuBefore = varnishCpu();
    const machineBefore = machineBusyMs();
    const selfBefore = process.cpuUsage();
    const clock = performance.now();
    log(`${opts.subscribers} subscribers on ${urls.length} URLs, polling every ${opts.poll} s for ${opts.duration} s over ${opts.connections} connections; CACHE_MAX_AGE=${opts.maxAge}; a PATCH every ${opts.writeEvery || '-'} s`);
    const writer = startWriter(service.base, writeTargets, opts.writeEvery, random);
    const client = await runSubscribers({ base: varnish.url, urls: subscriberUrls, pollSeconds: opts.poll, durationSeconds: opts.duration, connections: opts.connections, timeoutMs: REQUEST_TIMEOUT_MS, random, progress: log });
    log('the subscribers are done; waiting for the writer');
    const written = await writer.stop();
    const seconds = (performance.now() - clock) / 1000;
    const self = process.cpuUsage(selfBefore);
    const cores = (before: number | undefined, after: number | undefined) => (before === undefined || after === undefined ? undefined : round((after - before) / 1000 / seconds, 2));
    const usage = { seconds: round(seconds, 1), serviceCores: cores(serviceCpu, cpuMsOf(service.child.pid)), varnishCores: cores(varnishCpuBefore, varnishCpu()), loadGeneratorCores: round((self.user + self.system) / 1e6 / seconds, 2), machineCores: cores(machineBefore, machineBusyMs()) };
    const origin = counter.counts;
    const metricsAfter = await scrapeRequests(service.base);
    const stats = varnishd ? varnishStats(varnishd.workDir) : { error: `no varnishd started by this process listens on ${varnish.port}` };
    run = {
      priming,
      urls,
      dropped,
      subscriberUrls,
      cacheControl,
      client,
      origin,
      metricsRequests: metricsBefore === undefined || metricsAfter === undefined ? undefined : metricsAfter - metricsBefore,
      writer: written,
      varnish: stats,
      usage,
    };
  } finally {
    await varnish?.stop();
    await counter.close();
    await stopChild(service.child);
  }
  report(opts, started, engine, run);
}

function report(opts: Options, started: Date, engine: string, run: Run): void {
  const { client, origin } = run;
  const check = windowCheck(origin.perUrl, opts.duration, opts.maxAge);
  const at = (list: number[], q: number) => round(percentile(list, q) ?? NaN, 1);
  const sizes = [...origin.sizes.values()];
  const meanSize = sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : undefined;
  const stats = run.varnish.stats;
  const storage = stats?.storageBytes.s0;
  const subscribersPerUrl = new Map<string, number>();
  for (const url of run.subscriberUrls) subscribersPerUrl.set(url, (subscribersPerUrl.get(url) ?? 0) + 1);
  const mostFollowed = Math.max(...subscribersPerUrl.values());
  const otherStatuses = Object.entries(client.byStatus).filter(([status]) => status !== '200' && status !== '304');
  const summary = {
    clientRequests: client.requests,
    clientPerSecond: round(client.requests / client.seconds, 1),
    clientLatencyMs: { p50: at(client.latenciesMs, 0.5), p99: at(client.latenciesMs, 0.99), max: at(client.latenciesMs, 1) },
    clientLaterLatencyMs: { p50: at(client.laterLatenciesMs, 0.5), p99: at(client.laterLatenciesMs, 0.99), max: at(client.laterLatenciesMs, 1) },
    clientStatuses: client.byStatus,
    clientConditional: client.conditional,
    clientErrors: client.errors,
    originRequests: origin.requests,
    originPerSecond: round(origin.requests / client.seconds, 2),
    originStatuses: origin.byStatus,
    originConditional: origin.conditional,
    originFailures: origin.failures,
    metricsRequests: run.metricsRequests,
    check,
    modelOriginRequests: Math.round(modelOriginRequests(subscribersPerUrl.values(), opts.poll, opts.duration, opts.maxAge)),
    meanAnswerBytes: meanSize === undefined ? undefined : Math.round(meanSize),
    originBytesOfDistinctUrls: sizes.reduce((a, b) => a + b, 0),
    varnish: stats ? { objects: stats.objects, storageBytes: stats.storageBytes, cacheHit: stats.cacheHit, cacheHitGrace: stats.cacheHitGrace, cacheMiss: stats.cacheMiss, backendRequests: stats.backendRequests, clientRequests: stats.clientRequests } : { error: run.varnish.error },
    writes: { sent: run.writer.sent, patched: run.writer.patched.length, errors: run.writer.errors.length },
    usage: run.usage,
  };
  const kb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${round(bytes / 1024, 1)} KB`);
  const lines = [
    `Cache: ${opts.subscribers} subscribers on ${run.urls.length} URLs (most followed: ${mostFollowed} subscribers), polling every ${opts.poll} s ±20 % for ${opts.duration} s over ${opts.connections} connections; CACHE_MAX_AGE=${opts.maxAge}; ${describeUrl(opts.database)} (${engine}); code ${codeFingerprint()}`,
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, load average ${os.loadavg().map((l) => round(l, 2)).join(' ')}; during the run: service ${run.usage.serviceCores ?? '-'} cores, Varnish ${run.usage.varnishCores ?? '-'}, load generator ${run.usage.loadGeneratorCores}, whole machine ${run.usage.machineCores ?? '-'}`,
    run.priming
      ? `cache primed before the run: ${run.priming.fetched} URLs fetched once through Varnish (${run.priming.originRequests} origin requests, not counted below)`
      : 'cold start (--cold): the run began with an empty cache',
    `service's Cache-Control: ${Object.entries(run.cacheControl).map(([url, value]) => `${url.replace(NAMESPACE_PATH, '')} "${value}"`).join('; ')}`,
    '',
    table(
      ['clients (at Varnish)', 'value'],
      [
        ['requests (req/s)', `${client.requests} (${summary.clientPerSecond})`],
        ['of which with If-None-Match', client.conditional],
        ['200 / 304', `${client.byStatus['200'] ?? 0} / ${client.byStatus['304'] ?? 0}`],
        ['other statuses / no answer', `${otherStatuses.map(([s, n]) => `${s}: ${n}`).join(', ') || 0} / ${client.errors}`],
        ['latency p50 / p99 / max ms', `${summary.clientLatencyMs.p50} / ${summary.clientLatencyMs.p99} / ${summary.clientLatencyMs.max}`],
        ["the same without each subscriber's first poll (warm cache)", `${summary.clientLaterLatencyMs.p50} / ${summary.clientLaterLatencyMs.p99} / ${summary.clientLaterLatencyMs.max}`],
        ['most requests in flight (beyond the connections they wait in the pool)', client.maxInFlight],
        ['Varnish CPU ms per client request', run.usage.varnishCores === undefined || !client.requests ? '-' : round((run.usage.varnishCores * run.usage.seconds * 1000) / client.requests, 3)],
      ],
    ),
    '',
    table(
      ['origin (counted by the proxy before the service)', 'value'],
      [
        ['requests (req/s)', `${origin.requests} (${summary.originPerSecond})`],
        ['200 / 304', `${origin.byStatus['200'] ?? 0} / ${origin.byStatus['304'] ?? 0}`],
        ['other statuses / not forwarded', `${Object.entries(origin.byStatus).filter(([s]) => s !== '200' && s !== '304').map(([s, n]) => `${s}: ${n}`).join(', ') || 0} / ${origin.failures}`],
        ['conditional (revalidations)', origin.conditional],
        ["the service's /metrics (GETs, scrapes left out)", run.metricsRequests ?? '-'],
        ['the capacity model predicted (docs/caching.md "Capacity")', summary.modelOriginRequests],
        ['service CPU ms per origin request', run.usage.serviceCores === undefined || !origin.requests ? '-' : round((run.usage.serviceCores * run.usage.seconds * 1000) / origin.requests, 1)],
        ['client requests per origin request', origin.requests ? round(client.requests / origin.requests, 1) : '-'],
        ['writes (PATCH at the service) sent / ok / failed', `${run.writer.sent} / ${run.writer.patched.length} / ${run.writer.errors.length}`],
      ],
    ),
    '',
    table(
      ['check', 'value', 'met'],
      [
        [
          'origin requests <= distinct URLs x (windows + 1) + revalidations',
          `${check.originRequests} <= ${check.distinctUrls} x (${check.windows} + 1) + ${check.revalidations} = ${check.bound}`,
          check.met ? 'met' : 'NOT met',
        ],
        ['each URL: origin requests <= windows + 1', `busiest ${check.busiestUrl ? `${check.busiestUrl.url.replace(NAMESPACE_PATH, '')}: ${check.busiestUrl.requests}` : '-'} <= ${check.windows + 1}`, check.perUrlMet ? 'met' : 'NOT met'],
      ],
    ),
    `(windows = ceil(${opts.duration} s / ${opts.maxAge} s); revalidations = fetches a PURGE would add: 0, this run sends none; a write only turns a later 304 into a 200)`,
    '',
    table(
      ['cache size', 'value'],
      [
        ['distinct URLs fetched / mean answer (origin 200 bodies)', `${origin.sizes.size} / ${kb(meanSize)}`],
        ['their bodies together', kb(summary.originBytesOfDistinctUrls)],
        ['Varnish objects (MAIN.n_object)', stats?.objects ?? `- (${run.varnish.error})`],
        ['Varnish storage (SMA.s0.g_bytes) / per object', stats ? `${kb(storage)} / ${stats.objects ? kb((storage ?? 0) / stats.objects) : '-'}` : '-'],
        ['Varnish transient storage (SMA.Transient.g_bytes)', kb(stats?.storageBytes.Transient)],
        ["Varnish's own word: hits / grace hits / misses / backend requests", stats ? `${stats.cacheHit ?? '-'} / ${stats.cacheHitGrace ?? '-'} / ${stats.cacheMiss ?? '-'} / ${stats.backendRequests ?? '-'}` : '-'],
      ],
    ),
  ];
  const text = lines.join('\n');
  const file = path.join(RESULTS_DIR, `cache-${engine}-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const json = {
    mode: 'cache',
    started: started.toISOString(),
    finished: new Date().toISOString(),
    code: codeFingerprint(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverage: os.loadavg().map((l) => round(l, 2)) },
    options: { ...opts, database: describeUrl(opts.database) },
    priming: run.priming,
    summary,
    cacheControl: run.cacheControl,
    urls: run.urls.map((url) => ({ url, subscribers: subscribersPerUrl.get(url) ?? 0, originRequests: origin.perUrl.get(url) ?? 0, bytes: origin.sizes.get(url) })),
    dropped: run.dropped,
    writerErrors: run.writer.errors.slice(0, 50),
    originFailures: origin.failureReasons,
    clientErrors: client.errorReasons,
  };
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`\n${text}\n\nresults: ${path.relative(ROOT, file)}\n`);
  const problems = [
    !check.met && 'THE ORIGIN SAW MORE THAN ONE REQUEST PER URL PER WINDOW',
    client.errors && `${client.errors} CLIENT REQUESTS WITHOUT AN ANSWER (${client.errorReasons[0]})`,
    otherStatuses.length && `CLIENT STATUSES OTHER THAN 200/304: ${otherStatuses.map(([s, n]) => `${s}: ${n}`).join(', ')}`,
    run.writer.errors.length && `${run.writer.errors.length} WRITES FAILED (${run.writer.errors[0]})`,
  ].filter(Boolean);
  if (problems.length) {
    process.stdout.write(`\n!!! ${problems.join('; ')} !!!\n`);
    process.exitCode = 1;
  }
}
