/**
 * `npm run bench -- --webhooks`: the cost and the lag of webhook delivery on one process; each step,
 * its targets and figures are in docs/performance.md "Webhooks".
 *
 *   npm run bench -- --webhooks [options]   (--database mysql://root@127.0.0.1:3306/tec_bench_hooks)
 *
 * A small calendar is seeded afresh, the service started with WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8,
 * and this process runs the receiver, which verifies every message with `standardwebhooks`, answers
 * 204 at once and notes when each (webhook, record, title) arrived. The exit code is 1 if a lag
 * message is missing, a message fails verification, or a write was answered with an error.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import * as c from './common.js';
import { closedLoop, openLoop, sendJson, type BenchRequest, type ClosedResult } from './load.js';
import { eventBody, samplesOf, type Samples } from './scenarios.js';
import { seedCalendar } from './seed.js';

const SPEC = {
  webhooks: ['boolean'],
  database: ['string', c.defaultSqliteUrl('webhooks')],
  force: ['boolean'],
  rate: ['number', 50, 1, 1000],
  duration: ['number', 30, 1, 600],
  connections: ['number', 8, 1, 256],
  hooks: ['number', 3, 1, 20],
  'patch-share': ['number', 0.1, 0, 1],
  wait: ['number', 30, 0, 600],
  warmup: ['number', 10, 0, 60],
  events: ['number', 1000, 100, 100_000],
  'skip-throughput': ['boolean'],
  fanout: ['number', 100, 1, 100],
  'fanout-rate': ['number', 20, 1, 200],
  hanging: ['number', 30, 1, 99],
  'skip-scenarios': ['boolean'],
  'paired-rounds': ['number', 1, 1, 10],
  profile: ['string'],
  tsx: ['boolean'],
} satisfies c.Spec;

type Options = c.Options<typeof SPEC>;

const RECORD_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'];

/** A write of a lag phase: the record, the title only this write gave it, and when its 2xx answer arrived (performance.now()). */
export type Write = { kind: 'create' | 'update'; id: number; title: string; answeredAt: number };

/** A verified message at the receiver: which webhook, which record version, when (performance.now()). */
export type Arrival = { hook: number; messageId: string; type: string; id: number | undefined; title: string | undefined; at: number };

/** `duplicates`: messages carrying a webhook-id already seen (allowed by docs/webhooks.md "Guarantees", counted once). */
export type HookMatch = { hook: number; expected: number; received: number; missing: number; duplicates: number };

/**
 * Matches each write with each webhook's message of that record version (record id and the title the
 * write set: a later version would carry another title). The first arrival of a version counts; lags
 * are arrival − answer, in ms, ascending over all webhooks.
 */
export function matchLag(
  writes: Write[],
  arrivals: Arrival[],
  hooks: number[],
): { perHook: HookMatch[]; lags: number[]; missing: Array<{ hook: number; id: number; title: string }> } {
  const first = new Map<string, number>();
  const seenIds = new Set<string>();
  const duplicates = new Map<number, number>();
  for (const arrival of arrivals) {
    const messageKey = `${arrival.hook}:${arrival.messageId}`;
    if (seenIds.has(messageKey)) {
      duplicates.set(arrival.hook, (duplicates.get(arrival.hook) ?? 0) + 1);
      continue;
    }
    seenIds.add(messageKey);
    const key = `${arrival.hook}:${arrival.id}:${arrival.title}`;
    if (arrival.id !== undefined && arrival.title !== undefined && !first.has(key)) first.set(key, arrival.at);
  }
  const lags: number[] = [];
  const missing: Array<{ hook: number; id: number; title: string }> = [];
  const perHook = hooks.map((hook): HookMatch => {
    let received = 0;
    for (const write of writes) {
      const at = first.get(`${hook}:${write.id}:${write.title}`);
      if (at === undefined) missing.push({ hook, id: write.id, title: write.title });
      else {
        lags.push(at - write.answeredAt);
        received++;
      }
    }
    return { hook, expected: writes.length, received, missing: writes.length - received, duplicates: duplicates.get(hook) ?? 0 };
  });
  lags.sort((a, b) => a - b);
  return { perHook, lags, missing };
}

