import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A real webhook receiver on 127.0.0.1 for the delivery tests (docs/webhooks.md "Messages"). Every
 * endpoint (`/hooks/NAME`) knows the secrets its webhook signs with and verifies EVERY message with the
 * `standardwebhooks` package, as a receiver following the guide would; a message that does not verify
 * is answered 400 and kept in `forged` (tests assert there are none). Accepted messages are kept in
 * order of arrival. Each endpoint can be told to fail the next N messages, to answer slowly, to
 * redirect, or to send an endless answer.
 */

export interface ReceivedMessage {
  endpoint: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: any;
  headers: http.IncomingHttpHeaders;
  /** When the request came (Date.now()). */
  arrivedAt: number;
}

interface Behaviour {
  secrets: string[];
  /** Answer this status to the next N messages (after verifying them). */
  failures: number;
  failStatus: number;
  /** Wait this long before answering. */
  delayMs: number;
  /** Answer 3xx with a Location to another endpoint. */
  redirectTo?: string;
  /** Answer 200 with an answer that never ends (the sender must stop reading). */
  endless: boolean;
}

export class WebhookReceiver {
  /** Messages that verified and were answered 2xx (acknowledged), in order. */
  readonly acknowledged: ReceivedMessage[] = [];
  /** Every message that verified, whatever the answer, in order of arrival. */
  readonly received: ReceivedMessage[] = [];
  /** Requests whose signature did not verify. */
  readonly forged: Array<{ endpoint: string; error: string; headers: http.IncomingHttpHeaders }> = [];
  /** Every request that reached the receiver at all, by endpoint. */
  readonly hits = new Map<string, number>();
  /** The most requests of one endpoint open at once. */
  readonly maxConcurrent = new Map<string, number>();
  /** Bytes of endless answers written before the sender closed the connection, by endpoint. */
  readonly endlessBytes = new Map<string, number>();
  /** TCP connections accepted, whatever came over them (a TLS hello to this plain server included). */
  connections = 0;
  private readonly open = new Map<string, number>();
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly waiters = new Set<() => void>();
  private server!: http.Server;
  port = 0;

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server = http.createServer((req, res) => void receiver.handle(req, res));
    receiver.server.on('connection', () => receiver.connections++);
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  /** Declares an endpoint with the secrets that sign its messages; returns its URL. */
  endpoint(name: string, secrets: string[], host = `127.0.0.1:${this.port}`): string {
    this.behaviours.set(name, { secrets, failures: 0, failStatus: 500, delayMs: 0, endless: false });
    return `http://${host}/hooks/${name}`;
  }

  behave(name: string, change: Partial<Behaviour>): void {
    Object.assign(this.behaviours.get(name)!, change);
  }

  /** Acknowledged messages of one endpoint. */
  of(name: string): ReceivedMessage[] {
    return this.acknowledged.filter((message) => message.endpoint === name);
  }

  /** Waits until `test` holds (checked at every request and every 20 ms). */
  async waitFor(test: () => boolean, timeoutMs = 10_000, what = 'the receiver to see what was expected'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 20);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const endpoint = /^\/hooks\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '';
    this.hits.set(endpoint, (this.hits.get(endpoint) ?? 0) + 1);
    const open = (this.open.get(endpoint) ?? 0) + 1;
    this.open.set(endpoint, open);
    this.maxConcurrent.set(endpoint, Math.max(open, this.maxConcurrent.get(endpoint) ?? 0));
    res.once('close', () => this.open.set(endpoint, (this.open.get(endpoint) ?? 1) - 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const behaviour = this.behaviours.get(endpoint);
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    let json: any;
    try {
      if (!behaviour) throw new Error(`no endpoint ${endpoint}`);
      // A message verifies when one of its signatures matches one of the secrets the endpoint knows.
      json = this.verify(behaviour.secrets, body, headers);
    } catch (err) {
      this.forged.push({ endpoint, error: (err as Error).message, headers: req.headers });
      res.writeHead(400).end();
      return this.wake();
    }
    const message: ReceivedMessage = {
      endpoint,
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      json,
      headers: req.headers,
      arrivedAt,
    };
    this.received.push(message);
    if (behaviour!.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour!.delayMs));
    this.answer(endpoint, behaviour!, message, res);
    this.wake();
  }

  private verify(secrets: string[], body: string, headers: Record<string, string>): any {
    let last: unknown;
    for (const secret of secrets) {
      try {
        return new Webhook(secret).verify(body, headers);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  private answer(endpoint: string, behaviour: Behaviour, message: ReceivedMessage, res: http.ServerResponse): void {
    if (behaviour.failures > 0) {
      behaviour.failures--;
      res.writeHead(behaviour.failStatus, { 'Content-Type': 'text/plain' }).end('not now');
      return;
    }
    if (behaviour.redirectTo !== undefined) {
      res.writeHead(302, { Location: `http://127.0.0.1:${this.port}/hooks/${behaviour.redirectTo}` }).end();
      return;
    }
    if (behaviour.endless) {
      this.acknowledged.push(message);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      let written = 0;
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        this.endlessBytes.set(endpoint, written);
      };
      res.on('drain', pump);
      res.once('close', () => this.endlessBytes.set(endpoint, written));
      pump();
      return;
    }
    this.acknowledged.push(message);
    res.writeHead(204).end();
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }
}
