/**
 * The benchmark's one request loop, used by every mode and probe: a scenario is a request generator,
 * driven either closed-loop (`connections` clients, each sending as soon as its previous request is
 * answered, for `seconds` or `requests` in all: autocannon, in this process) or open-loop (`rate`
 * requests a second on the clock, none waiting for another's answer, as independent clients would).
 * Only 127.0.0.1 is contacted.
 */
import http from 'node:http';
import autocannon from 'autocannon';
import { JSON_WRITE, api, quantiles, round } from './common.js';

export type BenchRequest = { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; headers?: Record<string, string>; body?: string };

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  /** Send to last byte, ms. */
  ms: number;
}

export interface ClosedResult {
  requests: number;
  seconds: number;
  rps: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  kbPerResponse: number;
}

export interface Closed {
  base: string;
  connections: number;
  /** For this long, or until `requests` were sent. */
  seconds?: number;
  requests?: number;
  /** Seconds before a request counts as an error (10 by default). */
  timeout?: number;
  request: () => BenchRequest;
  /** Called with each answer's status and body (the body is read only when this is given). */
  onAnswer?: (status: number, body: string, headers: Record<string, string>) => void;
}

/**
 * A closed loop; `stop()` ends it early. For a time, autocannon drives it; a number of requests (the
 * probes, the service often in this process, where autocannon adds milliseconds to each request) goes
 * over node:http keep-alive connections, one request after another on each.
 */
export function closedLoop(o: Closed): Promise<ClosedResult> & { stop(): void } {
  if (o.requests) return counted(o, o.requests);
  const instance = autocannon({
    url: o.base,
    connections: o.connections,
    duration: o.seconds ?? 10,
    timeout: o.timeout ?? 10,
    requests: [
      {
        setupRequest: (req) => {
          const next = o.request();
          return { ...req, method: next.method ?? 'GET', path: next.path, headers: { ...req.headers, ...next.headers }, body: next.body ?? req.body };
        },
        ...(o.onAnswer ? { onResponse: (status: number, body: string, _c: unknown, headers: Record<string, string>) => o.onAnswer!(status, body, headers) } : {}),
      },
    ],
  });
  const result = instance.then((r): ClosedResult => {
    const requests = r.requests.total;
    return {
      requests,
      seconds: round(r.duration, 2),
      rps: round(requests / r.duration, 1),
      latencyMs: { mean: round(r.latency.average, 2), p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      non2xx: r.non2xx,
      statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, stat]) => [code, Number(stat.count)])),
      errors: r.errors,
      timeouts: r.timeouts,
      kbPerResponse: requests ? round(r.throughput.total / requests / 1024, 2) : 0,
    };
  });
  return Object.assign(result, { stop: () => instance.stop() });
}

