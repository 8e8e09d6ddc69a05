/**
 * The scenarios of `npm run bench -- --webhooks` beside the lag and the closed-loop writes
 * (webhooks.ts, docs/performance.md "Webhook figures"):
 *
 * - reads: closed-loop `GET /events` (a list page or one event) on --connections for --duration while
 *   open-loop writes run at --rate, with the webhooks delivering them, then the same with them paused;
 * - writes: the same with closed-loop venue updates instead of the reads, the webhooks receiving
 *   events only (so they deliver --rate changes a second, not the closed loop's);
 * - fan-out: --fanout webhooks (100, the service's limit) at the receiver, open-loop creates at
 *   --fanout-rate (20/s) for --duration: every message must arrive; lag p50/p95/p99;
 * - fairness: 30 webhooks pointing at a receiver that accepts connections and never answers, and one
 *   at the healthy receiver, creates at --fanout-rate for --duration: the healthy webhook's lag.
 */
import http from 'node:http';
import autocannon from 'autocannon';
import { NAMESPACE_PATH, pick, round } from './common.js';
import type { Samples } from './scenarios.js';
import { JSON_WRITE, matchLag, openLoopWrites, percentile, send, usageMeter, waitForArrivals, type LagLoad, type Options, type Receiver, type Throughput, type Usage } from './webhooks.js';

const RECORD_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'];

export interface ScenarioLag {
  label: string;
  hooks: number;
  rate: number;
  writes: number;
  expected: number;
  received: number;
  missing: number;
  duplicates: number;
  lagMs: { p50?: number; p95?: number; p99?: number; max?: number };
  waitedSeconds: number;
  usage: Usage;
  /** Fairness: how many webhooks pointed at the receiver that never answers. */
  hanging?: number;
}

/** What a closed loop sends: autocannon's request, changed per request. */
type Setup = (req: autocannon.RawRequest) => autocannon.RawRequest;

/** A closed loop of `setup`'s requests on --connections for --duration while open-loop event creates run at opts.rate. */
async function closedLoopBeside(base: string, samples: Samples, opts: Options, label: string, pid: number, setup: Setup): Promise<Throughput & { writes: LagLoad }> {
  const meter = usageMeter(pid);
  const loop = autocannon({ url: base, connections: opts.connections, duration: opts.duration, timeout: 30, requests: [{ setupRequest: setup }] });
  const [result, writes] = await Promise.all([loop, openLoopWrites(base, samples, { ...opts, patchShare: 0 }, [], pid)]);
  const usage = meter();
  return { label, rps: round(result.requests.average, 1), requests: result.requests.total, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts, usage, writes };
}

/**
 * Closed-loop venue updates (`PATCH /venues/{id}` of the seeded venues, a new phone number each)
 * beside open-loop event creates at opts.rate: with webhooks that receive events only, what the
 * API's writes keep while the webhooks deliver opts.rate changes a second (the closed loop's own
 * changes are read past, not sent; docs/performance.md "Webhook figures"). Updates, not creates, so
 * the tables do not grow from one run to the next.
 */
export function writesUnderDelivery(base: string, samples: Samples, opts: Options, label: string, pid: number): Promise<Throughput & { writes: LagLoad }> {
  let n = 0;
  return closedLoopBeside(base, samples, opts, label, pid, (req) => {
    n++;
    const path = `${NAMESPACE_PATH}/venues/${samples.venueIds[n % samples.venueIds.length]}`;
    return { ...req, method: 'PATCH', path, headers: { ...req.headers, ...JSON_WRITE }, body: JSON.stringify({ phone: `555-${String(n).padStart(7, '0')}` }) };
  });
}

/** Closed-loop reads (a list page or one event) beside open-loop event creates at opts.rate (whatever the webhooks do with them). */
export function readsUnderWrites(base: string, samples: Samples, opts: Options, label: string, pid: number): Promise<Throughput & { writes: LagLoad }> {
  const pages = Math.max(1, Math.floor(samples.events.length / 10));
  return closedLoopBeside(base, samples, opts, label, pid, (req) => {
    const path = Math.random() < 0.5 ? `${NAMESPACE_PATH}/events?per_page=10&page=${1 + Math.floor(Math.random() * pages)}` : `${NAMESPACE_PATH}/events/${pick(Math.random, samples.events).id}`;
    return { ...req, method: 'GET', path };
  });
}

