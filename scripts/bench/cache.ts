/**
 * `npm run bench -- --cache`: calendar subscribers polling public URLs through Varnish, and what the
 * ORIGIN saw (docs/caching.md "Capacity").
 *
 *   npm run bench -- --cache [--subscribers 1000] [--urls 300] [--duration 60] [--max-age 10]
 *                    [--poll 5] [--connections 200] [--write-every 5] [--cold] [--events 10000]
 *                    [--database URL] [--skip-seed] [--seed 42] [--force] [--tsx]
 *
 * client -> Varnish (the project's VCL) -> a counting proxy -> the service (CACHE_MAX_AGE=--max-age).
 * --urls public URLs (cache-urls.ts) are fetched once through Varnish unless --cold; --subscribers poll
 * one each every --poll s with If-None-Match, open-loop over --connections keep-alive connections, while
 * a writer PATCHes one of the events shown every --write-every s at the service itself. The exit code is
 * 1 when "origin requests <= distinct URLs x (windows + 1)" is not met, a client got no answer or another
 * status than 200/304, or the writer failed.
 */
import http from 'node:http';
import { startVarnish } from '../cache/varnish.js';
import { findVarnishd, varnishStats, type VarnishStats } from '../cache/varnish-stats.js';
import * as c from './common.js';
import { openLoop, send, type BenchRequest } from './load.js';
import { samplesOf, type Samples } from './scenarios.js';
import { seedCalendar } from './seed.js';
import { answeringUrls, prepareUrls, report, type Prepared } from './cache-urls.js';

const SPEC = {
  cache: ['boolean'],
  subscribers: ['number', 1000, 1, 100_000],
  urls: ['number', 300, 1, 5000],
  duration: ['number', 60, 5, 3600],
  'max-age': ['number', 10, 1, 3600],
  poll: ['number', 5, 0.1, 3600],
  connections: ['number', 200, 1, 1024],
  'write-every': ['number', 5, 0, 3600],
  cold: ['boolean'],
  events: ['number', 10_000, 100, 1_000_000],
  database: ['string', (o) => c.defaultSqliteUrl(`cache-${o.events}`)],
  'skip-seed': ['boolean'],
  seed: ['number', 42],
  force: ['boolean'],
  tsx: ['boolean'],
} satisfies c.Spec;

export type Options = c.Options<typeof SPEC>;

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
 * then at most once each time its copy expires, so over `windows` windows at most windows + 1 times.
 * A write adds no fetch without PURGE_URL: it only makes the next revalidation a 200 instead of a 304.
 */
export function windowCheck(perUrl: Map<string, number>, durationSeconds: number, maxAgeSeconds: number, revalidations = 0): WindowCheck {
  const windows = Math.ceil(durationSeconds / maxAgeSeconds);
  let originRequests = 0;
  let busiestUrl: WindowCheck['busiestUrl'];
  for (const [url, requests] of perUrl) {
    originRequests += requests;
    if (!busiestUrl || requests > busiestUrl.requests) busiestUrl = { url, requests };
  }
  const bound = perUrl.size * (windows + 1) + revalidations;
  return { distinctUrls: perUrl.size, windows, revalidations, bound, originRequests, met: originRequests <= bound, busiestUrl, perUrlMet: (busiestUrl?.requests ?? 0) <= windows + 1 };
}

/**
 * The origin requests the capacity model (docs/caching.md "Capacity") predicts: a URL asked r times a
 * second is fetched r / (1 + r x max-age) times a second (a TTL cache's renewal rate for requests at
 * random times), r being its subscribers / the poll period; summed over the URLs, over the run.
 */
export function modelOriginRequests(subscribersPerUrl: Iterable<number>, pollSeconds: number, durationSeconds: number, maxAgeSeconds: number): number {
  let total = 0;
  for (const subscribers of subscribersPerUrl) total += (durationSeconds * (subscribers / pollSeconds)) / (1 + (subscribers / pollSeconds) * maxAgeSeconds);
  return total;
}