/** Mean closed-loop req/s of the runs whose label starts with `with ` over the mean of those starting with `without`. */
export function throughputRatio(
  runs: Array<Pick<Throughput, 'label' | 'rps'>>,
  withRun = (l: string) => l.startsWith('with '),
  without = (l: string) => l.startsWith('without'),
): number | undefined {
  const mean = (list: Array<Pick<Throughput, 'rps'>>) => list.reduce((sum, r) => sum + r.rps, 0) / list.length;
  const base = runs.filter((r) => without(r.label));
  const measured = runs.filter((r) => withRun(r.label));
  return measured.length && base.length && mean(base) > 0 ? c.round(mean(measured) / mean(base), 3) : undefined;
}
const pausedRatio = (runs: Throughput[]) =>
  throughputRatio(
    runs,
    (l) => l.includes('delivering'),
    (l) => l.includes('paused'),
  );

/** The receiver; `unverified` holds the messages whose signature did not verify (or whose webhook was unknown), with why. */
async function startReceiver() {
  const receiver = { arrivals: [] as Arrival[], unverified: [] as string[], secrets: new Map<number, string>() };
  const verifiers = new Map<string, Webhook>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      // Answered before anything else: the lag measured is the service's, not this receiver's.
      res.writeHead(204).end();
      const hook = Number(/^\/hook\/(\d+)$/.exec(req.url ?? '')?.[1]);
      const secret = receiver.secrets.get(hook);
      if (!secret) return void receiver.unverified.push(`${req.url}: no webhook known there`);
      if (!verifiers.has(secret)) verifiers.set(secret, new Webhook(secret));
      let message: { type?: string; data?: { id?: unknown; record?: { title?: unknown } } };
      try {
        message = verifiers.get(secret)!.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as typeof message;
      } catch (err) {
        return void receiver.unverified.push(`${req.url} ${String(req.headers['webhook-id'])}: ${(err as Error).message}`);
      }
      if (message.type === 'webhook.ping') return;
      const title = message.data?.record?.title as string | { rendered?: unknown } | undefined;
      const text = typeof title === 'string' ? title : typeof title?.rendered === 'string' ? title.rendered : undefined;
      receiver.arrivals.push({
        hook,
        messageId: String(req.headers['webhook-id']),
        type: String(message.type),
        id: typeof message.data?.id === 'number' ? message.data.id : undefined,
        title: text,
        at,
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return { ...receiver, port: (server.address() as { port: number }).port, close };
}

export type Throughput = { label: string; rps: number; requests: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number; usage: c.Usage; writes?: LagLoad };

type LagLoad = { writes: Write[]; sent: number; errors: string[]; skipped: number; usage: c.Usage };

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type Bench = { opts: Options; base: string; pid: number; samples: Samples; receiver: Receiver };

/** A title no other write of the run uses (the key the receiver's messages are matched by). */
const uniqueTitle = (prefix: string, n: number) => `${prefix} ${n} ${crypto.randomBytes(4).toString('hex')}`;
/**
 * A create of an event with a venue and an organizer but no category or tag: one change in the feed.
 * A term's record shows its count of events, so a create with a category and a tag is three changes
 * (the event's and both terms'), and the rates the targets name are changes a second.
 */
const createWith = (b: Bench, title: string): BenchRequest => ({
  method: 'POST',
  path: c.api('/events'),
  headers: c.JSON_WRITE,
  body: eventBody(b.samples, Math.random, title, { categories: [], tags: [] }),
});
const call = (b: Bench, method: BenchRequest['method'], route: string, body?: unknown) => sendJson(b.base, method, route, body);

/** A closed loop of `request` on --connections for `seconds`, beside open-loop event creates at --rate when `beside`. */
async function closed(b: Bench, label: string, request: () => BenchRequest, o: { seconds?: number; beside?: boolean } = {}): Promise<Throughput> {
  const meter = c.usageMeter(b.pid);
  const loop = closedLoop({ base: b.base, connections: b.opts.connections, seconds: o.seconds ?? b.opts.duration, timeout: 30, request });
  const [r, writes]: [ClosedResult, LagLoad | undefined] = await Promise.all([loop, o.beside ? openWrites(b, b.opts.rate, 0, []) : undefined]);
  return { label, rps: r.rps, requests: r.requests, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, usage: meter(), writes };
}

const closedCreates = (b: Bench, label: string, seconds?: number) => {
  let n = 0;
  return closed(b, label, () => createWith(b, uniqueTitle('Bench closed', n++)), { seconds });
};

/** Open-loop writes at `rate` for --duration, each with a title of its own: creates, and a `patchShare` of PATCHes of the `pool`'s events. */
async function openWrites(b: Bench, rate: number, patchShare: number, pool: number[]): Promise<LagLoad> {
  const meter = c.usageMeter(b.pid);
  const writes: Write[] = [];
  const errors: string[] = [];
  let n = 0;
  type Req = BenchRequest & { write: Omit<Write, 'answeredAt' | 'id'> & { id?: number } };
  const loop = openLoop<Req>({
    base: b.base,
    rate,
    seconds: b.opts.duration,
    request: () => {
      const title = uniqueTitle('Bench hook', ++n);
      const id = pool.length && Math.random() < patchShare ? pool.pop()! : undefined;
      if (id === undefined) return { ...createWith(b, title), write: { kind: 'create', title } };
      return { method: 'PATCH', path: c.api(`/events/${id}`), headers: c.JSON_WRITE, body: JSON.stringify({ title }), write: { kind: 'update', id, title } };
    },
    onAnswer: (answer, req) => {
      if (answer.status >= 300) return void errors.push(`${req.method} ${req.path} -> ${answer.status} ${answer.body.slice(0, 300)}`);
      writes.push({ ...req.write, id: req.write.id ?? Number((JSON.parse(answer.body) as { id: number }).id), answeredAt: performance.now() });
    },
    onError: (err, req) => errors.push(`${req.method} ${req.path}: ${err.message}`),
  });
  const r = await loop.done;
  return { writes, sent: r.sent, errors, skipped: r.skipped, usage: meter() };
}

/** Waits until every write has reached every webhook (or --wait is up); the seconds waited. */
async function waitForArrivals(b: Bench, writes: Write[], hooks: number[]): Promise<number> {
  const started = performance.now();
  while (performance.now() < started + b.opts.wait * 1000 && matchLag(writes, b.receiver.arrivals, hooks).missing.length) await c.sleep(250);
  return c.round((performance.now() - started) / 1000, 1);
}

/** Creates webhooks at `urlOf(n)` for each receiver number; their ids in the service. */
async function createHooks(b: Bench, numbers: number[], urlOf = (n: number) => `http://127.0.0.1:${b.receiver.port}/hook/${n}`): Promise<number[]> {
  const ids: number[] = [];
  for (const n of numbers) {
    const { json } = await call(b, 'POST', '/webhooks', { url: urlOf(n), types: RECORD_TYPES, description: `bench receiver ${n}` });
    b.receiver.secrets.set(n, String(json?.secret));
    ids.push(Number(json?.id));
  }
  return ids;
}

const patchHooks = async (b: Bench, ids: number[], fields: { status?: 'paused' | 'active'; types?: string[] }) => {
  for (const id of ids) await call(b, 'PATCH', `/webhooks/${id}`, fields);
};
const deleteHooks = async (b: Bench, ids: number[]) => {
  for (const id of ids) await call(b, 'DELETE', `/webhooks/${id}`);
};

/** Creates at `rate` to `numbers`'s webhooks (created by `setup`); every message must arrive. */
async function lagScenario(b: Bench, label: string, numbers: number[], rate: number, ids: number[]) {
  try {
    const meter = c.usageMeter(b.pid);
    const load = await openWrites(b, rate, 0, []);
    const waitedSeconds = await waitForArrivals(b, load.writes, numbers);
    const match = matchLag(load.writes, b.receiver.arrivals, numbers);
    const { p50, p95, p99, max } = c.quantiles(match.lags);
    const sum = (key: 'received' | 'duplicates') => match.perHook.reduce((s, h) => s + h[key], 0);
    return {
      label,
      hooks: numbers.length,
      rate,
      writes: load.writes.length,
      expected: load.writes.length * numbers.length,
      received: sum('received'),
      missing: match.missing.length,
      duplicates: sum('duplicates'),
      lagMs: { p50, p95, p99, max },
      waitedSeconds,
      usage: meter(),
    };
  } finally {
    await deleteHooks(b, ids);
  }
}

/** Fairness: `count` webhooks at a receiver that reads each request and never answers, and one healthy; the healthy one's lag. */
async function fairness(b: Bench, count: number, rate: number) {
  const hanging = http.createServer((req) => req.resume());
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const port = (hanging.address() as { port: number }).port;
  const ids = [
    ...(await createHooks(
      b,
      Array.from({ length: count }, (_, i) => 3001 + i),
      (n) => `http://127.0.0.1:${port}/hook/${n}`,
    )),
    ...(await createHooks(b, [2001])),
  ];
  try {
    return await lagScenario(b, `fairness: 1 healthy webhook beside ${count} that hang, ${rate} changes/s`, [2001], rate, ids);
  } finally {
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  }
}

export async function main(argv: string[]): Promise<void> {
  const opts = c.options(argv, SPEC, import.meta.url);
  c.checkDatabaseUrl(opts.database);
  const started = new Date();
  if (!opts.tsx && !c.buildService()) opts.tsx = true;
  await seedCalendar({ events: opts.events, databaseUrl: opts.database, force: opts.force });
  const { engine, samples } = await samplesOf(opts.database);
  const receiver = await startReceiver();
  // The service's webhook settings are its defaults, but for the receiver's network: http on 127.0.0.1 (docs/webhooks.md "Safety").
  const service = await c.startService(opts.database, {
    tsx: opts.tsx,
    flags: opts.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts.profile)] : [],
    env: (env) => {
      for (const name of Object.keys(env)) if (name.startsWith('WEBHOOK_')) delete env[name];
      env.WEBHOOK_ALLOWED_NETWORKS = '127.0.0.0/8';
    },
  });
  const b: Bench = { opts, base: service.base, pid: service.child.pid, samples, receiver };
  const run: Run = { throughput: [], reads: [], writesUnder: [], scenarios: [] };
  const hooks = Array.from({ length: opts.hooks }, (_, i) => i + 1);
  const step = (text: string) => c.log(`${text}: ${opts.connections} connections, ${opts.duration}s`);
  try {
    if (!opts.skipThroughput) {
      // Not measured, but its answers are checked as the others': an error is an error.
      if (opts.warmup) run.warmup = await closedCreates(b, 'warm-up (not measured)', opts.warmup);
      step('throughput without webhooks');
      run.throughput.push(await closedCreates(b, 'without webhooks'));
    }
    // Events for the lag phase's PATCHes, created before the webhooks exist (so their creation is not sent).
    const pool: number[] = [];
    const poolSize = Math.ceil(opts.rate * opts.duration * opts.patchShare * 1.5) + 5;
    await closedLoop({
      base: b.base,
      connections: 4,
      requests: poolSize,
      timeout: 30,
      request: () => createWith(b, uniqueTitle('Bench pool', pool.length)),
      onAnswer: (_s, body) => void pool.push(Number(JSON.parse(body).id)),
    });
    const hookIds = await createHooks(b, hooks);
    c.log(`lag: ${opts.hooks} webhooks, open-loop writes at ${opts.rate}/s for ${opts.duration}s (${Math.round(opts.patchShare * 100)} % PATCHes)`);
    run.lag = await openWrites(b, opts.rate, opts.patchShare, pool);
    const meter = c.usageMeter(b.pid);
    const arrived = receiver.arrivals.length;
    run.waited = await waitForArrivals(b, run.lag.writes, hooks);
    const usage = meter();
    const messages = receiver.arrivals.length - arrived;
    // What delivery alone achieved once the writes stopped: the cost of a message apart from the writes'.
    if (usage.seconds >= 1 && messages >= 10)
      run.catchUp = {
        messages,
        perSecond: c.round(messages / usage.seconds, 1),
        cpuMsPerMessage: usage.serviceCores === undefined ? undefined : c.round((usage.serviceCores * usage.seconds * 1000) / messages, 2),
        usage,
      };
    if (!opts.skipThroughput) await pausedRuns(b, run, hookIds, hooks);
    if (!opts.skipScenarios) {
      await deleteHooks(b, hookIds);
      c.log(`fan-out: ${opts.fanout} webhooks, ${opts.fanoutRate} changes/s for ${opts.duration}s`);
      const fan = Array.from({ length: opts.fanout }, (_, i) => 1001 + i);
      run.scenarios.push(await lagScenario(b, `fan-out: ${opts.fanout} webhooks, ${opts.fanoutRate} changes/s`, fan, opts.fanoutRate, await createHooks(b, fan)));
      c.log(`fairness: ${opts.hanging} hanging webhooks + 1 healthy, ${opts.fanoutRate} changes/s for ${opts.duration}s`);
      run.scenarios.push(await fairness(b, opts.hanging, opts.fanoutRate));
    }
  } finally {
    await c.stopChild(service.child);
    await receiver.close();
  }
  report(opts, started, engine, hooks, receiver, run);
}

