/**
 * The cache benchmark's URLs and report (cache.ts): the public URLs its subscribers follow, what
 * calendar apps, search engines and embedding sites read anonymously: about 40 % one-event `.ics`
 * feeds, 10 % `/events.ics` (whole, and by category, tag, venue, organizer), 5 % `/events.jsonld`, 25 %
 * public pages and 20 % API reads. Each is checked once at the service: only those answering 200 are kept.
 */
import * as c from './common.js';
import { send } from './load.js';
import type { Samples } from './scenarios.js';
import { modelOriginRequests, windowCheck, type Options, type Run } from './cache.js';

/** The candidate URLs, `count` of them and distinct, with the ids of the events they name (the writer patches those). */
export function candidateUrls(samples: Samples, extra: { categoryPages: string[]; tagSlugs: string[]; venueSlugs: string[] }, count: number, seed: number): { urls: string[]; eventIds: number[] } {
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
    const filters = ['', `?categories=${encodeURIComponent(pick(samples.categorySlugs))}`, `?tags=${pick(samples.tagIds)}`, `?venue=${pick(samples.venueIds)}`, `?organizer=${pick(samples.organizerIds)}`, '?featured=1'];
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
      status.set(url, await send(base, { path: url }, { timeoutMs: 60_000 }).then((a) => a.status, (err: Error) => err.message));
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return { ok: urls.filter((url) => status.get(url) === 200), dropped: urls.filter((url) => status.get(url) !== 200).map((url) => ({ url, status: status.get(url) ?? '?' })) };
}

export interface Prepared {
  urls: string[];
  eventIds: number[];
  dropped: Array<{ url: string; status: number | string }>;
  /** The Cache-Control the service gives an anonymous GET of a feed, a page, a list: without a public one, Varnish stores nothing. */
  cacheControl: Record<string, string>;
}

/** The URLs of the run: term and venue pages' paths from the service (a child category's page lives under its ancestors' slugs), the candidates, those answering 200. */
export async function prepareUrls(base: string, samples: Samples, count: number, seed: number): Promise<Prepared> {
  const list = async (collection: string) => {
    const answer = await send(base, { path: c.api(`/${collection}?per_page=50`) });
    if (answer.status !== 200) throw new Error(`GET /${collection} -> ${answer.status}`);
    return ((JSON.parse(answer.body) as Record<string, Array<{ url?: string; slug?: string }>>)[collection] ?? []).filter((x) => x.url && x.slug);
  };
  const [categories, tags, venues] = [await list('categories'), await list('tags'), await list('venues')];
  const extra = { categoryPages: categories.map((x) => new URL(x.url!).pathname), tagSlugs: tags.map((x) => x.slug!), venueSlugs: venues.map((x) => x.slug!) };
  const candidates = candidateUrls(samples, extra, count, seed);
  const { ok, dropped } = await answeringUrls(base, candidates.urls);
  if (dropped.length) c.log(`${dropped.length} URLs left out (not a 200 at the service): ${dropped.slice(0, 5).map((d) => `${d.url} ${d.status}`).join(', ')}`);
  const urls = ok.slice(0, count);
  const cacheControl: Record<string, string> = {};
  for (const url of [urls.find((u) => u.endsWith('.ics')), urls.find((u) => u.startsWith('/event/')), urls.find((u) => u.includes('/events?'))]) {
    if (url) cacheControl[url] = String((await send(base, { path: url })).headers['cache-control'] ?? '(none)');
  }
  if (!Object.values(cacheControl).some((value) => /\bpublic\b/.test(value))) c.log(`!!! the service's answers are not public (${JSON.stringify(cacheControl)}): Varnish will store nothing`);
  return { urls, eventIds: candidates.eventIds, dropped, cacheControl };
}

export function report(opts: Options, started: Date, engine: string, run: Run): void {
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
  const perRequest = (cores: number | undefined, requests: number, digits: number) => (cores === undefined || !requests ? '-' : c.round((cores * usage.seconds * 1000) / requests, digits));
  const storage = stats?.storageBytes.s0;
  const lines = [
    `Cache: ${opts.subscribers} subscribers on ${run.urls.length} URLs (most followed: ${Math.max(...subscribersPerUrl.values())} subscribers), polling every ${opts.poll} s for ${opts.duration} s over ${opts.connections} connections; CACHE_MAX_AGE=${opts.maxAge}; ${c.describeUrl(opts.database)} (${engine}); code ${c.codeFingerprint()}`,
    `machine: ${c.machine().cpus} x ${c.machine().cpuModel}, load average ${c.machine().loadAverage.join(' ')}; during the run: service ${usage.serviceCores ?? '-'} cores, Varnish ${usage.varnishCores ?? '-'}, load generator ${usage.loadGeneratorCores}, whole machine ${usage.machineCores ?? '-'}`,
    run.priming ? `cache primed before the run: ${run.priming.fetched} URLs fetched once through Varnish (${run.priming.originRequests} origin requests, not counted below)` : 'cold start (--cold): the run began with an empty cache',
    `service's Cache-Control: ${Object.entries(run.cacheControl).map(([url, value]) => `${url.replace(c.NAMESPACE_PATH, '')} "${value}"`).join('; ')}`,
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
        ['other statuses / not forwarded', `${others(origin.byStatus).map(([s, n]) => `${s}: ${n}`).join(', ') || 0} / ${origin.failures}`],
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
        ['origin requests <= distinct URLs x (windows + 1) + revalidations', `${check.originRequests} <= ${check.distinctUrls} x (${check.windows} + 1) + ${check.revalidations} = ${check.bound}`, check.met ? 'met' : 'NOT met'],
        ['each URL: origin requests <= windows + 1', `busiest ${check.busiestUrl ? `${check.busiestUrl.url.replace(c.NAMESPACE_PATH, '')}: ${check.busiestUrl.requests}` : '-'} <= ${check.windows + 1}`, check.perUrlMet ? 'met' : 'NOT met'],
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
        ["Varnish's own word: hits / grace hits / misses / backend requests", stats ? `${stats.cacheHit ?? '-'} / ${stats.cacheHitGrace ?? '-'} / ${stats.cacheMiss ?? '-'} / ${stats.backendRequests ?? '-'}` : '-'],
      ],
    ),
  ];
  const urls = run.urls.map((url) => ({ url, subscribers: subscribersPerUrl.get(url) ?? 0, originRequests: origin.perUrl.get(url) ?? 0, bytes: origin.sizes.get(url) }));
  const json = { mode: 'cache', options: { ...opts, database: c.describeUrl(opts.database) }, priming: run.priming, summary, cacheControl: run.cacheControl, urls, dropped: run.dropped };
  c.writeResults(`cache-${engine}-`, started, { ...json, writerErrors: run.writer.errors.slice(0, 50), originFailures: origin.failureReasons, clientErrors: client.errorReasons }, lines.join('\n'));
  c.failOn([
    !check.met && 'THE ORIGIN SAW MORE THAN ONE REQUEST PER URL PER WINDOW',
    client.errors && `${client.errors} CLIENT REQUESTS WITHOUT AN ANSWER (${client.errorReasons[0]})`,
    otherStatuses.length && `CLIENT STATUSES OTHER THAN 200/304: ${otherStatuses.map(([s, n]) => `${s}: ${n}`).join(', ')}`,
    run.writer.errors.length && `${run.writer.errors.length} WRITES FAILED (${run.writer.errors[0]})`,
  ]);
}
