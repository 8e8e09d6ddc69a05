/**
 * `npm run bench -- --soak MINUTES`: a long run of a steady, moderate mix of every kind of request, to
 * see whether the service's memory stays flat over time (docs/performance.md "Soak").
 *
 *   npm run bench -- --soak 60 [options]
 *
 * The service (METRICS=on) is driven open-loop at --rate requests/s drawn from the weighted mix
 * (MIX below), plus --long-polls clients following `/changes` with `wait`. Each minute it samples the
 * service's VmRSS, heap used and event-loop delay (/metrics), the minute's errors and p50/p99 per kind.
 * At the end: the table per minute (also as CSV), the least-squares slope of RSS and heap in MB per hour
 * after the warm-up (the first 10 minutes, or the first third of shorter runs), the errors and the p99
 * of the first and last warm-up-long spans. The exit code is 1 if any answer was an error.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as c from './common.js';
import { closedLoop, openLoop, parseJson, send, type BenchRequest } from './load.js';
import { eventBody, samplesOf, scenario, type Samples } from './scenarios.js';
import { SUBJECTS, seedCalendar } from './seed.js';

const SPEC = {
  soak: ['number', undefined, 1, 1440],
  events: ['number', 20_000, 100, 5_000_000],
  database: ['string', (o) => c.defaultSqliteUrl(`soak-${o.events}`)],
  rate: ['number', 60, 1, 1000],
  'long-polls': ['number', 4, 0, 50],
  'warmup-minutes': ['number', (o) => (Number(o.soak) >= 30 ? 10 : Math.max(1, Math.floor(Number(o.soak) / 3)))],
  out: ['string', c.RESULTS_DIR],
  'skip-seed': ['boolean'],
  seed: ['number', 42],
  force: ['boolean'],
  tsx: ['boolean'],
} satisfies c.Spec;

type Options = c.Options<typeof SPEC>;

/*
 * The request mix: every kind of read (the benchmark's scenarios), writes, idempotent creates and
 * series edits, with their weights and the answer each must get. Writes touch only records the soak
 * created itself (apart from updates of seeded events' cost), so reads of the seeded samples never meet
 * a deleted record. A record with a request in flight is "busy": no other write or delete picks it, so
 * that no answer depends on a race.
 */
interface SoakRequest extends BenchRequest {
  kind: Kind;
  /** The record this request holds busy until its answer (released by the sender). */
  lock?: number;
  /** For an idempotent create: its key and body, remembered for replays once it succeeded. */
  idempotent?: { key: string; body: string };
}

interface SoakState {
  samples: Samples;
  /** Events the soak created (single ones), oldest first; deletes take from the front. */
  created: number[];
  /** First events of the series the soak created. */
  series: number[];
  /** Idempotency keys whose first create succeeded, with the body sent (replays send the same). */
  keys: Array<{ key: string; body: string }>;
  busy: Set<number>;
}

type Check = (status: number, text: string, headers: Record<string, string | string[] | undefined>, request: SoakRequest, state: SoakState) => string | undefined;

interface Kind {
  name: string;
  /** Relative share of the requests. */
  weight: number;
  /** The next request, or undefined when there is nothing to do it on yet (no record created). */
  request(state: SoakState): Omit<SoakRequest, 'kind'> | undefined;
  /** What is wrong with the answer (undefined when it is the expected one); may record what it created. */
  check: Check;
}

/** At most this many created events and remembered keys are kept to pick from (older ones are forgotten, not deleted). */
const KEEP = 5000;
const r = Math.random;
const hex = () => crypto.randomBytes(4).toString('hex');
const status =
  (expected: number): Check =>
  (got) =>
    got === expected ? undefined : `expected ${expected}`;
const get = (route: string) => ({ method: 'GET' as const, path: c.api(route) });

/** A read of the benchmark's scenario of that name. */
const read = (name: string, weight: number, from = name): Kind => ({ name, weight, request: (s) => scenario(from).request(s.samples, r), check: status(200) });
const simple = (name: string, weight: number, request: Kind['request']): Kind => ({ name, weight, request, check: status(200) });

