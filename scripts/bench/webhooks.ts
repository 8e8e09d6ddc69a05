/**
 * `npm run bench -- --webhooks`: the cost and the lag of webhook delivery on one process
 * (docs/performance.md "Webhooks", docs/webhooks.md).
 *
 *   npm run bench -- --webhooks [--database mysql://root@127.0.0.1:3306/tec_bench_hooks] [--force]
 *                    [--rate 50] [--duration 30] [--connections 8] [--hooks 3] [--patch-share 0.1]
 *                    [--wait 30] [--warmup 10] [--events 1000] [--skip-throughput] [--tsx]
 *                    [--fanout 100] [--fanout-rate 20] [--hanging 30] [--skip-scenarios] [--profile DIR]
 *
 * A small calendar is seeded afresh (seed.ts: a SQLite file under bench/results/db/ by default; a
 * MySQL database has its tables dropped, its name must contain "bench" or pass --force), the service
 * started as `npm start` starts it with WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8, and this process runs
 * the receiver: an HTTP server on 127.0.0.1 that verifies every message with `standardwebhooks`,
 * answers 204 at once and notes when each (webhook, record, title) arrived.
 *
 * 1. Throughput without webhooks: closed-loop creates (`POST /events`) on --connections for --duration
 *    (after --warmup seconds of the same, unmeasured).
 * 2. --hooks webhooks are created through `POST /webhooks` (all record types), pointing at the receiver.
 * 3. Lag: open-loop writes at --rate per second for --duration, each with a title of its own: creates,
 *    and a --patch-share of PATCHes, each of a different event created before the webhooks (so each
 *    record has one change after the webhooks' cursor, and the feed, which holds a record once at its
 *    latest change, has exactly that version to send). Lag = the receiver's arrival of the message
 *    carrying that version − the arrival of the write's 2xx answer (≈ its commit). The receiver is
 *    waited on for up to --wait seconds after the last answer.
 * 4. Throughput with the webhooks delivering: as 1; then, once they caught up (up to --wait), as 1
 *    again with them paused. The ratio is "with" over the mean of the two "without" runs (the first
 *    ran on a colder process).
 *
 * 5. Reads (webhook-scenarios.ts): closed-loop GETs while open-loop creates run at --rate, with the
 *    webhooks delivering and again with them paused; then writes the same way: closed-loop venue
 *    updates beside the open-loop event creates, the webhooks receiving events only, so they deliver
 *    --rate changes a second whatever the closed loop's rate (the issue's measure; step 4's closed
 *    loop has every create delivered, five times --rate and more).
 * 6. Fan-out: --fanout webhooks, creates at --fanout-rate for --duration, every message expected.
 * 7. Fairness: --hanging webhooks at a receiver that never answers and one healthy, creates at
 *    --fanout-rate: the healthy one's lag.
 *
 * --profile DIR starts the service with `--cpu-prof --cpu-prof-dir DIR`: one .cpuprofile per thread,
 * the delivery thread's included, written when the service stops; summarise one with
 * `node --import tsx scripts/bench/profile-summary.ts FILE`.
 *
 * Prints the tables and writes bench/results/webhooks-<engine>-<time>.json. The exit code is 1 if a
 * lag message is missing, a message fails verification, or a write was answered with an error.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import autocannon from 'autocannon';
import { Webhook } from 'standardwebhooks';
import { BENCH_ADMIN, BENCH_DB_DIR, NAMESPACE_PATH, RESULTS_DIR, ROOT, checkDatabaseUrl, codeFingerprint, cpuMsOf, describeUrl, machineBusyMs, parseArgs, pick, round, stopChild, table, type Child, log, printUsageAndExit } from './common.js';
import { seedCalendar } from './seed.js';
import { samplesOf, type Samples } from './scenarios.js';
import { buildService, startAsNpmStart } from './service.js';
import { deleteHooks, fairness, fanOut, readsUnderWrites, writesUnderDelivery, type ScenarioLag } from './webhook-scenarios.js';

const SPEC = {
  webhooks: 'boolean', database: 'string', force: 'boolean', rate: 'number', duration: 'number', connections: 'number', hooks: 'number', 'patch-share': 'number', wait: 'number', warmup: 'number', events: 'number', 'skip-throughput': 'boolean', fanout: 'number', 'fanout-rate': 'number', hanging: 'number', 'skip-scenarios': 'boolean', profile: 'string', tsx: 'boolean', help: 'boolean',
} as const;

const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;
export const JSON_WRITE = { 'content-type': 'application/json', authorization: AUTH };
const RECORD_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'];
const REQUEST_TIMEOUT_MS = 30_000;
/** Writes sent but not answered beyond which sends are skipped (and counted): the service is not keeping up. */
const MAX_IN_FLIGHT = 256;

