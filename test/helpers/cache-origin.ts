import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * The service as the origin behind a shared cache, for the cache tests (test/cache/): a real
 * listening server that records every request reaching it, so a test counts what the cache let
 * through by the origin's own account.
 */

/** The Host every request carries, through the cache and directly, so that absolute URLs in bodies agree. */
export const HOST = 'calendar.test';

export interface Seen {
  method: string;
  url: string;
  ifNoneMatch?: string;
  status?: number;
}

/** The service on a port of its own, recording every request it gets; `failing` answers 500 instead. */
export class Origin {
  readonly seen: Seen[] = [];
  failing = false;
  private readonly server: http.Server;

  constructor(app: Express) {
    this.server = http.createServer((req, res) => {
      const seen: Seen = { method: req.method ?? '', url: req.url ?? '', ifNoneMatch: req.headers['if-none-match'] };
      this.seen.push(seen);
      res.on('finish', () => (seen.status = res.statusCode));
      if (!this.failing) return app(req, res);
      res.writeHead(500, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ code: 'test_failure', message: 'Failing on purpose.', data: { status: 500 } }));
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise((resolve) => this.server.close(resolve));
    // Caches keep their connections to the origin open.
    this.server.closeAllConnections();
    await closed;
  }

  /** How many requests for `url` (path and query) reached the service. */
  count(url: string): number {
    return this.seen.filter((seen) => seen.url === url).length;
  }
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request with node:http (fetch adds `Cache-Control: no-cache` beside If-None-Match, and cannot
 * choose its source address).
 */
export function send(base: string, method: string, path: string, headers: Record<string, string> = {}, options: { body?: string; localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, headers: { Host: HOST, ...headers }, localAddress: options.localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The one fixed-time wait of the tests (the cache's max-ages are time itself); see helpers/wait.ts. */
export { sleep } from './wait.js';