/** A record of `list` that no other request holds, marked busy; undefined if none is free. */
function take(state: SoakState, list: number[], from: 'oldest' | 'any'): number | undefined {
  for (let attempt = 0; attempt < 5 && list.length; attempt++) {
    const id = from === 'oldest' ? list[attempt] : list[Math.floor(r() * list.length)];
    if (id !== undefined && !state.busy.has(id)) return (state.busy.add(id), id);
  }
  return undefined;
}

function remember<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > KEEP) list.shift();
}

/** A 201 with an id, remembered in `list` of the state. */
const created =
  (list: 'created' | 'series'): Check =>
  (got, text, _h, req, s) => {
    const id = parseJson(text)?.id;
    if (got !== 201 || typeof id !== 'number') return 'expected 201 with an id';
    remember(s[list], id);
    if (req.idempotent) remember(s.keys, req.idempotent);
    return undefined;
  };

const newEvent = (s: SoakState, series?: string[]) => {
  const start = Date.now() + Math.floor(1 + r() * 300) * c.DAY;
  const title = `Soak ${c.pick(r, SUBJECTS)} ${series ? 'series' : 'evening'} ${hex()}`;
  return eventBody(s.samples, r, title, { start_date: `${c.day(start)} 19:00:00`, end_date: `${c.day(start)} 21:00:00`, ...(series ? { recurrence: series } : {}) });
};
const remove = (s: SoakState, list: number[]) => {
  const id = take(s, list, 'oldest');
  if (id === undefined) return undefined;
  list.splice(list.indexOf(id), 1);
  return { method: 'DELETE' as const, path: c.api(`/events/${id}?force=true`), headers: { authorization: c.AUTH }, lock: id };
};

/** Weights: about 75 % reads, 25 % writes; creates and deletes balance so the calendar keeps its size. */
const MIX: Kind[] = [
  read('event-by-id', 14),
  read('event-by-slug', 6),
  simple('event-ics', 2, (s) => get(`/events/${c.pick(r, s.samples.events).id}/ics`)),
  read('events-default', 5),
  read('events-filtered', 5),
  read('events-search', 4),
  simple('events-page', 4, () => get(`/events?page=${2 + Math.floor(r() * 4)}&per_page=20`)),
  read('events-jsonld', 3),
  read('events-ics', 2),
  read('events-modified-after', 2),
  simple('venue-by-id', 3, (s) => get(`/venues/${c.pick(r, s.samples.venueIds)}`)),
  simple('organizer-by-id', 2, (s) => get(`/organizers/${c.pick(r, s.samples.organizerIds)}`)),
  read('venues-upcoming', 2),
  read('categories', 2),
  simple('tags', 1, () => get('/tags?per_page=50')),
  read('changes-page', 1, 'changes'),
  simple('series-occurrences', 2, (s) => {
    const id = take(s, s.series, 'any');
    return id === undefined ? undefined : { ...get(`/events/${id}/occurrences?per_page=10`), lock: id };
  }),
  { name: 'create', weight: 4, request: (s) => ({ method: 'POST', path: c.api('/events'), headers: c.JSON_WRITE, body: newEvent(s) }), check: created('created') },
  // The cost of a seeded event, or the title of one the soak created.
  simple('update', 5, (s) => {
    const own = r() < 0.5 ? take(s, s.created, 'any') : undefined;
    const body = own === undefined ? { cost: `$${5 + Math.floor(r() * 40)}` } : { title: `Soak updated ${hex()}`, cost: '$12' };
    return { method: 'PATCH', path: c.api(`/events/${own ?? c.pick(r, s.samples.events).id}`), headers: c.JSON_WRITE, body: JSON.stringify(body), lock: own };
  }),
  simple('delete', 5, (s) => remove(s, s.created)),
  {
    name: 'idempotent-new',
    weight: 2,
    request: (s) => {
      const [key, body] = [crypto.randomUUID(), newEvent(s)];
      return { method: 'POST', path: c.api('/events'), headers: { ...c.JSON_WRITE, 'idempotency-key': key }, body, idempotent: { key, body } };
    },
    check: created('created'),
  },
  {
    // A retry of an earlier create: the stored answer again, nothing created (also when the event was deleted since).
    name: 'idempotent-replay',
    weight: 2,
    request: (s) => {
      if (!s.keys.length) return undefined;
      const { key, body } = c.pick(r, s.keys);
      return { method: 'POST', path: c.api('/events'), headers: { ...c.JSON_WRITE, 'idempotency-key': key }, body };
    },
    check: (got, _t, headers) => (got === 201 && headers['idempotent-replayed'] === 'true' ? undefined : 'expected 201 with Idempotent-Replayed: true'),
  },
  {
    name: 'series-create',
    weight: 0.4,
    request: (s) => ({ method: 'POST', path: c.api('/events'), headers: c.JSON_WRITE, body: newEvent(s, ['RRULE:FREQ=WEEKLY;COUNT=8']) }),
    check: created('series'),
  },
  // A change of the whole series (the first event: scope `all`), copied to every occurrence.
  simple('series-edit', 1, (s) => {
    const id = take(s, s.series, 'any');
    const body = { title: `Soak series renamed ${hex()}`, cost: `$${Math.floor(r() * 30)}` };
    return id === undefined ? undefined : { method: 'PATCH', path: c.api(`/events/${id}`), headers: c.JSON_WRITE, body: JSON.stringify(body), lock: id };
  }),
  // Keep a few series to edit: delete only beyond 20.
  simple('series-delete', 0.3, (s) => (s.series.length <= 20 ? undefined : remove(s, s.series))),
];