/** The sum of `http_requests_total` in a Prometheus text exposition, leaving out the operations and methods `skip` names. */
export function requestsTotal(text: string, skip: { operations?: string[]; methods?: string[] } = {}): number {
  let sum = 0;
  for (const match of text.matchAll(/^http_requests_total\{([^}]*)\}\s+(\S+)/gm)) {
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!skip.operations?.includes(labels.operation) && !skip.methods?.includes(labels.method)) sum += Number(match[2]);
  }
  return sum;
}

/**
 * Which URL each subscriber follows: every URL once (when there are as many subscribers), the rest by
 * popularity, the URL of rank r drawn with weight 1/r (Zipf); the ranks are `urls` shuffled first.
 */
export function assignUrls(urls: string[], subscribers: number, random: () => number): string[] {
  if (urls.length === 0) throw new Error('no URLs to subscribe to');
  const ranked = [...urls];
  for (let i = ranked.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ranked[i], ranked[j]] = [ranked[j], ranked[i]];
  }
  const out = ranked.slice(0, Math.min(subscribers, ranked.length));
  const cumulative: number[] = [];
  let total = 0;
  for (let r = 1; r <= ranked.length; r++) cumulative.push((total += 1 / r));
  while (out.length < subscribers) {
    const x = random() * total;
    let [lo, hi] = [0, cumulative.length - 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    out.push(ranked[lo]);
  }
  return out;
}

/** What the origin saw, as counted by the proxy. */
export interface OriginCounts {
  requests: number;
  /** Requests carrying If-None-Match or If-Modified-Since (the cache revalidating a stored answer). */
  conditional: number;
  byStatus: Record<string, number>;
  perUrl: Map<string, number>;
  /** Body bytes of each URL's last 200 answer (the size the cache stores for it); kept by `reset()`. */
  sizes: Map<string, number>;
  /** Requests the proxy could not forward (answered 502), and why for the first few. */
  failures: number;
  failureReasons: string[];
}

/** A counting HTTP proxy on a free port in front of the service at `targetPort`: forwards every request unchanged and counts what the ORIGIN was asked. */
export async function startOriginCounter(targetPort: number): Promise<{ port: number; counts: OriginCounts; reset(): void; close(): Promise<void> }> {
  const empty = (sizes = new Map<string, number>()): OriginCounts => ({ requests: 0, conditional: 0, byStatus: {}, perUrl: new Map(), sizes, failures: 0, failureReasons: [] });
  let counts = empty();
  // A new connection to the service for each request: a kept-alive one the service closes after its idle timeout, just as the proxy reuses it, fails the request.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 64 });
  const server = http.createServer((req, res) => {
    const [url, seen] = [req.url ?? '/', counts];
    seen.requests++;
    seen.perUrl.set(url, (seen.perUrl.get(url) ?? 0) + 1);
    if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) seen.conditional++;
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: url, headers: req.headers, agent }, (answer) => {
      const status = answer.statusCode ?? 0;
      seen.byStatus[status] = (seen.byStatus[status] ?? 0) + 1;
      let bytes = 0;
      answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
      answer.on('end', () => status === 200 && req.method === 'GET' && seen.sizes.set(url, bytes));
      // Without the hop-by-hop headers, which describe the proxy's own connection to the service.
      const headers = answer.rawHeaders.flatMap((v, i, all) => (i % 2 === 0 && !/^(connection|keep-alive)$/i.test(v) ? [v, all[i + 1]] : []));
      res.writeHead(status, headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      seen.failures++;
      if (seen.failureReasons.length < 5) seen.failureReasons.push(`${req.method} ${url}: ${err.message}`);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`origin counter: ${err.message}\n`);
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get counts() {
      return counts;
    },
    reset: () => void (counts = empty(counts.sizes)),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), agent.destroy(), server.close(() => resolve()))),
  };
}

export interface ClientCounts {
  requests: number;
  byStatus: Record<string, number>;
  conditional: number;
  /** No answer (refused, reset, or none within the timeout), and why for the first few. */
  errors: number;
  errorReasons: string[];
  /** Latency of every answered request, ms, ascending; and of the polls after each subscriber's first (a warm cache). */
  latenciesMs: number[];
  laterLatenciesMs: number[];
  seconds: number;
  skipped: number;
}

