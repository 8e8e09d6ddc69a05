/**
 * A counting HTTP proxy for the cache benchmark (cache.ts): it sits between the cache (Varnish) and
 * the service, forwards every request unchanged over keep-alive connections, and counts what the
 * ORIGIN was asked: requests per URL, statuses, conditional requests (If-None-Match or
 * If-Modified-Since, i.e. the cache revalidating) and the size of each URL's last full answer. The
 * cache's own statistics say what the cache believes it did; this says what the service saw.
 * Only 127.0.0.1 is contacted.
 */
import http from 'node:http';

/** What the origin saw, as counted by the proxy. */
export interface OriginCounts {
  requests: number;
  /** Requests carrying If-None-Match or If-Modified-Since (the cache revalidating a stored answer). */
  conditional: number;
  byStatus: Record<string, number>;
  /** Requests per URL (path and query, as the cache sent them). */
  perUrl: Map<string, number>;
  /** Body bytes of each URL's last 200 answer (the size the cache stores for it). */
  sizes: Map<string, number>;
  /** Requests the proxy could not forward (the service refused or did not answer, or the cache hung up first): answered 502. */
  failures: number;
  /** Why, for the first few. */
  failureReasons: string[];
}

export interface OriginCounter {
  port: number;
  counts: OriginCounts;
  /** Starts the counts afresh (after the URLs were checked, before the load); the sizes are kept. */
  reset(): void;
  close(): Promise<void>;
}

/** The answer's headers without the hop-by-hop ones, which describe the proxy's own connection to the service. */
function endToEnd(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!/^(connection|keep-alive)$/i.test(raw[i])) out.push(raw[i], raw[i + 1]);
  return out;
}

function emptyCounts(): OriginCounts {
  return { requests: 0, conditional: 0, byStatus: {}, perUrl: new Map(), sizes: new Map(), failures: 0, failureReasons: [] };
}

/** Starts the proxy on a free port of 127.0.0.1, in front of the service at `targetPort`. */
export async function startOriginCounter(targetPort: number): Promise<OriginCounter> {
  const counter = { counts: emptyCounts() };
  // A new connection to the service for each request: the origin sees few requests, and a kept-alive
  // connection the service closes after its idle timeout, just as the proxy reuses it, fails the request.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 64 });
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const counts = counter.counts;
    counts.requests++;
    counts.perUrl.set(url, (counts.perUrl.get(url) ?? 0) + 1);
    if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) counts.conditional++;
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: url, headers: req.headers, agent }, (answer) => {
      const status = answer.statusCode ?? 0;
      counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
      let bytes = 0;
      answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
      answer.on('end', () => {
        if (status === 200 && req.method === 'GET') counts.sizes.set(url, bytes);
      });
      res.writeHead(status, endToEnd(answer.rawHeaders));
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      counts.failures++;
      if (counts.failureReasons.length < 5) counts.failureReasons.push(`${req.method} ${url}: ${err.message}`);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`origin counter: ${err.message}\n`);
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    get counts() {
      return counter.counts;
    },
    reset() {
      // The sizes describe what the cache holds, not what was counted: they outlive a reset.
      const sizes = counter.counts.sizes;
      counter.counts = { ...emptyCounts(), sizes };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
