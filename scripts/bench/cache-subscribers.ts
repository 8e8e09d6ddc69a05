/**
 * The simulated calendar subscribers of the cache benchmark (cache.ts). A subscriber is not a socket:
 * it is one URL and a timer. Each polls its URL every --poll seconds (±20 % jitter, as calendar apps
 * spread their refreshes), sends If-None-Match with the ETag of its last 200 from its second fetch on,
 * and its requests share one pool of keep-alive connections (--connections) to the cache, as many
 * clients behind a few proxies would. A subscriber waits for its answer before its next poll is due.
 */
import http from 'node:http';

export interface SubscriberRun {
  /** The cache's base URL (http://127.0.0.1:PORT). */
  base: string;
  /** One URL (path and query) per subscriber. */
  urls: string[];
  pollSeconds: number;
  durationSeconds: number;
  connections: number;
  timeoutMs: number;
  random: () => number;
  /** Called every 10 s with a progress line. */
  progress?: (line: string) => void;
}

export interface ClientCounts {
  requests: number;
  byStatus: Record<string, number>;
  /** Requests sent with If-None-Match. */
  conditional: number;
  /** No answer (refused, reset, or none within the timeout). */
  errors: number;
  /** Why, for the first few. */
  errorReasons: string[];
  /** Latency of every answered request, ms, ascending (send to last byte, queueing in the pool included). */
  latenciesMs: number[];
  /** The same for the polls after each subscriber's first: the cache is warm for them (the first ones wait for the origin's first answers). */
  laterLatenciesMs: number[];
  seconds: number;
  /** Most requests in flight at once (beyond `connections` they wait in the pool). */
  maxInFlight: number;
}

/**
 * Which URL each subscriber follows: every URL at least once (when there are as many subscribers),
 * the rest by popularity, the URL of rank r drawn with weight 1/r (Zipf), as a few calendars have
 * most of the subscribers. The ranks are the order of `urls`, shuffled first so that no kind of URL
 * is always the most popular.
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
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    out.push(ranked[lo]);
  }
  return out;
}

/** Runs the subscribers for `durationSeconds` (no poll starts after that) and waits for their last answers. */
export async function runSubscribers(run: SubscriberRun): Promise<ClientCounts> {
  // Idle connections are closed after 4 s, before Varnish closes them (its timeout_idle is 5 s): a
  // request sent on a connection the cache is closing at that moment would fail without an answer.
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.connections, maxFreeSockets: run.connections, timeout: 4000 });
  const target = new URL(run.base);
  const counts: ClientCounts = { requests: 0, byStatus: {}, conditional: 0, errors: 0, errorReasons: [], latenciesMs: [], laterLatenciesMs: [], seconds: 0, maxInFlight: 0 };
  const started = performance.now();
  const end = started + run.durationSeconds * 1000;
  const period = run.pollSeconds * 1000;
  let inFlight = 0;

  const fetchOnce = (url: string, etag: string | undefined, later: boolean): Promise<string | undefined> =>
    new Promise((resolve) => {
      const sent = performance.now();
      counts.requests++;
      if (etag) counts.conditional++;
      inFlight++;
      counts.maxInFlight = Math.max(counts.maxInFlight, inFlight);
      let settled = false;
      const settle = (status: number | undefined, nextEtag: string | undefined, reason?: string) => {
        if (settled) return;
        settled = true;
        inFlight--;
        if (status === undefined) {
          counts.errors++;
          if (counts.errorReasons.length < 5) counts.errorReasons.push(`${url}: ${reason}`);
        }
        else {
          counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
          const ms = performance.now() - sent;
          counts.latenciesMs.push(ms);
          if (later) counts.laterLatenciesMs.push(ms);
        }
        resolve(nextEtag);
      };
      const req = http.request({ host: target.hostname, port: target.port, path: url, method: 'GET', agent, headers: etag ? { 'if-none-match': etag } : {} }, (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const given = res.headers.etag;
          // A 200 brings the version to ask about next time; a 304 confirms the one held.
          settle(status, status === 200 && given ? given : status === 304 ? etag : undefined);
        });
        res.on('error', (err) => settle(undefined, etag, err.message));
      });
      req.setTimeout(run.timeoutMs, () => req.destroy(new Error('timeout')));
      req.on('error', (err) => settle(undefined, etag, err.message));
      req.end();
    });

  const subscriber = async (url: string): Promise<void> => {
    let due = started + run.random() * period;
    let etag: string | undefined;
    for (let polls = 0; ; polls++) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (performance.now() >= end) return;
      etag = await fetchOnce(url, etag, polls > 0);
      due += period * (0.8 + 0.4 * run.random());
    }
  };

  let shown = 0;
  const ticker = setInterval(() => {
    const elapsed = (performance.now() - started) / 1000;
    // The latency of the answers since the last line: a cold start, a stall, or a steady state.
    const recent = counts.latenciesMs.slice(shown).sort((a, b) => a - b);
    shown = counts.latenciesMs.length;
    const at = (q: number) => (recent.length ? recent[Math.min(recent.length - 1, Math.floor(q * recent.length))].toFixed(1) : '-');
    run.progress?.(`${elapsed.toFixed(0)} s: ${counts.requests} requests, ${inFlight} in flight, ${counts.errors} without an answer; the last 10 s: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
  }, 10_000);
  try {
    await Promise.all(run.urls.map(subscriber));
  } finally {
    clearInterval(ticker);
  }
  counts.seconds = (performance.now() - started) / 1000;
  counts.latenciesMs.sort((a, b) => a - b);
  counts.laterLatenciesMs.sort((a, b) => a - b);
  agent.destroy();
  return counts;
}