export interface Run {
  throughput: Throughput[];
  warmup?: Throughput;
  lag?: LagLoad;
  waited?: number;
  catchUp?: { messages: number; perSecond: number; cpuMsPerMessage?: number; usage: c.Usage };
  drain?: { expected: number; received: number[]; seconds: number };
  reads: Throughput[];
  writesUnder: Throughput[];
  deliveredUnder?: number;
  scenarios: Array<Awaited<ReturnType<typeof lagScenario>>>;
}

/**
 * Reads, then venue updates (the webhooks receiving events only, so they deliver --rate changes a
 * second whatever the closed loop's rate), beside open-loop creates, in windows with the webhooks
 * paused and delivering in a balanced order (`--paired-rounds`): the ratio is the delivering windows'
 * mean over the paused windows'. Then closed-loop creates with the webhooks, and without (paused).
 */
async function pausedRuns(b: Bench, run: Run, ids: number[], hooks: number[]): Promise<void> {
  const { opts, samples } = b;
  const pages = Math.max(1, Math.floor(samples.events.length / 10));
  const read = () => ({
    path: Math.random() < 0.5 ? c.api(`/events?per_page=10&page=${1 + Math.floor(Math.random() * pages)}`) : c.api(`/events/${c.pick(Math.random, samples.events).id}`),
  });
  let n = 0;
  const venueUpdate = (): BenchRequest => {
    n++;
    return {
      method: 'PATCH',
      path: c.api(`/venues/${samples.venueIds[n % samples.venueIds.length]}`),
      headers: c.JSON_WRITE,
      body: JSON.stringify({ phone: `555-${String(n).padStart(7, '0')}` }),
    };
  };
  const besides = async (list: Throughput[], what: string, request: () => BenchRequest, types: string[], statuses: Array<'paused' | 'active'>) => {
    for (const status of statuses) {
      const when = list.some((t) => t.label.includes('paused')) ? 'after' : 'before';
      const label = `${what} + ${opts.rate} changes/s, ${status === 'active' ? `${opts.hooks} webhooks delivering` : `webhooks paused, ${when}`}`;
      await patchHooks(b, ids, { status, types });
      c.log(`${label}: ${opts.connections} connections, ${opts.duration}s`);
      const arrived = b.receiver.arrivals.length;
      const measured = await closed(b, label, request, { beside: true });
      list.push(measured);
      // The creates of each run are delivered before the next begins.
      await patchHooks(b, ids, { status: 'active' });
      await waitForArrivals(b, measured.writes!.writes, hooks);
      if (status === 'active' && what !== 'reads') run.deliveredUnder = b.receiver.arrivals.length - arrived;
    }
  };
  // Windows in the order paused, delivering, delivering, paused, --paired-rounds times: a steady drift
  // of the machine's speed, or of the calendar's size as the creates add to it, cancels out of the
  // ratio of the means.
  const order = Array.from({ length: opts.pairedRounds }, () => ['paused', 'active', 'active', 'paused'] as const).flat();
  await besides(run.reads, 'reads', read, RECORD_TYPES, order);
  await besides(run.writesUnder, 'venue updates', venueUpdate, ['event'], order);
  await patchHooks(b, ids, { types: RECORD_TYPES, status: 'active' });
  c.log(`throughput with ${opts.hooks} webhooks: ${opts.connections} connections, ${opts.duration}s`);
  const before = b.receiver.arrivals.length;
  const result = await closedCreates(b, `with ${opts.hooks} webhooks`);
  run.throughput.push(result);
  // Not part of the verdict: how far delivery fell behind the closed loop, and whether it caught up within --wait.
  const expected = result.requests - result.non2xx;
  const counts = () => hooks.map((hook) => b.receiver.arrivals.slice(before).filter((a) => a.hook === hook && a.title?.startsWith('Bench closed')).length);
  const drainStart = performance.now();
  while (performance.now() - drainStart < opts.wait * 1000 && counts().some((x) => x < expected)) await c.sleep(250);
  run.drain = { expected, received: counts(), seconds: c.round((performance.now() - drainStart) / 1000, 1) };
  await patchHooks(b, ids, { status: 'paused' });
  c.log(`throughput without webhooks again (paused): ${opts.connections} connections, ${opts.duration}s`);
  run.throughput.push(await closedCreates(b, 'without webhooks (paused), after'));
}

