/**
 * `npm run bench -- --cache`: calendar subscribers polling public URLs through Varnish, and what the
 * ORIGIN saw (docs/caching.md "Capacity").
 *
 *   npm run bench -- --cache [options]
 *
 * client -> Varnish (the project's VCL) -> a counting proxy -> the service (CACHE_MAX_AGE=--max-age).
 * --urls public URLs (candidateUrls below) are fetched once through Varnish unless --cold; --subscribers poll
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

type Options = c.Options<typeof SPEC>;

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
  return {
    distinctUrls: perUrl.size,
    windows,
    revalidations,
    bound,
    originRequests,
    met: originRequests <= bound,
    busiestUrl,
    perUrlMet: (busiestUrl?.requests ?? 0) <= windows + 1,
  };
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
    const rank = cumulative.findIndex((sum) => sum >= x);
    out.push(ranked[rank === -1 ? ranked.length - 1 : rank]);
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

type Run = Awaited<ReturnType<typeof measure>>;

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

async function measure(
  o: Options,
  service: { child: c.Child; base: string },
  samples: Samples,
  varnish: { url: string; port: number },
  counter: Awaited<ReturnType<typeof startOriginCounter>>,
) {
  const random = c.rng(o.seed);
  const prepared = await prepareUrls(service.base, samples, o.urls, o.seed);
  const subscriberUrls = assignUrls(prepared.urls, o.subscribers, random);
  // As in production, each URL is fetched once through the cache before the clock starts (counted apart);
  // --cold starts from an empty cache, where any one URL's first requests must collapse into one fetch.
  counter.reset();
  let priming: { fetched: number; notOk: number; originRequests: number } | undefined;
  if (!o.cold) {
    const primed = await answeringUrls(varnish.url, prepared.urls);
    priming = { fetched: prepared.urls.length, notOk: primed.dropped.length, originRequests: counter.counts.requests };
    c.log(`cache primed: ${prepared.urls.length} URLs through Varnish, ${priming.originRequests} origin requests${priming.notOk ? `, ${priming.notOk} not 200` : ''}`);
    counter.reset();
  }
  const metricsBefore = await scrapeRequests(service.base);
  const varnishd = findVarnishd(varnish.port);
  const varnishCpu = () => varnishd?.pids.reduce<number | undefined>((sum, pid) => (sum === undefined ? undefined : (c.cpuMsOf(pid) ?? 0) + sum), 0);
  const meter = c.usageMeter(service.child.pid);
  const before = { varnish: varnishCpu(), self: process.cpuUsage() };
  c.log(
    `${o.subscribers} subscribers on ${prepared.urls.length} URLs, polling every ${o.poll} s for ${o.duration} s over ${o.connections} connections; CACHE_MAX_AGE=${o.maxAge}; a PATCH every ${o.writeEvery || '-'} s`,
  );
  const writer = { sent: 0, patched: 0, errors: [] as string[] };
  const writes =
    o.writeEvery > 0 && prepared.eventIds.length
      ? openLoop({
          base: service.base,
          rate: 1 / o.writeEvery,
          request: () => ({
            method: 'PATCH',
            path: c.api(`/events/${c.pick(random, prepared.eventIds)}`),
            headers: c.JSON_WRITE,
            body: JSON.stringify({ title: `Cache bench ${++writer.sent} ${Math.floor(random() * 1e9).toString(36)}` }),
          }),
          onAnswer: (a, req) => (a.status < 300 ? writer.patched++ : writer.errors.push(`PATCH ${req.path} -> ${a.status} ${a.body.slice(0, 200)}`)),
          onError: (err, req) => void writer.errors.push(`PATCH ${req.path}: ${err.message}`),
        })
      : undefined;
  const client = await runSubscribers(varnish.url, subscriberUrls, o);
  await writes?.stop();
  const [{ seconds, serviceCores, machineCores }, self, varnishMs] = [meter(), process.cpuUsage(before.self), varnishCpu()];
  const usage = {
    seconds,
    serviceCores,
    varnishCores: before.varnish === undefined || varnishMs === undefined ? undefined : c.round((varnishMs - before.varnish) / 1000 / seconds, 2),
    loadGeneratorCores: c.round((self.user + self.system) / 1e6 / seconds, 2),
    machineCores,
  };
  const origin = counter.counts;
  const metricsAfter = await scrapeRequests(service.base);
  const stats: { stats?: VarnishStats; error?: string } = varnishd ? varnishStats(varnishd.workDir) : { error: `no varnishd started by this process listens on ${varnish.port}` };
  return {
    ...prepared,
    priming,
    subscriberUrls,
    client,
    origin,
    metricsRequests: metricsBefore === undefined || metricsAfter === undefined ? undefined : metricsAfter - metricsBefore,
    writer,
    varnish: stats,
    usage,
  };
}

/**
 * The public URLs the subscribers follow, what calendar apps, search engines and embedding sites read
 * anonymously: about 40 % one-event `.ics` feeds, 10 % `/events.ics` (whole, and by category, tag,
 * venue, organizer), 5 % `/events.jsonld`, 25 % public pages and 20 % API reads.
 */