export interface Options {
  database: string;
  force: boolean;
  rate: number;
  duration: number;
  connections: number;
  hooks: number;
  patchShare: number;
  wait: number;
  warmup: number;
  events: number;
  skipThroughput: boolean;
  fanout: number;
  fanoutRate: number;
  hanging: number;
  skipScenarios: boolean;
  /** Where the service's CPU profiles go (none without). */
  profileDir?: string;
  tsx: boolean;
}

/** A write of the lag phase: the record and the title only this write gave it, and when its 2xx answer arrived (performance.now()). */
export interface Write {
  kind: 'create' | 'update';
  id: number;
  title: string;
  answeredAt: number;
}

/** A verified message at the receiver: which webhook, which record version, when (performance.now()). */
export interface Arrival {
  hook: number;
  messageId: string;
  type: string;
  id: number | undefined;
  title: string | undefined;
  at: number;
}

export interface HookMatch {
  hook: number;
  expected: number;
  received: number;
  missing: number;
  /** Messages carrying a webhook-id already seen (allowed by docs/webhooks.md "Guarantees", counted once). */
  duplicates: number;
}

/** The value at quantile q of an ascending list (nearest rank); undefined for an empty list. */
export function percentile(sorted: number[], q: number): number | undefined {
  if (!sorted.length) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * Matches each write with each webhook's message of that record version (record id and the title
 * the write set: a later version of the record would carry another title). The first arrival of a
 * version counts; lags are arrival − answer, in ms, ascending over all webhooks.
 */
export function matchLag(writes: Write[], arrivals: Arrival[], hooks: number[]): { perHook: HookMatch[]; lags: number[]; missing: Array<{ hook: number; id: number; title: string }> } {
  const first = new Map<string, number>();
  const seenIds = new Map<number, Set<string>>();
  const duplicates = new Map<number, number>();
  for (const arrival of arrivals) {
    const ids = seenIds.get(arrival.hook) ?? new Set<string>();
    seenIds.set(arrival.hook, ids);
    if (ids.has(arrival.messageId)) {
      duplicates.set(arrival.hook, (duplicates.get(arrival.hook) ?? 0) + 1);
      continue;
    }
    ids.add(arrival.messageId);
    if (arrival.id === undefined || arrival.title === undefined) continue;
    const key = `${arrival.hook}:${arrival.id}:${arrival.title}`;
    if (!first.has(key)) first.set(key, arrival.at);
  }
  const lags: number[] = [];
  const missing: Array<{ hook: number; id: number; title: string }> = [];
  const perHook = hooks.map((hook): HookMatch => {
    let received = 0;
    for (const write of writes) {
      const at = first.get(`${hook}:${write.id}:${write.title}`);
      if (at === undefined) missing.push({ hook, id: write.id, title: write.title });
      else {
        received++;
        lags.push(at - write.answeredAt);
      }
    }
    return { hook, expected: writes.length, received, missing: writes.length - received, duplicates: duplicates.get(hook) ?? 0 };
  });
  lags.sort((a, b) => a - b);
  return { perHook, lags, missing };
}

/** A closed loop with the webhooks delivering over the mean of the two runs with them paused (before and after): the reads, the writes under delivery. */
function pausedRatio(runs: Throughput[]): number | undefined {
  const paused = runs.filter((r) => r.label.includes('paused'));
  const delivering = runs.find((r) => r.label.includes('delivering'));
  const mean = paused.reduce((sum, r) => sum + r.rps, 0) / paused.length;
  return delivering && mean > 0 ? round(delivering.rps / mean, 3) : undefined;
}

/** Changes the webhooks (`PATCH /webhooks/{id}`): pauses or resumes them, or sets the record types they receive. */
async function patchHooks(base: string, ids: number[], fields: { status?: 'paused' | 'active'; types?: string[] }): Promise<void> {
  for (const id of ids) await send(base, 'PATCH', `${NAMESPACE_PATH}/webhooks/${id}`, JSON.stringify(fields));
}

/** Closed-loop req/s with the webhooks over the mean of the runs without them (before, and after with them paused). */
export function throughputRatio(runs: Array<Pick<Throughput, 'label' | 'rps'>>): number | undefined {
  const without = runs.filter((r) => r.label.startsWith('without'));
  const withHooks = runs.find((r) => r.label.startsWith('with '));
  if (!withHooks || !without.length) return undefined;
  const mean = without.reduce((sum, r) => sum + r.rps, 0) / without.length;
  return mean > 0 ? round(withHooks.rps / mean, 3) : undefined;
}