async function createHooks(base: string, receiver: Receiver, urlOf: (n: number) => string, numbers: number[]): Promise<number[]> {
  const ids: number[] = [];
  for (const n of numbers) {
    const { json } = await send(base, 'POST', `${NAMESPACE_PATH}/webhooks`, JSON.stringify({ url: urlOf(n), types: RECORD_TYPES, description: `bench receiver ${n}` }));
    receiver.secrets.set(n, String(json?.secret));
    ids.push(Number(json?.id));
  }
  return ids;
}

export async function deleteHooks(base: string, ids: number[]): Promise<void> {
  for (const id of ids) await send(base, 'DELETE', `${NAMESPACE_PATH}/webhooks/${id}`);
}

function lagOf(label: string, load: LagLoad, receiver: Receiver, numbers: number[], rate: number, waitedSeconds: number, usage: Usage): ScenarioLag {
  const match = matchLag(load.writes, receiver.arrivals, numbers);
  const ms = (value: number | undefined) => (value === undefined ? undefined : round(value, 1));
  return {
    label,
    hooks: numbers.length,
    rate,
    writes: load.writes.length,
    expected: load.writes.length * numbers.length,
    received: match.perHook.reduce((sum, h) => sum + h.received, 0),
    missing: match.missing.length,
    duplicates: match.perHook.reduce((sum, h) => sum + h.duplicates, 0),
    lagMs: { p50: ms(percentile(match.lags, 0.5)), p95: ms(percentile(match.lags, 0.95)), p99: ms(percentile(match.lags, 0.99)), max: ms(match.lags.at(-1)) },
    waitedSeconds,
    usage,
  };
}

/** `count` webhooks at the receiver, creates at `rate` for opts.duration; every message must arrive. */
export async function fanOut(base: string, samples: Samples, receiver: Receiver, opts: Options, count: number, rate: number, pid: number): Promise<ScenarioLag> {
  const numbers = Array.from({ length: count }, (_, i) => 1001 + i);
  const ids = await createHooks(base, receiver, (n) => `http://127.0.0.1:${receiver.port}/hook/${n}`, numbers);
  try {
    const meter = usageMeter(pid);
    const load = await openLoopWrites(base, samples, { ...opts, rate, patchShare: 0 }, [], pid);
    const waited = await waitForArrivals(receiver, load.writes, numbers, opts.wait);
    return lagOf(`fan-out: ${count} webhooks, ${rate} creates/s`, load, receiver, numbers, rate, waited, meter());
  } finally {
    await deleteHooks(base, ids);
  }
}

/** 30 webhooks at a receiver that never answers and one at the healthy receiver; the healthy one's lag. */
export async function fairness(base: string, samples: Samples, receiver: Receiver, opts: Options, hangingCount: number, rate: number, pid: number): Promise<ScenarioLag> {
  const held = new Set<http.ServerResponse>();
  // Reads every request and never answers: each attempt waits out WEBHOOK_TIMEOUT.
  const hanging = http.createServer((req, res) => {
    req.resume();
    held.add(res);
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const hangingPort = (hanging.address() as { port: number }).port;
  const healthy = 2001;
  const ids = [
    ...(await createHooks(
      base,
      receiver,
      (n) => `http://127.0.0.1:${hangingPort}/hook/${n}`,
      Array.from({ length: hangingCount }, (_, i) => 3001 + i),
    )),
    ...(await createHooks(base, receiver, (n) => `http://127.0.0.1:${receiver.port}/hook/${n}`, [healthy])),
  ];
  try {
    const meter = usageMeter(pid);
    const load = await openLoopWrites(base, samples, { ...opts, rate, patchShare: 0 }, [], pid);
    const waited = await waitForArrivals(receiver, load.writes, [healthy], opts.wait);
    return { ...lagOf(`fairness: 1 healthy webhook beside ${hangingCount} that hang, ${rate} creates/s`, load, receiver, [healthy], rate, waited, meter()), hanging: hangingCount };
  } finally {
    await deleteHooks(base, ids);
    hanging.closeAllConnections();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  }
}
