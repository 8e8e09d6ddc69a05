import net from 'node:net';

/** One request as the fake cache saw it. */
export interface CacheRequest {
  method: string;
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The status answered, or null when the request was left without an answer. */
  status: number | null;
}

/**
 * A fake HTTP cache for the purger's tests (cache/purger.ts): a small server on 127.0.0.1 that records
 * the method, path and headers of every request, and answers 200, or fails as told: a status for
 * the next N requests, or no answer at all (the purger's timeout). Plain TCP with its own reading of
 * the request head: Node's HTTP server refuses methods it does not know, such as BAN, with a 400.
 */
export class CacheReceiver {
  readonly requests: CacheRequest[] = [];
  private failures: Array<number | 'hang'> = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly waiters = new Set<() => void>();
  private server!: net.Server;
  url = '';

  static async start(): Promise<CacheReceiver> {
    const receiver = new CacheReceiver();
    receiver.server = net.createServer((socket) => receiver.accept(socket));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as net.AddressInfo).port}`;
    return receiver;
  }

  /** The next requests fail, one by one: a status, or `hang` (never answered). */
  failNext(...failures: Array<number | 'hang'>): void {
    this.failures.push(...failures);
  }

  /** The X-Ban-Url patterns of the BANs acknowledged (answered 200) from request number `from` on. */
  acknowledgedBans(from = 0): string[] {
    return this.requests
      .slice(from)
      .filter((request) => request.method === 'BAN' && request.status === 200)
      .map((request) => String(request.headers['x-ban-url']));
  }

  /** Resolves once `test` holds (checked after every request), rejecting after `timeoutMs`. */
  waitFor(test: () => boolean, timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!test()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`the fake cache did not see what was awaited within ${timeoutMs} ms; it saw ${JSON.stringify(this.requests.map((r) => [r.method, r.path, r.status]))}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Reads request heads (the purger's requests have no body) and answers each. */
  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
        const head = buffered.slice(0, end).split('\r\n');
        buffered = buffered.slice(end + 4);
        const [method = '', path = ''] = head[0].split(' ');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const colon = line.indexOf(':');
          if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        this.answer(socket, method, path, headers);
      }
    });
  }

  private answer(socket: net.Socket, method: string, path: string, headers: Record<string, string>): void {
    const failure = this.failures.shift();
    const request: CacheRequest = { method, path, headers, status: failure === 'hang' ? null : (failure ?? 200) };
    this.requests.push(request);
    if (request.status !== null) {
      const body = request.status === 200 ? 'Ban added' : 'failed';
      socket.write(`HTTP/1.1 ${request.status} X\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    }
    for (const wake of [...this.waiters]) wake();
  }
}