/** The candidate URLs, `count` of them and distinct, with the ids of the events they name (the writer patches those). */
export function candidateUrls(
  samples: Samples,
  extra: { categoryPages: string[]; tagSlugs: string[]; venueSlugs: string[] },
  count: number,
  seed: number,
): { urls: string[]; eventIds: number[] } {
  const random = c.rng(seed);
  const pick = <T>(items: T[]) => c.pick(random, items);
  const urls = new Set<string>();
  const eventIds = new Set<number>();
  const share = (fraction: number) => Math.max(1, Math.round(count * fraction));
  /** Adds URLs made by `make` until `n` more are in (or it keeps repeating itself). */
  const add = (n: number, make: (i: number) => string | undefined) => {
    const target = urls.size + n;
    for (let i = 0, misses = 0; urls.size < target && misses < 50; i++) {
      const url = make(i);
      if (url === undefined || urls.has(url)) misses++;
      else urls.add(url);
    }
  };
  const event = () => {
    const e = pick(samples.events);
    eventIds.add(e.id);
    return e;
  };
  add(share(0.4), () => c.api(`/events/${event().id}.ics`));
  add(share(0.1), (i) => {
    const filters = [
      '',
      `?categories=${encodeURIComponent(pick(samples.categorySlugs))}`,
      `?tags=${pick(samples.tagIds)}`,
      `?venue=${pick(samples.venueIds)}`,
      `?organizer=${pick(samples.organizerIds)}`,
      '?featured=1',
    ];
    return c.api(`/events.ics${filters[i % filters.length]}`);
  });
  add(share(0.05), (i) => c.api(`/events.jsonld${i === 0 ? '' : `?categories=${encodeURIComponent(pick(samples.categorySlugs))}`}`));
  // Public pages (docs/contract.md §13).
  add(share(0.25), (i) => {
    if (i % 10 === 0) return i < 50 ? `/events/${i === 0 ? '' : `?page=${1 + i / 10}`}` : `/event/${event().slug}/`;
    if (i % 10 === 1) return extra.categoryPages.length ? pick(extra.categoryPages) : undefined;
    if (i % 10 === 2) return extra.tagSlugs.length ? `/tag/${pick(extra.tagSlugs)}/` : undefined;
    if (i % 10 === 3) return extra.venueSlugs.length ? `/venue/${pick(extra.venueSlugs)}/` : undefined;
    return `/event/${event().slug}/`;
  });
  // API reads, as websites embedding the calendar make them.
  add(count - urls.size, (i) => {
    if (i % 8 === 0) return c.api(`/events?categories=${encodeURIComponent(pick(samples.categorySlugs))}`);
    if (i % 8 === 1) return c.api(`/events?page=${1 + Math.floor(random() * 5)}`);
    if (i % 8 === 2) return c.api(`/events?venue=${pick(samples.venueIds)}`);
    if (i % 8 === 3) return c.api(['/categories', '/tags', '/venues', '/organizers', '/events'][Math.floor(random() * 5)]);
    return c.api(`/events/${event().id}`);
  });
  // A small calendar repeats its lists and terms: more one-event feeds make up the count.
  add(count - urls.size, () => c.api(`/events/${event().id}.ics`));
  return { urls: [...urls], eventIds: [...eventIds] };
}