/** A kind drawn by weight. */
function pickKind(): Kind {
  let left = r() * MIX.reduce((sum, k) => sum + k.weight, 0);
  for (const kind of MIX) if ((left -= kind.weight) < 0) return kind;
  return MIX[MIX.length - 1];
}

/** What one minute saw: latencies and statuses per kind, then the service's memory at its end. */
interface Minute {
  minute: number;
  latencies: Map<string, number[]>;
  longPolls: number;
  errors: number;
  skipped: number;
  rssMb?: number;
  heapUsedMb?: number;
  externalMb?: number;
  lagP99Ms?: number;
  lagMaxMs?: number;
  serviceCores?: number;
  machineCores?: number;
}

/** Heap and event-loop delay from the prom-client default metrics (the delay histogram is reset at each scrape: the minute's own). */
async function scrape(base: string): Promise<Partial<Minute>> {
  // /metrics skips the reads' queue, but on a starved machine the event loop itself may take seconds to get to it.
  const text = await send(base, { path: '/metrics' }).then(
    (a) => a.body,
    () => '',
  );
  const value = (name: string, scale: number, digits: number) => {
    const match = new RegExp(`^${name} ([0-9.eE+-]+)`, 'm').exec(text);
    return match ? c.round(Number(match[1]) * scale, digits) : undefined;
  };
  const mb = 1 / 2 ** 20;
  return {
    heapUsedMb: value('nodejs_heap_size_used_bytes', mb, 1),
    externalMb: value('nodejs_external_memory_bytes', mb, 1),
    lagP99Ms: value('nodejs_eventloop_lag_p99_seconds', 1000, 1),
    lagMaxMs: value('nodejs_eventloop_lag_max_seconds', 1000, 1),
  };
}

/** Least-squares slope of y over x (minutes), in units per hour; undefined with fewer than 2 points. */
export function slopePerHour(points: Array<[number, number]>): number | undefined {
  if (points.length < 2) return undefined;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx === 0 ? undefined : c.round((sxy / sxx) * 60, 2);
}

const at = (sorted: number[], q: number) => (sorted.length ? c.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))], 1) : undefined);