function report(opts: Options, started: Date, engine: string, hooks: number[], receiver: Receiver, run: Run): void {
  const { throughput, lag } = run;
  const match = matchLag(lag?.writes ?? [], receiver.arrivals, hooks);
  const { p50, p95, p99, max } = c.quantiles(match.lags);
  const count = (kind: Write['kind']) => lag?.writes.filter((w) => w.kind === kind).length ?? 0;
  const summary = {
    lagMs: { p50, p95, p99, max },
    writes: {
      sent: lag?.sent ?? 0,
      answered: lag?.writes.length ?? 0,
      creates: count('create'),
      updates: count('update'),
      errors: lag?.errors.length ?? 0,
      skipped: lag?.skipped ?? 0,
    },
    missing: match.missing.length,
    unverified: receiver.unverified.length,
    throughputRatio: throughputRatio(throughput),
    readsRatio: pausedRatio(run.reads),
    writesUnderDeliveryRatio: pausedRatio(run.writesUnder),
  };
  const cores = (u?: c.Usage) => `${u?.serviceCores ?? '-'} / ${u?.machineCores ?? '-'}`;
  const runs = (heading: string, list: Throughput[]) =>
    c.table(
      [heading, 'req/s', 'requests', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'service cores', 'machine cores'],
      list.map((t) => [t.label, t.rps, t.requests, t.p50Ms, t.p99Ms, t.non2xx, t.errors, t.usage.serviceCores, t.usage.machineCores]),
    );
  const m = c.machine();
  const lines = [
    `Webhooks: ${opts.hooks} webhooks on ${c.describeUrl(opts.database)} (${engine}), one process; lag: ${opts.rate} writes/s open-loop for ${opts.duration}s; throughput: ${opts.connections} connections for ${opts.duration}s; code ${c.codeFingerprint()}`,
    `machine: ${m.cpus} x ${m.cpuModel}, load average ${m.loadAverage.join(' ')}`,
    '',
    c.table(
      ['lag: commit (2xx answer) to receiver', 'value'],
      [
        ['writes answered (creates + PATCHes)', `${summary.writes.answered} (${summary.writes.creates} + ${summary.writes.updates})`],
        ['write errors / sends skipped', `${summary.writes.errors} / ${summary.writes.skipped}`],
        ['lag p50 ms', p50],
        ['lag p95 ms (target < 1,000)', p95],
        ['lag p99 ms', p99],
        ['lag max ms', max],
        ['waited after the last answer, s', run.waited],
        ['service / machine cores during the writes', cores(lag?.usage)],
        [
          'catch-up after the writes: msg/s, service / machine cores, CPU ms/msg',
          run.catchUp ? `${run.catchUp.perSecond}, ${cores(run.catchUp.usage)}, ${run.catchUp.cpuMsPerMessage ?? '-'}` : '-',
        ],
      ],
    ),
    '',
    c.table(
      ['webhook', 'expected', 'received', 'missing', 'duplicates'],
      match.perHook.map((h) => [h.hook, h.expected, h.received, h.missing, h.duplicates]),
    ),
    `unverified messages: ${receiver.unverified.length}`,
  ];
  // Not a failure (receivers must deduplicate), but the service ran throughout: docs/webhooks.md "Guarantees" expects a duplicate only after a process died.
  const duplicates = match.perHook.reduce((sum, h) => sum + h.duplicates, 0);
  if (duplicates) lines.push(`!!! ${duplicates} messages came twice with the same webhook-id although the service never stopped !!!`);
  if (throughput.length) {
    const each = throughput.filter((t) => t.label.startsWith('without')).map((t) => throughputRatio([t, ...throughput.filter((w) => w.label.startsWith('with '))]));
    lines.push(
      '',
      runs('closed-loop POST /events', [...(run.warmup ? [run.warmup] : []), ...throughput]),
      `with / without (the mean of before and after): ${summary.throughputRatio ?? '-'} (target >= 0.95); to each: ${each.join(' / ')}`,
    );
    if (run.drain)
      lines.push(
        `delivery of the closed loop's creates (${run.drain.expected} answered in time, and those in flight at the end), ${run.drain.seconds}s after it: ${run.drain.received.join(' / ')} received per webhook`,
      );
  }
  if (run.reads.length)
    lines.push(
      '',
      runs('closed-loop GET /events (list page or one event)', run.reads),
      `reads with / the paused windows (mean of each): ${summary.readsRatio ?? '-'} (target >= 0.95)`,
    );
  if (run.writesUnder.length) {
    const expected = (run.writesUnder[1]?.writes?.writes.length ?? 0) * hooks.length;
    lines.push('', runs('closed-loop PATCH /venues/{id} (webhooks receive events only)', run.writesUnder));
    lines.push(
      `writes with ${opts.rate} changes/s delivered / the paused windows (mean of each): ${summary.writesUnderDeliveryRatio ?? '-'} (target >= 0.95); messages received for the delivering run: ${run.deliveredUnder ?? '-'} (its creates times the webhooks: ${expected})`,
    );
  }
  if (run.scenarios.length) {
    const headers = ['scenario', 'messages expected', 'received', 'missing', 'duplicates', 'lag p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'service / machine cores'];
    lines.push(
      '',
      c.table(
        headers,
        run.scenarios.map((s) => [s.label, s.expected, s.received, s.missing, s.duplicates, s.lagMs.p50, s.lagMs.p95, s.lagMs.p99, s.lagMs.max, cores(s.usage)]),
      ),
    );
    lines.push('targets: fan-out every message and p95 < 2,000 ms; fairness (the healthy webhook) p95 < 2,000 ms');
  }
  const brief = (t: Throughput) => ({ ...t, writes: t.writes && { answered: t.writes.writes.length, errors: t.writes.errors.length, skipped: t.writes.skipped } });
  const json = {
    mode: 'webhooks',
    options: { ...opts, database: c.describeUrl(opts.database) },
    summary,
    perWebhook: match.perHook,
    waitedSeconds: run.waited,
    catchUp: run.catchUp,
    lagUsage: lag?.usage,
    throughput,
    warmup: run.warmup,
    drain: run.drain,
  };
  const details = {
    reads: run.reads.map(brief),
    writesUnderDelivery: run.writesUnder.map(brief),
    scenarios: run.scenarios,
    missing: match.missing.slice(0, 100),
    unverified: receiver.unverified.slice(0, 100),
    writeErrors: lag?.errors.slice(0, 100),
  };
  c.writeResults(`webhooks-${engine}-`, started, { ...json, ...details }, lines.join('\n'));
  const closedErrors = [...(run.warmup ? [run.warmup] : []), ...throughput].reduce((s, t) => s + t.non2xx + t.errors, 0);
  c.failOn([
    summary.missing && `${summary.missing} MESSAGES MISSING`,
    summary.unverified && `${summary.unverified} MESSAGES UNVERIFIED`,
    summary.writes.errors && `${summary.writes.errors} WRITES FAILED`,
    summary.writes.skipped && `${summary.writes.skipped} WRITES SKIPPED`,
    closedErrors && `${closedErrors} CLOSED-LOOP ERRORS`,
    ...run.scenarios.filter((s) => s.missing).map((s) => `${s.missing} MESSAGES MISSING in ${s.label}`),
    ...[...run.reads, ...run.writesUnder].filter((t) => t.non2xx + t.errors + (t.writes?.errors.length ?? 0)).map((t) => `ERRORS in ${t.label}`),
  ]);
}