function options(argv: string[]): Options {
  const args = parseArgs(argv, SPEC);
  if (args.help) printUsageAndExit(import.meta.url);
  const database = String(args.database ?? `sqlite:${path.relative(ROOT, path.join(BENCH_DB_DIR, 'webhooks.sqlite'))}`);
  checkDatabaseUrl(database);
  const number = (name: keyof typeof SPEC, fallback: number, min: number, max: number) => {
    const value = Number(args[name] ?? fallback);
    if (!(value >= min && value <= max)) throw new Error(`--${name} must be ${min} to ${max}, got ${args[name]}`);
    return value;
  };
  return {
    database,
    force: Boolean(args.force),
    rate: number('rate', 50, 1, 1000),
    duration: number('duration', 30, 1, 600),
    connections: number('connections', 8, 1, 256),
    hooks: number('hooks', 3, 1, 20),
    patchShare: number('patch-share', 0.1, 0, 1),
    wait: number('wait', 30, 0, 600),
    warmup: number('warmup', 10, 0, 60),
    events: number('events', 1000, 100, 100_000),
    skipThroughput: Boolean(args['skip-throughput']),
    fanout: number('fanout', 100, 1, 100),
    fanoutRate: number('fanout-rate', 20, 1, 200),
    hanging: number('hanging', 30, 1, 99),
    skipScenarios: Boolean(args['skip-scenarios']),
    profileDir: typeof args.profile === 'string' ? path.resolve(args.profile) : undefined,
    tsx: Boolean(args.tsx),
  };
}

export function eventBody(samples: Samples, title: string): string {
  const day = new Date(Date.now() + Math.floor(1 + Math.random() * 300) * 86_400_000).toISOString().slice(0, 10);
  return JSON.stringify({
    title,
    description: 'Created by the webhook benchmark.',
    status: 'publish',
    start_date: `${day} 19:00:00`,
    end_date: `${day} 21:00:00`,
    venue: pick(Math.random, samples.venueIds),
    organizer: pick(Math.random, samples.organizerIds),
    categories: [pick(Math.random, samples.categoryIds)],
    tags: [pick(Math.random, samples.tagIds)],
  });
}

/** A title no other write of the run uses (the key the receiver's messages are matched by). */
function uniqueTitle(prefix: string, n: number): string {
  return `${prefix} ${n} ${crypto.randomBytes(4).toString('hex')}`;
}

// ---------------------------------------------------------------------------------------------
// The receiver

export interface Receiver {
  port: number;
  arrivals: Arrival[];
  /** Messages whose signature did not verify (or whose webhook was unknown), with why. */
  unverified: string[];
  secrets: Map<number, string>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const unverified: string[] = [];
  const secrets = new Map<number, string>();
  const verifiers = new Map<string, Webhook>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      // Answered before anything else: the lag measured is the service's, not this receiver's.
      res.writeHead(204).end();
      const hook = Number(/^\/hook\/(\d+)$/.exec(req.url ?? '')?.[1]);
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(hook);
      if (!secret) {
        unverified.push(`${req.url}: no webhook known there`);
        return;
      }
      let verifier = verifiers.get(secret);
      if (!verifier) verifiers.set(secret, (verifier = new Webhook(secret)));
      let message: { type?: string; data?: { id?: unknown; record?: { title?: unknown } } };
      try {
        message = verifier.verify(body, req.headers as Record<string, string>) as typeof message;
      } catch (err) {
        unverified.push(`${req.url} ${String(req.headers['webhook-id'])}: ${(err as Error).message}`);
        return;
      }
      if (message.type === 'webhook.ping') return;
      const title = message.data?.record?.title;
      arrivals.push({
        hook,
        messageId: String(req.headers['webhook-id']),
        type: String(message.type),
        id: typeof message.data?.id === 'number' ? message.data.id : undefined,
        title: typeof title === 'string' ? title : typeof (title as { rendered?: unknown })?.rendered === 'string' ? (title as { rendered: string }).rendered : undefined,
        at,
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    arrivals,
    unverified,
    secrets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The phases

export interface Usage {
  seconds: number;
  serviceCores?: number;
  machineCores?: number;
}

/** Cores used by the service and by the whole machine between two calls (this process and the database included in the machine's). */
export function usageMeter(pid: number): () => Usage {
  const start = { at: Date.now(), service: cpuMsOf(pid), machine: machineBusyMs() };
  return () => {
    const seconds = (Date.now() - start.at) / 1000;
    const cores = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : round((b - a) / 1000 / seconds, 2));
    return { seconds: round(seconds, 1), serviceCores: cores(start.service, cpuMsOf(pid)), machineCores: cores(start.machine, machineBusyMs()) };
  };
}

export interface Throughput {
  label: string;
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  usage: Usage;
}

async function closedLoopCreates(base: string, samples: Samples, seconds: number, connections: number, label: string, pid: number): Promise<Throughput> {
  let n = 0;
  const meter = usageMeter(pid);
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', path: `${NAMESPACE_PATH}/events`, headers: { ...req.headers, ...JSON_WRITE }, body: eventBody(samples, uniqueTitle('Bench closed', n++)) }) }],
  });
  const usage = meter();
  return { label, rps: round(result.requests.average, 1), requests: result.requests.total, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts, usage };
}