/** All latencies of the given minutes (of one kind if given), sorted. */
function latencies(minutes: Minute[], kind?: string): number[] {
  return minutes.flatMap((m) => [...m.latencies].filter(([name]) => kind === undefined || kind === name).flatMap(([, list]) => list)).sort((a, b) => a - b);
}

function csv(minutes: Minute[]): string {
  const kinds = MIX.map((k) => k.name).filter((name) => minutes.some((m) => m.latencies.has(name)));
  const header = [
    'minute',
    'requests',
    'long_polls',
    'errors',
    'skipped',
    'rss_mb',
    'heap_used_mb',
    'external_mb',
    'loop_delay_p99_ms',
    'loop_delay_max_ms',
    'service_cores',
    'machine_cores',
    'p50_ms',
    'p99_ms',
    ...kinds.flatMap((k) => [`${k}_n`, `${k}_p50_ms`, `${k}_p99_ms`]),
  ];
  const rows = minutes.map((m) => {
    const all = latencies([m]);
    const perKind = kinds.flatMap((k) => [latencies([m], k).length, at(latencies([m], k), 0.5), at(latencies([m], k), 0.99)]);
    return [
      m.minute,
      all.length,
      m.longPolls,
      m.errors,
      m.skipped,
      m.rssMb,
      m.heapUsedMb,
      m.externalMb,
      m.lagP99Ms,
      m.lagMaxMs,
      m.serviceCores,
      m.machineCores,
      at(all, 0.5),
      at(all, 0.99),
      ...perKind,
    ];
  });
  return `${[header, ...rows].map((row) => row.map((x) => (x === undefined ? '' : String(x))).join(',')).join('\n')}\n`;
}

