import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An iCalendar feed on 127.0.0.1 for the subscription tests (docs/importing.md "Subscribing to a
 * calendar"): each path serves the text set for it with an `ETag` (its SHA-256) and `Last-Modified`,
 * answers 304 to a matching `If-None-Match`, or answers the status set with `fail`. Every request is
 * kept with its conditional headers.
 */
export interface IcsServer {
  origin: string;
  /** What `path` serves from now on. */
  serve(path: string, text: string): void;
  /** `path` answers this status (with no calendar) from now on. */
  fail(path: string, status: number): void;
  /** The next request of `path` waits for `release()`; `arrived` resolves when it has come. */
  hold(path: string): { arrived: Promise<void>; release(): void };
  requests: Array<{ path: string; ifNoneMatch?: string; ifModifiedSince?: string; status: number }>;
  close(): Promise<void>;
}

export async function startIcsServer(): Promise<IcsServer> {
  const feeds = new Map<string, { text: string; etag: string } | { status: number }>();
  const requests: IcsServer['requests'] = [];
  const holds = new Map<string, { arrived: () => void; released: Promise<void> }>();
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const held = holds.get(path);
    if (held) {
      holds.delete(path);
      held.arrived();
      await held.released;
    }
    const feed = feeds.get(path);
    const seen = { path, ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'] };
    let status: number;
    if (!feed) status = 404;
    else if ('status' in feed) status = feed.status;
    else if (req.headers['if-none-match'] === feed.etag) status = 304;
    else status = 200;
    requests.push({ ...seen, status });
    if (status !== 200 || !feed || !('text' in feed)) {
      res.writeHead(status, feed && 'etag' in feed ? { etag: feed.etag } : {});
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', etag: feed.etag, 'last-modified': 'Sun, 29 Nov 2026 10:00:00 GMT' });
    res.end(feed.text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    serve: (path, text) => feeds.set(path, { text, etag: `"${crypto.createHash('sha256').update(text).digest('hex').slice(0, 16)}"` }),
    fail: (path, status) => feeds.set(path, { status }),
    hold(path) {
      let arrived!: () => void;
      let release!: () => void;
      const came = new Promise<void>((resolve) => (arrived = resolve));
      holds.set(path, { arrived, released: new Promise<void>((resolve) => (release = resolve)) });
      return { arrived: came, release };
    },
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