/**
 * The subscribers: one URL each, polled every `poll` s in a shuffled round (subscribers/poll requests a
 * second, open-loop) with If-None-Match after the first 200; a subscriber whose answer has not come
 * skips its turn. Their requests share `connections` keep-alive connections, as clients behind a few proxies.
 */
async function runSubscribers(base: string, urls: string[], o: Options): Promise<ClientCounts> {
  const counts: ClientCounts = { requests: 0, byStatus: {}, conditional: 0, errors: 0, errorReasons: [], latenciesMs: [], laterLatenciesMs: [], seconds: 0, skipped: 0 };
  const subscribers = urls.map((url) => ({ url, etag: undefined as string | undefined, busy: false, polls: 0 }));
  let next = 0;
  type Req = BenchRequest & { who: (typeof subscribers)[number] };
  const done = (who: Req['who']) => ((who.busy = false), who.polls++);
  const loop = openLoop<Req>({
    base,
    rate: subscribers.length / o.poll,
    seconds: o.duration,
    connections: o.connections,
    maxInFlight: Infinity,
    request: () => {
      const who = subscribers[next++ % subscribers.length];
      if (who.busy) return void counts.skipped++;
      who.busy = true;
      counts.requests++;
      if (who.etag) counts.conditional++;
      return { path: who.url, headers: who.etag ? { 'if-none-match': who.etag } : undefined, who };
    },
    onAnswer: ({ status, headers, ms }, { who }) => {
      counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
      counts.latenciesMs.push(ms);
      if (who.polls > 0) counts.laterLatenciesMs.push(ms);
      // A 200 brings the version to ask about next time; a 304 confirms the one held.
      if (status === 200) who.etag = typeof headers.etag === 'string' ? headers.etag : undefined;
      else if (status !== 304) who.etag = undefined;
      done(who);
    },
    onError: (err, { who, path }) => {
      counts.errors++;
      if (counts.errorReasons.length < 5) counts.errorReasons.push(`${path}: ${err.message}`);
      done(who);
    },
  });
  const result = await loop.done;
  counts.seconds = result.seconds;
  counts.latenciesMs.sort((a, b) => a - b);
  counts.laterLatenciesMs.sort((a, b) => a - b);
  return counts;
}

export interface Run extends Prepared {
  priming?: { fetched: number; notOk: number; originRequests: number };
  subscriberUrls: string[];
  client: ClientCounts;
  origin: OriginCounts;
  metricsRequests?: number;
  writer: { sent: number; patched: number; errors: string[] };
  varnish: { stats?: VarnishStats; error?: string };
  usage: { seconds: number; serviceCores?: number; varnishCores?: number; loadGeneratorCores: number; machineCores?: number };
}

/** The service's requests in /metrics, leaving out the scrapes and the writer's PATCHes (sent to the service directly). */
const scrapeRequests = (base: string) =>
  send(base, { path: '/metrics' }).then(
    (a) => requestsTotal(a.body, { operations: ['metrics'], methods: ['PATCH'] }),
    () => undefined,
  );

export async function main(argv: string[]): Promise<void> {
  const opts = c.options(argv, SPEC, import.meta.url);
  c.checkDatabaseUrl(opts.database);
  const started = new Date();
  if (!opts.tsx && !c.buildService()) opts.tsx = true;
  if (!opts.skipSeed) await seedCalendar({ events: opts.events, databaseUrl: opts.database, seed: opts.seed, force: opts.force });
  const { engine, samples } = await samplesOf(opts.database);
  const service = await c.startService(opts.database, {
    tsx: opts.tsx,
    env: (env) => {
      for (const name of ['CACHE_STALE_SECONDS', 'CACHE_NOT_FOUND_MAX_AGE', 'PURGE_URL', 'METRICS_TOKEN']) delete env[name];
      Object.assign(env, { METRICS: 'on', CACHE_MAX_AGE: String(opts.maxAge) });
    },
  });
  const counter = await startOriginCounter(Number(new URL(service.base).port));
  let varnish: Awaited<ReturnType<typeof startVarnish>> | undefined;
  let run: Run;
  try {
    varnish = await startVarnish({ backendPort: counter.port });
    c.log(`varnish on ${varnish.url} -> counting proxy on 127.0.0.1:${counter.port} -> service ${service.base}`);
    run = await measure(opts, service, samples, varnish, counter);
  } finally {
    await varnish?.stop();
    await counter.close();
    await c.stopChild(service.child);
  }
  report(opts, started, engine, run);
}