export async function main(argv: string[]): Promise<void> {
  const opts = c.options(argv, SPEC, import.meta.url);
  if (!Number.isInteger(opts.soak)) throw new Error(`--soak needs whole minutes, 1 to 1440, got ${opts.soak}`);
  c.checkDatabaseUrl(opts.database);
  opts.out = path.resolve(c.ROOT, opts.out);
  const started = new Date();
  fs.mkdirSync(opts.out, { recursive: true });
  if (!opts.tsx && !c.buildService()) opts.tsx = true;
  if (!opts.skipSeed) await seedCalendar({ events: opts.events, databaseUrl: opts.database, seed: opts.seed, force: opts.force });
  const { engine, samples } = await samplesOf(opts.database);
  const prefix = path.join(opts.out, `soak-${engine}-${started.toISOString().replace(/[:.]/g, '-')}`);
  let errorLines = 0;
  const errorLog = (line: string) => {
    // Every error goes to the file; the first 20 to the terminal too.
    fs.appendFileSync(`${prefix}-errors.log`, `${new Date().toISOString()} ${line}\n`);
    if (errorLines++ < 20) c.log(`!!! ${line}`);
  };
  const service = await c.startService(opts.database, { tsx: opts.tsx, env: (env) => ((env.METRICS = 'on'), delete env.METRICS_TOKEN) });
  const fresh = (minute: number): Minute => ({ minute, latencies: new Map(), longPolls: 0, errors: 0, skipped: 0 });
  // Minute 0: the service at rest, just started, before any load.
  const minutes: Minute[] = [{ ...fresh(0), rssMb: c.memoryOf(service.child.pid)?.rssMb, ...(await scrape(service.base)) }];
  let now = fresh(1);
  const fail = (line: string) => void (now.errors++, errorLog(line));
  const state: SoakState = { samples, created: [], series: [], keys: [], busy: new Set() };
  c.log(`soak: ${opts.soak} min at ${opts.rate} req/s + ${opts.longPolls} long polls, ${c.describeUrl(opts.database)}; warm-up ${opts.warmupMinutes} min; CSV ${prefix}.csv`);
  const load = openLoop<SoakRequest>({
    base: service.base,
    rate: opts.rate,
    request: () => {
      const kind = pickKind();
      const request = kind.request(state);
      return request && { ...request, kind };
    },
    onAnswer: (answer, req) => {
      const list = now.latencies.get(req.kind.name) ?? [];
      now.latencies.set(req.kind.name, list);
      list.push(answer.ms);
      const problem = req.kind.check(answer.status, answer.body, answer.headers, req, state);
      if (problem) fail(`${req.kind.name}: ${req.method} ${req.path} -> ${answer.status} ${problem} ${answer.body.slice(0, 300)}`);
      if (req.lock !== undefined) state.busy.delete(req.lock);
    },
    onError: (err, req) => {
      fail(`${req.kind.name}: ${req.method} ${req.path} -> no answer (${err.message})`);
      if (req.lock !== undefined) state.busy.delete(req.lock);
    },
  });
  // Clients following the change feed (`wait` 20 s): the cursor is the latest any of them was given.
  let cursor = String((await send(service.base, { path: c.api('/events?per_page=1') })).headers['x-tec-change-cursor'] ?? '');
  const polls = opts.longPolls
    ? closedLoop({
        base: service.base,
        connections: opts.longPolls,
        seconds: opts.soak * 60 + 60,
        timeout: 50,
        request: () => ({ path: c.api(`/changes?${new URLSearchParams({ after: cursor, wait: '20', per_page: '100' })}`) }),
        onAnswer: (status, body) => {
          now.longPolls++;
          if (status === 200) cursor = (JSON.parse(body) as { next_cursor?: string }).next_cursor ?? cursor;
          else fail(`changes-long-poll: -> ${status} ${body.slice(0, 300)}`);
        },
      })
    : undefined;
  let died = false;
  let stopping = false;
  void service.child.exited.then(() => (died = !stopping));
  const loadStarted = Date.now();
  let skipped = 0;
  let meter = c.usageMeter(service.child.pid);
  try {
    for (let minute = 1; minute <= opts.soak && !died; minute++) {
      // Sleep to the minute's end on the clock of the start (no drift from the sampling itself).
      await c.sleep(Math.max(0, loadStarted + minute * 60_000 - Date.now()));
      const ended = now;
      now = fresh(minute + 1);
      ended.skipped = load.counts.skipped - skipped;
      skipped = load.counts.skipped;
      const { serviceCores, machineCores } = meter();
      meter = c.usageMeter(service.child.pid);
      Object.assign(ended, { rssMb: c.memoryOf(service.child.pid)?.rssMb, serviceCores, machineCores }, await scrape(service.base));
      minutes.push(ended);
      // The CSV so far, every minute: an interrupted run still leaves its figures.
      fs.writeFileSync(`${prefix}.csv`, csv(minutes));
      const all = latencies([ended]);
      c.log(
        `minute ${minute}: ${all.length} requests, errors ${ended.errors}, RSS ${ended.rssMb} MB, heap ${ended.heapUsedMb} MB, loop delay p99 ${ended.lagP99Ms} ms, service ${ended.serviceCores} / machine ${ended.machineCores} cores, p50 ${at(all, 0.5)} ms, p99 ${at(all, 0.99)} ms`,
      );
    }
  } finally {
    await load.stop();
    polls?.stop();
    await polls;
    stopping = true;
    await c.stopChild(service.child);
  }
  if (died) errorLog(`the service exited during the soak:\n${service.child.output.slice(-30).join('\n')}`);
  report(opts, minutes, prefix, started, died);
}