/** The URLs that answer 200 (four at a time), and the others with their status. */
export async function answeringUrls(base: string, urls: string[]): Promise<{ ok: string[]; dropped: Array<{ url: string; status: number | string }> }> {
  const status = new Map<string, number | string>();
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++];
      status.set(
        url,
        await send(base, { path: url }, { timeoutMs: 60_000 }).then(
          (a) => a.status,
          (err: Error) => err.message,
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return { ok: urls.filter((url) => status.get(url) === 200), dropped: urls.filter((url) => status.get(url) !== 200).map((url) => ({ url, status: status.get(url) ?? '?' })) };
}

interface Prepared {
  urls: string[];
  eventIds: number[];
  dropped: Array<{ url: string; status: number | string }>;
  /** The Cache-Control the service gives an anonymous GET of a feed, a page, a list: without a public one, Varnish stores nothing. */
  cacheControl: Record<string, string>;
}

/** The URLs of the run: term and venue pages' paths from the service (a child category's page lives under its ancestors' slugs), the candidates, those answering 200. */
async function prepareUrls(base: string, samples: Samples, count: number, seed: number): Promise<Prepared> {
  const list = async (collection: string) => {
    const answer = await send(base, { path: c.api(`/${collection}?per_page=50`) });
    if (answer.status !== 200) throw new Error(`GET /${collection} -> ${answer.status}`);
    return ((JSON.parse(answer.body) as Record<string, Array<{ url?: string; slug?: string }>>)[collection] ?? []).filter((x) => x.url && x.slug);
  };
  const [categories, tags, venues] = [await list('categories'), await list('tags'), await list('venues')];
  const extra = { categoryPages: categories.map((x) => new URL(x.url!).pathname), tagSlugs: tags.map((x) => x.slug!), venueSlugs: venues.map((x) => x.slug!) };
  const candidates = candidateUrls(samples, extra, count, seed);
  const { ok, dropped } = await answeringUrls(base, candidates.urls);
  if (dropped.length)
    c.log(
      `${dropped.length} URLs left out (not a 200 at the service): ${dropped
        .slice(0, 5)
        .map((d) => `${d.url} ${d.status}`)
        .join(', ')}`,
    );
  const urls = ok.slice(0, count);
  const cacheControl: Record<string, string> = {};
  for (const url of [urls.find((u) => u.endsWith('.ics')), urls.find((u) => u.startsWith('/event/')), urls.find((u) => u.includes('/events?'))]) {
    if (url) cacheControl[url] = String((await send(base, { path: url })).headers['cache-control'] ?? '(none)');
  }
  if (!Object.values(cacheControl).some((value) => /\bpublic\b/.test(value)))
    c.log(`!!! the service's answers are not public (${JSON.stringify(cacheControl)}): Varnish will store nothing`);
  return { urls, eventIds: candidates.eventIds, dropped, cacheControl };
}

function report(opts: Options, started: Date, engine: string, run: Run): void {
  const { client, origin, usage } = run;
  const check = windowCheck(origin.perUrl, opts.duration, opts.maxAge);
  const q = (list: number[]) => c.quantiles(list);
  const sizes = [...origin.sizes.values()];
  const meanSize = sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : undefined;
  const stats = run.varnish.stats;
  const subscribersPerUrl = new Map<string, number>();
  for (const url of run.subscriberUrls) subscribersPerUrl.set(url, (subscribersPerUrl.get(url) ?? 0) + 1);
  const others = (byStatus: Record<string, number>) => Object.entries(byStatus).filter(([status]) => status !== '200' && status !== '304');
  const otherStatuses = others(client.byStatus);
  const summary = {
    clientRequests: client.requests,
    clientPerSecond: c.round(client.requests / client.seconds, 1),
    clientLatencyMs: q(client.latenciesMs),
    clientLaterLatencyMs: q(client.laterLatenciesMs),
    clientStatuses: client.byStatus,
    clientConditional: client.conditional,
    clientErrors: client.errors,
    clientSkipped: client.skipped,
    originRequests: origin.requests,
    originPerSecond: c.round(origin.requests / client.seconds, 2),
    originStatuses: origin.byStatus,
    originConditional: origin.conditional,
    originFailures: origin.failures,
    metricsRequests: run.metricsRequests,
    check,
    modelOriginRequests: Math.round(modelOriginRequests(subscribersPerUrl.values(), opts.poll, opts.duration, opts.maxAge)),
    meanAnswerBytes: meanSize === undefined ? undefined : Math.round(meanSize),
    originBytesOfDistinctUrls: sizes.reduce((a, b) => a + b, 0),
    varnish: stats ?? { error: run.varnish.error },
    writes: { sent: run.writer.sent, patched: run.writer.patched, errors: run.writer.errors.length },
    usage,
  };
  const kb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${c.round(bytes / 1024, 1)} KB`);
  const lat = (l: ReturnType<typeof c.quantiles>) => `${l.p50} / ${l.p99} / ${l.max}`;
  const perRequest = (cores: number | undefined, requests: number, digits: number) =>
    cores === undefined || !requests ? '-' : c.round((cores * usage.seconds * 1000) / requests, digits);
  const storage = stats?.storageBytes.s0;
  const lines = [
    `Cache: ${opts.subscribers} subscribers on ${run.urls.length} URLs (most followed: ${Math.max(...subscribersPerUrl.values())} subscribers), polling every ${opts.poll} s for ${opts.duration} s over ${opts.connections} connections; CACHE_MAX_AGE=${opts.maxAge}; ${c.describeUrl(opts.database)} (${engine}); code ${c.codeFingerprint()}`,
    `machine: ${c.machine().cpus} x ${c.machine().cpuModel}, load average ${c.machine().loadAverage.join(' ')}; during the run: service ${usage.serviceCores ?? '-'} cores, Varnish ${usage.varnishCores ?? '-'}, load generator ${usage.loadGeneratorCores}, whole machine ${usage.machineCores ?? '-'}`,
    run.priming
      ? `cache primed before the run: ${run.priming.fetched} URLs fetched once through Varnish (${run.priming.originRequests} origin requests, not counted below)`
      : 'cold start (--cold): the run began with an empty cache',
    `service's Cache-Control: ${Object.entries(run.cacheControl)
      .map(([url, value]) => `${url.replace(c.NAMESPACE_PATH, '')} "${value}"`)
      .join('; ')}`,
    '',
    c.table(
      ['clients (at Varnish)', 'value'],
      [
        ['requests (req/s)', `${client.requests} (${summary.clientPerSecond})`],
        ['of which with If-None-Match', client.conditional],
        ['200 / 304', `${client.byStatus['200'] ?? 0} / ${client.byStatus['304'] ?? 0}`],
        ['other statuses / no answer', `${otherStatuses.map(([s, n]) => `${s}: ${n}`).join(', ') || 0} / ${client.errors}`],
        ['latency p50 / p99 / max ms', lat(summary.clientLatencyMs)],
        ["the same without each subscriber's first poll (warm cache)", lat(summary.clientLaterLatencyMs)],
        ['polls skipped (the subscriber still waiting for its last answer)', client.skipped],
        ['Varnish CPU ms per client request', perRequest(usage.varnishCores, client.requests, 3)],
      ],
    ),
    '',
    c.table(
      ['origin (counted by the proxy before the service)', 'value'],
      [
        ['requests (req/s)', `${origin.requests} (${summary.originPerSecond})`],
        ['200 / 304', `${origin.byStatus['200'] ?? 0} / ${origin.byStatus['304'] ?? 0}`],
        [
          'other statuses / not forwarded',
          `${
            others(origin.byStatus)
              .map(([s, n]) => `${s}: ${n}`)
              .join(', ') || 0
          } / ${origin.failures}`,
        ],
        ['conditional (revalidations)', origin.conditional],
        ["the service's /metrics (GETs, scrapes left out)", run.metricsRequests ?? '-'],
        ['the capacity model predicted (docs/caching.md "Capacity")', summary.modelOriginRequests],
        ['service CPU ms per origin request', perRequest(usage.serviceCores, origin.requests, 1)],
        ['client requests per origin request', origin.requests ? c.round(client.requests / origin.requests, 1) : '-'],
        ['writes (PATCH at the service) sent / ok / failed', `${run.writer.sent} / ${run.writer.patched} / ${run.writer.errors.length}`],
      ],
    ),
    '',
    c.table(
      ['check', 'value', 'met'],
      [
        [
          'origin requests <= distinct URLs x (windows + 1) + revalidations',
          `${check.originRequests} <= ${check.distinctUrls} x (${check.windows} + 1) + ${check.revalidations} = ${check.bound}`,
          check.met ? 'met' : 'NOT met',
        ],
        [
          'each URL: origin requests <= windows + 1',
          `busiest ${check.busiestUrl ? `${check.busiestUrl.url.replace(c.NAMESPACE_PATH, '')}: ${check.busiestUrl.requests}` : '-'} <= ${check.windows + 1}`,
          check.perUrlMet ? 'met' : 'NOT met',
        ],
      ],
    ),
    `(windows = ceil(${opts.duration} s / ${opts.maxAge} s); revalidations = fetches a PURGE would add: 0, this run sends none; a write only turns a later 304 into a 200)`,
    '',
    c.table(
      ['cache size', 'value'],
      [
        ['distinct URLs fetched / mean answer (origin 200 bodies)', `${origin.sizes.size} / ${kb(meanSize)}`],
        ['their bodies together', kb(summary.originBytesOfDistinctUrls)],
        ['Varnish objects (MAIN.n_object)', stats?.objects ?? `- (${run.varnish.error})`],
        ['Varnish storage (SMA.s0.g_bytes) / per object', stats ? `${kb(storage)} / ${stats.objects ? kb((storage ?? 0) / stats.objects) : '-'}` : '-'],
        ['Varnish transient storage (SMA.Transient.g_bytes)', kb(stats?.storageBytes.Transient)],
        [
          "Varnish's own word: hits / grace hits / misses / backend requests",
          stats ? `${stats.cacheHit ?? '-'} / ${stats.cacheHitGrace ?? '-'} / ${stats.cacheMiss ?? '-'} / ${stats.backendRequests ?? '-'}` : '-',
        ],
      ],
    ),
  ];
  const urls = run.urls.map((url) => ({ url, subscribers: subscribersPerUrl.get(url) ?? 0, originRequests: origin.perUrl.get(url) ?? 0, bytes: origin.sizes.get(url) }));
  const json = {
    mode: 'cache',
    options: { ...opts, database: c.describeUrl(opts.database) },
    priming: run.priming,
    summary,
    cacheControl: run.cacheControl,
    urls,
    dropped: run.dropped,
  };
  c.writeResults(
    `cache-${engine}-`,
    started,
    { ...json, writerErrors: run.writer.errors.slice(0, 50), originFailures: origin.failureReasons, clientErrors: client.errorReasons },
    lines.join('\n'),
  );
  c.failOn([
    !check.met && 'THE ORIGIN SAW MORE THAN ONE REQUEST PER URL PER WINDOW',
    client.errors && `${client.errors} CLIENT REQUESTS WITHOUT AN ANSWER (${client.errorReasons[0]})`,
    otherStatuses.length && `CLIENT STATUSES OTHER THAN 200/304: ${otherStatuses.map(([s, n]) => `${s}: ${n}`).join(', ')}`,
    run.writer.errors.length && `${run.writer.errors.length} WRITES FAILED (${run.writer.errors[0]})`,
  ]);
}