async function measure(o: Options, service: { child: c.Child; base: string }, samples: Samples, varnish: { url: string; port: number }, counter: Awaited<ReturnType<typeof startOriginCounter>>): Promise<Run> {
  const random = c.rng(o.seed);
  const prepared = await prepareUrls(service.base, samples, o.urls, o.seed);
  const subscriberUrls = assignUrls(prepared.urls, o.subscribers, random);
  // As in production, each URL is fetched once through the cache before the clock starts (counted apart);
  // --cold starts from an empty cache, where any one URL's first requests must collapse into one fetch.
  counter.reset();
  let priming: Run['priming'];
  if (!o.cold) {
    const primed = await answeringUrls(varnish.url, prepared.urls);
    priming = { fetched: prepared.urls.length, notOk: primed.dropped.length, originRequests: counter.counts.requests };
    c.log(`cache primed: ${prepared.urls.length} URLs through Varnish, ${priming.originRequests} origin requests${priming.notOk ? `, ${priming.notOk} not 200` : ''}`);
    counter.reset();
  }
  const metricsBefore = await scrapeRequests(service.base);
  const varnishd = findVarnishd(varnish.port);
  const varnishCpu = () => varnishd?.pids.reduce<number | undefined>((sum, pid) => (sum === undefined ? undefined : (c.cpuMsOf(pid) ?? 0) + sum), 0);
  const before = { service: c.cpuMsOf(service.child.pid), varnish: varnishCpu(), machine: c.machineBusyMs(), self: process.cpuUsage(), at: performance.now() };
  c.log(`${o.subscribers} subscribers on ${prepared.urls.length} URLs, polling every ${o.poll} s for ${o.duration} s over ${o.connections} connections; CACHE_MAX_AGE=${o.maxAge}; a PATCH every ${o.writeEvery || '-'} s`);
  const writer = { sent: 0, patched: 0, errors: [] as string[] };
  const writes = o.writeEvery > 0 && prepared.eventIds.length ? openLoop({
    base: service.base,
    rate: 1 / o.writeEvery,
    request: () => ({ method: 'PATCH', path: c.api(`/events/${c.pick(random, prepared.eventIds)}`), headers: c.JSON_WRITE, body: JSON.stringify({ title: `Cache bench ${++writer.sent} ${Math.floor(random() * 1e9).toString(36)}` }) }),
    onAnswer: (a, req) => (a.status < 300 ? writer.patched++ : writer.errors.push(`PATCH ${req.path} -> ${a.status} ${a.body.slice(0, 200)}`)),
    onError: (err, req) => void writer.errors.push(`PATCH ${req.path}: ${err.message}`),
  }) : undefined;
  const client = await runSubscribers(varnish.url, subscriberUrls, o);
  await writes?.stop();
  const seconds = (performance.now() - before.at) / 1000;
  const self = process.cpuUsage(before.self);
  const cores = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : c.round((b - a) / 1000 / seconds, 2));
  const usage = { seconds: c.round(seconds, 1), serviceCores: cores(before.service, c.cpuMsOf(service.child.pid)), varnishCores: cores(before.varnish, varnishCpu()), loadGeneratorCores: c.round((self.user + self.system) / 1e6 / seconds, 2), machineCores: cores(before.machine, c.machineBusyMs()) };
  const origin = counter.counts;
  const metricsAfter = await scrapeRequests(service.base);
  const stats = varnishd ? varnishStats(varnishd.workDir) : { error: `no varnishd started by this process listens on ${varnish.port}` };
  return { ...prepared, priming, subscriberUrls, client, origin, metricsRequests: metricsBefore === undefined || metricsAfter === undefined ? undefined : metricsAfter - metricsBefore, writer, varnish: stats, usage };
}