export async function send(base: string, method: string, route: string, body?: string): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  const res = await fetch(base + route, { method, headers: JSON_WRITE, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (res.status >= 300) throw new Error(`${method} ${route} -> ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, json };
}

/** Events for the lag phase's PATCHes, created before the webhooks exist (so their creation is not sent). */
async function createPool(base: string, samples: Samples, count: number): Promise<number[]> {
  const ids: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const { json } = await send(base, 'POST', `${NAMESPACE_PATH}/events`, eventBody(samples, uniqueTitle('Bench pool', next)));
      ids.push(Number(json?.id));
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return ids;
}

export interface LagLoad {
  writes: Write[];
  sent: number;
  errors: string[];
  skipped: number;
  usage: Usage;
}

/** Open-loop writes: every 20 ms, as many as the clock says are due since the start (rate × elapsed), none waiting for another's answer; a late timer sends the writes it owes at once. */
export async function openLoopWrites(base: string, samples: Samples, opts: Options, pool: number[], pid: number): Promise<LagLoad> {
  const writes: Write[] = [];
  const errors: string[] = [];
  const pending = new Set<Promise<void>>();
  let sent = 0;
  let skipped = 0;
  let due = 0;
  const meter = usageMeter(pid);
  const one = () => {
    if (pending.size >= MAX_IN_FLIGHT) {
      skipped++;
      return;
    }
    sent++;
    const title = uniqueTitle('Bench hook', sent);
    const patchId = pool.length && Math.random() < opts.patchShare ? pool.pop() : undefined;
    const request =
      patchId === undefined
        ? send(base, 'POST', `${NAMESPACE_PATH}/events`, eventBody(samples, title)).then(({ json }) => writes.push({ kind: 'create', id: Number(json?.id), title, answeredAt: performance.now() }))
        : send(base, 'PATCH', `${NAMESPACE_PATH}/events/${patchId}`, JSON.stringify({ title })).then(() => writes.push({ kind: 'update', id: patchId, title, answeredAt: performance.now() }));
    const done = request
      .then(() => undefined)
      .catch((err: unknown) => {
        errors.push((err as Error).message);
      })
      .finally(() => pending.delete(done));
    pending.add(done);
  };
  const start = performance.now();
  const total = Math.round(opts.rate * opts.duration);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const owed = Math.min(total, Math.floor(((performance.now() - start) / 1000) * opts.rate) + 1);
      while (due < owed) {
        due++;
        one();
      }
      if (due >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 20);
    tick();
  });
  await Promise.all(pending);
  return { writes, sent, errors, skipped, usage: meter() };
}

/** Waits until every write has reached every webhook (or the time is up); the seconds waited. */
export async function waitForArrivals(receiver: Receiver, writes: Write[], hooks: number[], seconds: number): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline && matchLag(writes, receiver.arrivals, hooks).missing.length) await new Promise((r) => setTimeout(r, 250));
  return round((performance.now() - started) / 1000, 1);
}

/** What delivery alone achieved once the writes stopped (the backlog, if any, being sent): the cost of a message apart from the writes'. */
interface CatchUp {
  messages: number;
  perSecond: number;
  cpuMsPerMessage?: number;
  usage: Usage;
}

function catchUpOf(usage: Usage, messages: number): CatchUp | undefined {
  // Under a second or a handful of messages says nothing.
  if (usage.seconds < 1 || messages < 10) return undefined;
  const cpuMs = usage.serviceCores === undefined ? undefined : usage.serviceCores * usage.seconds * 1000;
  return { messages, perSecond: round(messages / usage.seconds, 1), cpuMsPerMessage: cpuMs === undefined ? undefined : round(cpuMs / messages, 2), usage };
}

// ---------------------------------------------------------------------------------------------

function startService(opts: Options): Promise<{ child: Child; base: string }> {
  return startAsNpmStart(opts.database, opts.tsx, (env) => {
    // The service's webhook settings are its defaults, but for the receiver's network: http on 127.0.0.1 (docs/webhooks.md "Safety").
    for (const name of Object.keys(env)) if (name.startsWith('WEBHOOK_')) delete env[name];
    env.WEBHOOK_ALLOWED_NETWORKS = '127.0.0.0/8';
  }, opts.profileDir ? ['--cpu-prof', '--cpu-prof-dir', opts.profileDir] : []); // every thread writes its own profile
}

function ms(value: number | undefined): number | undefined {
  return value === undefined ? undefined : round(value, 1);
}

export async function webhooksBench(argv: string[]): Promise<void> {
  const opts = options(argv);
  const started = new Date();
  fs.mkdirSync(BENCH_DB_DIR, { recursive: true });
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  if (!opts.tsx && !buildService()) opts.tsx = true;
  await seedCalendar({ events: opts.events, databaseUrl: opts.database, force: opts.force });
  const { engine, samples } = await samplesOf(opts.database);
  const receiver = await startReceiver();
  const service = await startService(opts);
  const throughput: Throughput[] = [];
  const reads: Array<Throughput & { writes: LagLoad }> = [];
  const writesUnder: Array<Throughput & { writes: LagLoad }> = [];
  /** Messages received while the writes under delivery ran (and until they were delivered). */
  let deliveredUnder: number | undefined;
  const scenarios: ScenarioLag[] = [];
  let warmup: Throughput | undefined;
  let lag: LagLoad | undefined;
  let waited: number | undefined;
  let catchUp: CatchUp | undefined;
  let drain: { expected: number; received: number[]; seconds: number } | undefined;
  const hooks: number[] = [];
  /** The webhooks' ids in the service (hooks are the receiver's paths, 1 to --hooks). */
  const hookIds: number[] = [];
  try {
    if (!opts.skipThroughput) {
      // Not measured, but its answers are checked as the others': an error is an error.
      if (opts.warmup) warmup = await closedLoopCreates(service.base, samples, opts.warmup, opts.connections, 'warm-up (not measured)', service.child.pid);
      log(`throughput without webhooks: ${opts.connections} connections, ${opts.duration}s`);
      throughput.push(await closedLoopCreates(service.base, samples, opts.duration, opts.connections, 'without webhooks', service.child.pid));
    }
    const pool = await createPool(service.base, samples, Math.ceil(opts.rate * opts.duration * opts.patchShare * 1.5) + 5);
    for (let n = 1; n <= opts.hooks; n++) {
      const { json } = await send(service.base, 'POST', `${NAMESPACE_PATH}/webhooks`, JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook/${n}`, types: RECORD_TYPES, description: `bench receiver ${n}` }));
      receiver.secrets.set(n, String(json?.secret));
      hookIds.push(Number(json?.id));
      hooks.push(n);
    }
    log(`lag: ${opts.hooks} webhooks, open-loop writes at ${opts.rate}/s for ${opts.duration}s (${Math.round(opts.patchShare * 100)} % PATCHes)`);
    lag = await openLoopWrites(service.base, samples, opts, pool, service.child.pid);
    const meter = usageMeter(service.child.pid);
    const arrived = receiver.arrivals.length;
    waited = await waitForArrivals(receiver, lag.writes, hooks, opts.wait);
    catchUp = catchUpOf(meter(), receiver.arrivals.length - arrived);
    if (!opts.skipThroughput) {
      // Reads are measured paused, delivering, then paused again, and the ratio taken to the mean of the
      // two paused runs: a later run finds a warmer process and database (see the writes below).
      await patchHooks(service.base, hookIds, { status: 'paused' });
      log(`reads with ${opts.rate} creates/s, webhooks paused: ${opts.connections} connections, ${opts.duration}s`);
      reads.push(await readsUnderWrites(service.base, samples, opts, `reads + ${opts.rate} creates/s, webhooks paused, before`, service.child.pid));
      await patchHooks(service.base, hookIds, { status: 'active' });
      // The creates of the paused run are delivered before the next run begins.
      await waitForArrivals(receiver, reads[0].writes.writes, hooks, opts.wait);
      log(`reads with ${opts.rate} creates/s delivered to ${opts.hooks} webhooks: ${opts.connections} connections, ${opts.duration}s`);
      reads.push(await readsUnderWrites(service.base, samples, opts, `reads + ${opts.rate} creates/s, ${opts.hooks} webhooks delivering`, service.child.pid));
      // Writes while the webhooks deliver --rate changes a second: they receive events only, and the
      // closed loop updates venues. Paused, delivering, paused again, as the reads.
      await patchHooks(service.base, hookIds, { types: ['event'], status: 'paused' });
      log(`venue updates with ${opts.rate} event creates/s, webhooks paused: ${opts.connections} connections, ${opts.duration}s`);
      writesUnder.push(await writesUnderDelivery(service.base, samples, opts, `venue updates + ${opts.rate} creates/s, webhooks paused, before`, service.child.pid));
      await patchHooks(service.base, hookIds, { status: 'active' });
      await waitForArrivals(receiver, writesUnder[0].writes.writes, hooks, opts.wait);
      log(`venue updates with ${opts.rate} event creates/s delivered to ${opts.hooks} webhooks: ${opts.connections} connections, ${opts.duration}s`);
      const arrivedBefore = receiver.arrivals.length;
      writesUnder.push(await writesUnderDelivery(service.base, samples, opts, `venue updates + ${opts.rate} creates/s, ${opts.hooks} webhooks delivering`, service.child.pid));
      // Only the event creates are delivered: the closed loop's venue changes are read past.
      await waitForArrivals(receiver, writesUnder[1].writes.writes, hooks, opts.wait);
      deliveredUnder = receiver.arrivals.length - arrivedBefore;
      await patchHooks(service.base, hookIds, { status: 'paused' });
      log(`venue updates with ${opts.rate} event creates/s, webhooks paused: ${opts.connections} connections, ${opts.duration}s`);
      writesUnder.push(await writesUnderDelivery(service.base, samples, opts, `venue updates + ${opts.rate} creates/s, webhooks paused, after`, service.child.pid));
      await patchHooks(service.base, hookIds, { types: RECORD_TYPES, status: 'active' });
      await waitForArrivals(receiver, writesUnder[2].writes.writes, hooks, opts.wait);
      log(`throughput with ${opts.hooks} webhooks: ${opts.connections} connections, ${opts.duration}s`);
      const before = receiver.arrivals.length;
      const result = await closedLoopCreates(service.base, samples, opts.duration, opts.connections, `with ${opts.hooks} webhooks`, service.child.pid);
      throughput.push(result);
      // Not part of the verdict: how far delivery fell behind the closed loop, and whether it caught up within --wait.
      const expected = result.requests - result.non2xx;
      const counts = () => hooks.map((hook) => receiver.arrivals.slice(before).filter((a) => a.hook === hook && a.title?.startsWith('Bench closed')).length);
      const drainStart = performance.now();
      while (performance.now() - drainStart < opts.wait * 1000 && counts().some((c) => c < expected)) await new Promise((r) => setTimeout(r, 250));
      drain = { expected, received: counts(), seconds: round((performance.now() - drainStart) / 1000, 1) };
      // Without again, the webhooks paused (nothing delivered): the phase before ran on a colder
      // process, so the ratio is taken to the mean of the two, not to the first alone.
      await patchHooks(service.base, hookIds, { status: 'paused' });
      log(`throughput without webhooks again (paused): ${opts.connections} connections, ${opts.duration}s`);
      throughput.push(await closedLoopCreates(service.base, samples, opts.duration, opts.connections, 'without webhooks (paused), after', service.child.pid));
      log(`reads with ${opts.rate} creates/s, webhooks paused: ${opts.connections} connections, ${opts.duration}s`);
      reads.push(await readsUnderWrites(service.base, samples, opts, `reads + ${opts.rate} creates/s, webhooks paused, after`, service.child.pid));
    }
    if (!opts.skipScenarios) {
      await deleteHooks(service.base, hookIds);
      log(`fan-out: ${opts.fanout} webhooks, ${opts.fanoutRate} creates/s for ${opts.duration}s`);
      scenarios.push(await fanOut(service.base, samples, receiver, opts, opts.fanout, opts.fanoutRate, service.child.pid));
      log(`fairness: ${opts.hanging} hanging webhooks + 1 healthy, ${opts.fanoutRate} creates/s for ${opts.duration}s`);
      scenarios.push(await fairness(service.base, samples, receiver, opts, opts.hanging, opts.fanoutRate, service.child.pid));
    }
  } finally {
    await stopChild(service.child);
    await receiver.close();
  }
  report(opts, started, engine, { throughput, warmup, lag, waited, catchUp, drain, hooks, receiver, reads, writesUnder, deliveredUnder, scenarios });
}