function report(opts: Options, minutes: Minute[], prefix: string, started: Date, died: boolean): void {
  fs.writeFileSync(`${prefix}.csv`, csv(minutes));
  const loaded = minutes.filter((m) => m.minute > 0);
  const after = loaded.filter((m) => m.minute >= opts.warmupMinutes);
  const points = (key: 'rssMb' | 'heapUsedMb') => after.filter((m) => m[key] !== undefined).map((m): [number, number] => [m.minute, m[key]!]);
  const span = Math.max(1, Math.min(opts.warmupMinutes, Math.floor(loaded.length / 2)));
  const [first, last] = [loaded.slice(0, span), loaded.slice(-span)];
  const sum = (key: 'errors' | 'skipped') => loaded.reduce((s, m) => s + m[key], 0);
  const p99Trend = MIX.map((k) => k.name)
    .filter((k) => loaded.some((m) => m.latencies.has(k)))
    .map((k) => [k, at(latencies(first, k), 0.99), at(latencies(last, k), 0.99)]);
  const summary = {
    rssMbAtWarmup: minutes.find((m) => m.minute === opts.warmupMinutes)?.rssMb,
    rssMbAtEnd: loaded.at(-1)?.rssMb,
    rssSlopeMbPerHour: slopePerHour(points('rssMb')),
    heapSlopeMbPerHour: slopePerHour(points('heapUsedMb')),
    p99FirstMs: at(latencies(first), 0.99),
    p99LastMs: at(latencies(last), 0.99),
    errors: sum('errors'),
    skipped: sum('skipped'),
    serviceDied: died,
  };
  const perMinute = minutes.map((m) => {
    const all = latencies([m]);
    return [m.minute, all.length, m.longPolls, m.errors, m.rssMb, m.heapUsedMb, m.lagP99Ms, m.serviceCores, m.machineCores, at(all, 0.5), at(all, 0.99)];
  });
  const text = [
    `Soak: ${opts.soak} min on ${c.describeUrl(opts.database)}, ${opts.rate} req/s + ${opts.longPolls} long polls; code ${c.codeFingerprint()}`,
    '',
    c.table(['minute', 'requests', 'long polls', 'errors', 'RSS MB', 'heap MB', 'loop delay p99 ms', 'service cores', 'machine cores', 'p50 ms', 'p99 ms'], perMinute),
    '',
    c.table(
      ['figure', 'value'],
      [
        [`RSS at minute ${opts.warmupMinutes} (end of warm-up), MB`, summary.rssMbAtWarmup],
        [`RSS at minute ${loaded.at(-1)?.minute ?? '-'}, MB`, summary.rssMbAtEnd],
        ['RSS slope after warm-up (least squares), MB/h', summary.rssSlopeMbPerHour],
        ['heap used slope after warm-up, MB/h', summary.heapSlopeMbPerHour],
        [`p99 of the first ${span} min, ms`, summary.p99FirstMs],
        [`p99 of the last ${span} min, ms`, summary.p99LastMs],
        ['errors (5xx, unexpected status, no answer)', summary.errors],
        ['sends skipped (more than 256 in flight)', summary.skipped],
      ],
    ),
    '',
    `p99 per kind, first ${span} min vs last ${span} min (ms)`,
    c.table(['kind', 'first', 'last'], p99Trend as Array<Array<string | number | undefined>>),
  ].join('\n');
  const json = {
    started: started.toISOString(),
    finished: new Date().toISOString(),
    options: { ...opts, database: c.describeUrl(opts.database) },
    code: c.codeFingerprint(),
    summary,
    p99Trend,
  };
  fs.writeFileSync(`${prefix}.json`, `${JSON.stringify({ ...json, minutes: minutes.map((m) => ({ ...m, latencies: undefined })) }, null, 2)}\n`);
  fs.writeFileSync(`${prefix}.txt`, `${text}\n`);
  process.stdout.write(`\n${text}\n\nresults: ${prefix}.{csv,json,txt}${summary.errors ? `, errors in ${prefix}-errors.log` : ''}\n`);
  if (summary.rssSlopeMbPerHour !== undefined && summary.rssSlopeMbPerHour > 5) process.stdout.write('\n!!! RSS GROWS MORE THAN 5 MB/h AFTER THE WARM-UP !!!\n');
  c.failOn([(summary.errors || died) && `${summary.errors} ERROR ANSWERS${died ? ', THE SERVICE DIED' : ''}`]);
}