function counted(o: Closed, requests: number): Promise<ClosedResult> & { stop(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const [latencies, statusCodes, started] = [[] as number[], {} as Record<string, number>, performance.now()];
  let [left, bytes, errors] = [requests, 0, 0];
  const worker = async () => {
    for (; left > 0; left--) {
      const answer = await send(o.base, o.request(), { agent, timeoutMs: (o.timeout ?? 10) * 1000, discard: !o.onAnswer }).catch(() => undefined);
      if (!answer) errors++;
      else {
        latencies.push(answer.ms);
        statusCodes[answer.status] = (statusCodes[answer.status] ?? 0) + 1;
        bytes += answer.bytes;
        o.onAnswer?.(answer.status, answer.body, answer.headers as Record<string, string>);
      }
    }
  };
  const result = Promise.all(Array.from({ length: o.connections }, worker)).then((): ClosedResult => {
    agent.destroy();
    const seconds = (performance.now() - started) / 1000;
    const q = quantiles(latencies);
    const non2xx = Object.entries(statusCodes).reduce((sum, [code, n]) => sum + (code.startsWith('2') ? 0 : n), 0);
    const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
    const latencyMs = { mean: round(mean, 2), p50: q.p50 ?? 0, p90: q.p90 ?? 0, p99: q.p99 ?? 0, max: q.max ?? 0 };
    return {
      requests: latencies.length,
      seconds: round(seconds, 2),
      rps: round(latencies.length / seconds, 1),
      latencyMs,
      non2xx,
      statusCodes,
      errors,
      timeouts: 0,
      kbPerResponse: latencies.length ? round(bytes / latencies.length / 1024, 2) : 0,
    };
  });
  return Object.assign(result, { stop: () => void (left = 0) });
}

/** One request over node:http (a keep-alive `agent` if given), its body read whole. */
export function send(base: string, req: BenchRequest, o: { agent?: http.Agent; timeoutMs?: number; discard?: boolean } = {}): Promise<Answer> {
  const target = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request({ host: target.hostname, port: target.port, path: req.path, method: req.method ?? 'GET', headers: req.headers, agent: o.agent }, (res) => {
      // `discard`: the body is counted, not kept (a probe's client costs as little as it can).
      const [chunks, size] = [[] as Buffer[], { bytes: 0 }];
      res.on('data', (chunk: Buffer) => ((size.bytes += chunk.length), o.discard || chunks.push(chunk)));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: o.discard ? '' : Buffer.concat(chunks).toString('utf8'),
          bytes: size.bytes,
          headers: res.headers,
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    request.setTimeout(o.timeoutMs ?? 30_000, () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end(req.body);
  });
}

/** A JSON `body` sent as the benchmark's administrator to `route` of the namespace: throws on a status of 300 or more, parses the JSON answer. */
export async function sendJson(base: string, method: BenchRequest['method'], route: string, body?: unknown) {
  const answer = await send(base, { method, path: api(route), headers: JSON_WRITE, body: body === undefined ? undefined : JSON.stringify(body) });
  if (answer.status >= 300) throw new Error(`${method} ${route} -> ${answer.status} ${answer.body.slice(0, 300)}`);
  return { status: answer.status, json: parseJson(answer.body), ms: answer.ms };
}

/** A JSON object's fields, or undefined when the text is not JSON. */
export function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export interface Open<R extends BenchRequest = BenchRequest> {
  base: string;
  /** Requests a second; the n-th is due at n / rate s. */
  rate: number;
  /** Until stopped when absent. */
  seconds?: number;
  /** The next request; undefined skips this turn (nothing to do yet). */
  request: () => R | undefined;
  /** Sent but unanswered beyond which sends are skipped (and counted): the service is not keeping up. 256 by default. */
  maxInFlight?: number;
  /** Keep-alive connections (the rest wait in the pool); one per request in flight when absent. */
  connections?: number;
  timeoutMs?: number;
  onAnswer?: (answer: Answer, req: R) => void;
  onError?: (error: Error, req: R) => void;
}

export interface OpenResult {
  sent: number;
  skipped: number;
  non2xx: number;
  errors: number;
  /** Latencies of the answers, ms, ascending. */
  latencies: number[];
  /** 2xx answers that came within the measured time, per second of it. */
  answeredPerSecond: number;
  seconds: number;
}

/**
 * An open loop: every 20 ms, as many requests as the clock says are due since the start (a late timer
 * sends what it owes at once, so the loop asks its rate even when this process is busy).
 */
export function openLoop<R extends BenchRequest>(o: Open<R>): { done: Promise<OpenResult>; stop(): Promise<OpenResult>; counts: { sent: number; skipped: number } } {
  // Idle connections are closed after 4 s, before the server's (5 s) or Varnish's (timeout_idle 5 s): a request sent on one being closed would get no answer.
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections ?? Infinity, maxFreeSockets: o.connections ?? 256, timeout: 4000 });
  const pending = new Set<Promise<void>>();
  const latencies: number[] = [];
  const counts = { sent: 0, skipped: 0, non2xx: 0, errors: 0, ok: 0 };
  const started = performance.now();
  const total = o.seconds === undefined ? Infinity : Math.round(o.rate * o.seconds);
  let due = 0;
  let timer: NodeJS.Timeout | undefined;
  let finish: () => void = () => undefined;
  const ticking = new Promise<void>((resolve) => (finish = resolve));
  const one = () => {
    if (pending.size >= (o.maxInFlight ?? 256)) return void counts.skipped++;
    const req = o.request();
    if (!req) return;
    counts.sent++;
    const done = send(o.base, req, { agent, timeoutMs: o.timeoutMs })
      .then((answer) => {
        latencies.push(answer.ms);
        if (answer.status < 200 || answer.status > 299) counts.non2xx++;
        else if (performance.now() - started <= (o.seconds ?? Infinity) * 1000 + 1000) counts.ok++;
        o.onAnswer?.(answer, req);
      })
      .catch((err: Error) => {
        counts.errors++;
        o.onError?.(err, req);
      })
      .finally(() => pending.delete(done));
    pending.add(done);
  };
  const tick = () => {
    const owed = Math.min(total, Math.floor(((performance.now() - started) / 1000) * o.rate));
    for (; due < owed; due++) one();
    if (due >= total) return finish();
    timer = setTimeout(tick, 20);
  };
  timer = setTimeout(tick, 0);
  let result: Promise<OpenResult> | undefined;
  const end = () =>
    (result ??= (async () => {
      clearTimeout(timer);
      finish();
      const seconds = (performance.now() - started) / 1000;
      const answeredPerSecond = round(counts.ok / seconds, 1);
      await Promise.all(pending);
      agent.destroy();
      latencies.sort((a, b) => a - b);
      return { sent: counts.sent, skipped: counts.skipped, non2xx: counts.non2xx, errors: counts.errors, latencies, answeredPerSecond, seconds: round(seconds, 2) };
    })());
  return { done: ticking.then(end), stop: end, counts };
}