function report(opts: Options, started: Date, engine: string, run: { throughput: Throughput[]; warmup?: Throughput; lag?: LagLoad; waited?: number; catchUp?: CatchUp; drain?: { expected: number; received: number[]; seconds: number }; hooks: number[]; receiver: Receiver; reads: Array<Throughput & { writes: LagLoad }>; writesUnder: Array<Throughput & { writes: LagLoad }>; deliveredUnder?: number; scenarios: ScenarioLag[] }): void {
  const { throughput, lag, hooks, receiver } = run;
  const match = matchLag(lag?.writes ?? [], receiver.arrivals, hooks);
  const lags = match.lags;
  const summary = {
    lagMs: { p50: ms(percentile(lags, 0.5)), p95: ms(percentile(lags, 0.95)), p99: ms(percentile(lags, 0.99)), max: ms(lags.at(-1)) },
    writes: { sent: lag?.sent ?? 0, answered: lag?.writes.length ?? 0, creates: lag?.writes.filter((w) => w.kind === 'create').length ?? 0, updates: lag?.writes.filter((w) => w.kind === 'update').length ?? 0, errors: lag?.errors.length ?? 0, skipped: lag?.skipped ?? 0 },
    missing: match.missing.length,
    unverified: receiver.unverified.length,
    throughputRatio: throughputRatio(throughput),
    readsRatio: pausedRatio(run.reads),
    writesUnderDeliveryRatio: pausedRatio(run.writesUnder),
    cores: os.cpus().length,
  };
  const lines = [
    `Webhooks: ${opts.hooks} webhooks on ${describeUrl(opts.database)} (${engine}), one process; lag: ${opts.rate} writes/s open-loop for ${opts.duration}s; throughput: ${opts.connections} connections for ${opts.duration}s; code ${codeFingerprint()}`,
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, load average ${os.loadavg().map((l) => round(l, 2)).join(' ')}`,
    '',
    table(
      ['lag: commit (2xx answer) to receiver', 'value'],
      [
        ['writes answered (creates + PATCHes)', `${summary.writes.answered} (${summary.writes.creates} + ${summary.writes.updates})`],
        ['write errors / sends skipped', `${summary.writes.errors} / ${summary.writes.skipped}`],
        ['lag p50 ms', summary.lagMs.p50],
        ['lag p95 ms (target < 1,000)', summary.lagMs.p95],
        ['lag p99 ms', summary.lagMs.p99],
        ['lag max ms', summary.lagMs.max],
        ['waited after the last answer, s', run.waited],
        ['service / machine cores during the writes', `${lag?.usage.serviceCores ?? '-'} / ${lag?.usage.machineCores ?? '-'}`],
        ['catch-up after the writes: msg/s, service / machine cores, CPU ms/msg', run.catchUp ? `${run.catchUp.perSecond}, ${run.catchUp.usage.serviceCores ?? '-'} / ${run.catchUp.usage.machineCores ?? '-'}, ${run.catchUp.cpuMsPerMessage ?? '-'}` : '-'],
      ],
    ),
    '',
    table(
      ['webhook', 'expected', 'received', 'missing', 'duplicates'],
      match.perHook.map((h) => [h.hook, h.expected, h.received, h.missing, h.duplicates]),
    ),
    `unverified messages: ${receiver.unverified.length}`,
  ];
  // Not a failure of the run (receivers must deduplicate), but the service ran throughout: docs/webhooks.md "Guarantees" expects a duplicate only after a process died.
  const duplicates = match.perHook.reduce((sum, h) => sum + h.duplicates, 0);
  if (duplicates) lines.push(`!!! ${duplicates} messages came twice with the same webhook-id although the service never stopped !!!`);
  if (throughput.length) {
    lines.push(
      '',
      table(
        ['closed-loop POST /events', 'req/s', 'requests', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'service cores', 'machine cores'],
        [...(run.warmup ? [run.warmup] : []), ...throughput].map((t) => [t.label, t.rps, t.requests, t.p50Ms, t.p99Ms, t.non2xx, t.errors, t.usage.serviceCores, t.usage.machineCores]),
      ),
      `with / without (the mean of before and after): ${summary.throughputRatio ?? '-'} (target >= 0.95); to each: ${throughput
        .filter((t) => t.label.startsWith('without'))
        .map((t) => throughputRatio([t, ...throughput.filter((w) => w.label.startsWith('with '))]))
        .join(' / ')}`,
    );
    // autocannon counts the answers within the duration; the creates in flight at its end are delivered too.
    if (run.drain) lines.push(`delivery of the closed loop's creates (${run.drain.expected} answered in time, and those in flight at the end), ${run.drain.seconds}s after it: ${run.drain.received.join(' / ')} received per webhook`);
  }
  /** A closed loop run paused, delivering and paused again, with the verdict line under it. */
  const pausedRuns = (heading: string, runs: Throughput[], verdict: string): void => {
    const rows = runs.map((t) => [t.label, t.rps, t.requests, t.p50Ms, t.p99Ms, t.non2xx, t.errors, t.usage.serviceCores, t.usage.machineCores]);
    lines.push('', table([heading, 'req/s', 'requests', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'service cores', 'machine cores'], rows), verdict);
  };
  if (run.reads.length) pausedRuns('closed-loop GET /events (list page or one event)', run.reads, `reads with / the mean of the two paused: ${summary.readsRatio ?? '-'} (target >= 0.95)`);
  if (run.writesUnder.length) {
    const expected = (run.writesUnder[1]?.writes.writes.length ?? 0) * run.hooks.length;
    pausedRuns(
      'closed-loop PATCH /venues/{id} (webhooks receive events only)',
      run.writesUnder,
      `writes with ${opts.rate} changes/s delivered / the mean of the two paused: ${summary.writesUnderDeliveryRatio ?? '-'} (target >= 0.95); messages received for the delivering run: ${run.deliveredUnder ?? '-'} (its creates times the webhooks: ${expected})`,
    );
  }
  if (run.scenarios.length) {
    lines.push(
      '',
      table(
        ['scenario', 'messages expected', 'received', 'missing', 'duplicates', 'lag p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'service / machine cores'],
        run.scenarios.map((s) => [s.label, s.expected, s.received, s.missing, s.duplicates, s.lagMs.p50, s.lagMs.p95, s.lagMs.p99, s.lagMs.max, `${s.usage.serviceCores ?? '-'} / ${s.usage.machineCores ?? '-'}`]),
      ),
      'targets: fan-out every message and p95 < 2,000 ms; fairness (the healthy webhook) p95 < 2,000 ms',
    );
  }
  const text = lines.join('\n');
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const file = path.join(RESULTS_DIR, `webhooks-${engine}-${stamp}.json`);
  const json = {
    mode: 'webhooks',
    started: started.toISOString(),
    finished: new Date().toISOString(),
    code: codeFingerprint(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadAverage: os.loadavg().map((l) => round(l, 2)) },
    options: { ...opts, database: describeUrl(opts.database) },
    summary,
    perWebhook: match.perHook,
    waitedSeconds: run.waited,
    catchUp: run.catchUp,
    lagUsage: lag?.usage,
    throughput,
    warmup: run.warmup,
    drain: run.drain,
    reads: run.reads.map(({ writes, ...rest }) => ({ ...rest, writes: { answered: writes.writes.length, errors: writes.errors.length, skipped: writes.skipped } })),
    writesUnderDelivery: run.writesUnder.map(({ writes, ...rest }) => ({ ...rest, writes: { answered: writes.writes.length, errors: writes.errors.length, skipped: writes.skipped } })),
    scenarios: run.scenarios,
    missing: match.missing.slice(0, 100),
    unverified: receiver.unverified.slice(0, 100),
    writeErrors: lag?.errors.slice(0, 100),
  };
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`\n${text}\n\nresults: ${path.relative(ROOT, file)}\n`);
  const throughputErrors = [...(run.warmup ? [run.warmup] : []), ...throughput].reduce((s, t) => s + t.non2xx + t.errors, 0);
  const problems = [
    summary.missing && `${summary.missing} MESSAGES MISSING`,
    summary.unverified && `${summary.unverified} MESSAGES UNVERIFIED`,
    summary.writes.errors && `${summary.writes.errors} WRITES FAILED`,
    summary.writes.skipped && `${summary.writes.skipped} WRITES SKIPPED`,
    throughputErrors && `${throughputErrors} CLOSED-LOOP ERRORS`,
    ...run.scenarios.filter((s) => s.missing).map((s) => `${s.missing} MESSAGES MISSING in ${s.label}`),
    ...[...run.reads, ...run.writesUnder].filter((t) => t.non2xx + t.errors + t.writes.errors.length).map((t) => `ERRORS in ${t.label}`),
  ].filter(Boolean);
  if (problems.length) {
    process.stdout.write(`\n!!! ${problems.join(', ')} !!!\n`);
    process.exitCode = 1;
  }
}
