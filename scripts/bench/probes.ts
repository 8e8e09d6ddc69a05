/**
 * `npm run bench -- --probe NAME`: figures that hardly move when other processes share the machine,
 * each driven by the benchmark's one request loop (load.ts) on the scenarios' requests, from a fixed
 * seed (so that two builds are timed on the same requests). The service runs in this process unless
 * said otherwise, with response validation off and logging silent, as in production.
 *
 *   --probe cpu     [--set requests|feed|search|ics] [--events N | --database URL] [--requests N] [--only TEXT]
 *                   [--connections 1] [--allocations] [--answers FILE]
 *                   Per row of the set (those whose name contains --only): CPU and wall time per request
 *                   (client included, which is small), latency p50/p90/max, collections and heap peak.
 *                   requests (default; 100,000 events, 2,000 requests): eleven reads and writes.
 *                   feed (10,000 events, 400 requests): events-ics, events-jsonld, changes.
 *                   search (10,000 events, 300 requests): `GET /events?search=` by kind of word, each
 *                   window a day earlier than the last (no remembered reply or total).
 *                   ics (500 events, 40 requests): `GET /events.ics` of events in five zones in a fresh
 *                   SQLite file (made through the API), a different window each time.
 *                   --allocations samples where the bytes were allocated and prints the 25 sites that
 *                   allocated most; --answers FILE writes each answer's ids, order and X-WP-Total to diff.
 *   --probe purge   [--events 2000] [--requests 300] [--rounds 3]: CPU per PATCH without PURGE_URL and with
 *                   it (BANs to a fake cache answering 200 at once), until the last write's BAN is sent.
 *   --probe commit  [--commits 300] [--rounds 2]: one SQLite commit as the service opens it, synced
 *                   (`SQLITE_SYNCHRONOUS` full) and not (normal), in a scratch file: the disk's sync time.
 *   --probe memory  [--events 10000 | --database URL] [--scenarios events-ics,events-jsonld,changes | all]
 *                   [--requests 600] [--connections 32] [--node-flags '--trace-gc'] [--breakdown]
 *                   The resident peak (VmHWM) of dist/, started as `npm start` does (build it first), after
 *                   a fixed number of requests per scenario; --breakdown adds what it was made of
 *                   (memory-sampler.mjs); with --trace-gc the largest heap V8 committed.
 *   --probe explain [--events 100000 | --database URL] [--scenarios a,b] [--repeat 15] [--writes] [--full]
 *                   Every statement of each scenario's request with its query plan and median time.
 *   --probe profile --file FILE.cpuprofile [--top 25]: where the time of a `node --cpu-prof` profile goes.
 *
 * The databases (but for `--set ics`, purge and commit) must have been seeded (npm run bench).
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { Session } from 'node:inspector/promises';
import type { Knex } from 'knex';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { openDatabase, type SqliteSynchronous } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createApp } from '../../src/http/app.js';
import { UserRepository } from '../../src/repositories/users.js';
import { startCachePurger } from '../../src/cache/purger.js';
import * as c from './common.js';
import { closedLoop, send, sendJson, type BenchRequest } from './load.js';
import { SCENARIOS, createEvent, loadSamples, patchEvent, samplesOf, scenario, type Samples } from './scenarios.js';
import { ADJECTIVES, FORMATS, SUBJECTS } from './seed.js';

// Keyed by probe, or by `--set` for `--probe cpu` (whose sets were probes of their own until 2026-12-01).
const DEFAULT_EVENTS: Record<string, number> = { requests: 100_000, explain: 100_000, ics: 500, purge: 2000 };
const DEFAULT_REQUESTS: Record<string, number> = { requests: 2000, feed: 400, search: 300, ics: 40, purge: 300, memory: 600 };
const defaultOf = (table: Record<string, number>, o: Record<string, unknown>) => table[String(o.probe === 'cpu' ? o.set : o.probe)];
const SPEC = {
  probe: ['string'],
  set: ['string', 'requests'],
  events: ['number', (o) => defaultOf(DEFAULT_EVENTS, o) ?? 10_000, 1, 5_000_000],
  database: ['string', (o) => c.defaultSqliteUrl(Number(o.events))],
  requests: ['number', (o) => defaultOf(DEFAULT_REQUESTS, o), 1, 1_000_000],
  connections: ['number', (o) => (o.probe === 'memory' ? 32 : 1), 1, 256],
  only: ['string'],
  allocations: ['boolean'],
  answers: ['string'],
  rounds: ['number', (o) => (o.probe === 'commit' ? 2 : 3), 1, 100],
  commits: ['number', 300, 1, 100_000],
  scenarios: ['string'],
  'node-flags': ['string', ''],
  breakdown: ['boolean'],
  repeat: ['number', 15, 1, 100],
  writes: ['boolean'],
  full: ['boolean'],
  file: ['string'],
  top: ['number', 25, 1, 1000],
} satisfies c.Spec;

type ProbeOptions = c.Options<typeof SPEC>;

/** The app over `url` (migrated first) in this process, on an ephemeral port of 127.0.0.1. */
async function inProcess(url: string, env: Record<string, string | undefined> = {}): Promise<{ db: Knex; base: string; close(): Promise<void> }> {
  const { db } = openDatabase(url);
  await migrateLatest(db);
  // REPLY_CACHE=off probes the service without its reply cache.
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, REPLY_CACHE: process.env.REPLY_CACHE, ...env });
  const server = http.createServer(createApp({ config: { ...config, validateResponses: false }, db, logger: createLogger('silent') })).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { db, base, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => void db.destroy().then(resolve)))) };
}

const seeded = (name: string, seed: number, samples: Samples) => {
  const random = c.rng(seed);
  return () => scenario(name).request(samples, random);
};

/** A fresh SQLite file under the temporary folder with an administrator, served in this process. */
async function scratch(prefix: string, env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const app = await inProcess(`sqlite:${path.join(dir, 'events.sqlite')}`, env);
  await new UserRepository(app.db).add(c.BENCH_ADMIN.login, 'administrator', c.BENCH_ADMIN.secret);
  const write = async (method: BenchRequest['method'], route: string, body: unknown) => Number((await sendJson(app.base, method, route, body)).json?.id);
  return { ...app, write, close: () => app.close().then(() => fs.rmSync(dir, { recursive: true, force: true })) };
}

/** One measured line of `--probe cpu`: a name, the next request, and a check of each answer. */
type Row = { name: string; make: () => BenchRequest; requests?: number; onAnswer?: (status: number, body: string, headers: Record<string, string>) => void };

/** The service and the rows of one `--set`: the scenarios' requests, the feeds, searches by kind of word, or an ICS feed in five zones. */
const SETS: Record<string, (o: ProbeOptions) => Promise<{ app: Awaited<ReturnType<typeof inProcess>>; rows: Row[]; finish?: () => void }>> = {
  async requests(o) {
    const app = await inProcess(o.database);
    const samples = await loadSamples(app.db);
    let k = 0;
    const row = (name: string, make: () => BenchRequest): Row => ({ name, make, requests: /^(POST|PATCH)/.test(name) ? Math.min(o.requests, 500) : undefined });
    const rows = [
      row('GET /events/{id} (a different event each time)', () => ({ path: c.api(`/events/${samples.events[(k = (k + 7919) % samples.events.length)].id}`) })),
      row('GET /events/{id} (the same event: a remembered reply)', seeded('event-by-id-same', 1, samples)),
      row('GET /events (default window)', seeded('events-default', 1, samples)),
      row('GET /events?categories&start_date&end_date&search', seeded('events-filtered', 15, samples)),
      row('GET /events?search="<phrase>"', seeded('events-search', 16, samples)),
      row('GET /events?search=<word or phrase>&start_date&end_date', seeded('events-search-words', 17, samples)),
      row('GET /venues?only_with_upcoming=1', seeded('venues-upcoming', 1, samples)),
      row('GET /categories', seeded('categories', 1, samples)),
      row('GET /healthz (the HTTP stack alone)', () => ({ path: '/healthz' })),
      row('POST /events (venue, organizer, 2 terms)', () => createEvent(samples, Math.random)),
      row('PATCH /events/{id} (title and cost)', () => patchEvent(samples, Math.random)),
    ];
    return { app, rows };
  },
  async feed(o) {
    const app = await inProcess(o.database);
    const samples = await loadSamples(app.db);
    return { app, rows: ['events-ics', 'events-jsonld', 'changes'].map((name) => ({ name, make: seeded(name, 31, samples) })) };
  },
  async search(o) {
    const app = await inProcess(o.database);
    const samples = await loadSamples(app.db);
    const end = c.day(samples.lastDay + 365 * c.DAY);
    let shift = 0;
    // Each window starts a day earlier than the last (all before the calendar, so the answer is the same): neither reply nor total is remembered.
    const fresh = () => ({ start_date: c.day(samples.firstDay - (730 + (shift++ % 3000)) * c.DAY), end_date: end });
    const fixed = () => ({ start_date: c.day(samples.firstDay - 730 * c.DAY), end_date: end });
    const common = (r: () => number) => c.pick(r, [ADJECTIVES, SUBJECTS, FORMATS][Math.floor(r() * 3)]).toLowerCase();
    const kinds: Array<[string, (r: () => number) => Record<string, string>]> = [
      ['common word, page 1', (r) => ({ ...fresh(), search: common(r) })],
      ['common word, pages 1-5 (total remembered)', (r) => ({ ...fixed(), search: common(r), page: String(1 + Math.floor(r() * 5)) })],
      ['two common words', (r) => ({ ...fresh(), search: `${common(r)} ${common(r)}` })],
      ['very common word ("the")', () => ({ ...fresh(), search: 'the' })],
      ['rare title phrase', (r) => ({ ...fresh(), search: `"${c.pick(r, ADJECTIVES)} ${c.pick(r, SUBJECTS)} ${c.pick(r, FORMATS)}"` })],
      ['word found nowhere', (r) => ({ ...fresh(), search: `zq${Math.floor(r() * 36 ** 5).toString(36)}` })],
      ['common word, default window', (r) => ({ search: common(r), page: String(1 + Math.floor(r() * 3)) })],
    ];
    // --answers: each answer's ids, order and X-WP-Total, to diff two builds' (the warm-up's answers are written too).
    const answers: string[] = [];
    const rows = kinds.map(([name, query]): Row => {
      const r = c.rng(31);
      const sent: URLSearchParams[] = [];
      let got = 0;
      return {
        name,
        make: () => (sent.push(new URLSearchParams(query(r))), { path: c.api(`/events?${sent.at(-1)}`) }),
        onAnswer: (_status, body, headers) => {
          const q = sent[got++] ?? new URLSearchParams();
          q.delete('start_date');
          answers.push(`${name}\t${q}\t${headers['x-wp-total']}\t${((JSON.parse(body) as { events?: Array<{ id: number }> }).events ?? []).map((e) => e.id).join(',')}`);
        },
      };
    });
    return { app, rows, finish: () => o.answers && fs.writeFileSync(o.answers, `${answers.join('\n')}\n`) };
  },
  async ics(o) {
    const app = await scratch('ics-probe-', { PUBLIC_URL: 'http://bench.test' });
    const zones = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'UTC+5.5', 'Australia/Sydney'];
    const [venues, organizers]: number[][] = [[], []];
    for (let i = 0; i < 20; i++) {
      venues.push(await app.write('POST', '/venues', { venue: `Hall ${i}`, address: `${i} Main Street`, city: 'Springfield', geo_lat: 40 + i / 10, geo_lng: -70 }));
      organizers.push(await app.write('POST', '/organizers', { organizer: `Crew ${i}`, email: `crew${i}@example.test` }));
    }
    for (let i = 0; i < o.events; i++) {
      const date = c.day(Date.UTC(2030, 0, 1) + (i % 365) * c.DAY);
      await app.write('POST', '/events', {
        title: `Concert ${i}: strings, winds; and voices – 音楽会 🎻`,
        description: `<p>An evening of music number ${i}.</p><p>${'Long programme text. '.repeat(10)}</p>`,
        start_date: `${date} 19:00:00`,
        end_date: `${date} 22:00:00`,
        all_day: i % 10 === 0,
        timezone: zones[i % zones.length],
        venue: venues[i % venues.length],
        organizer: [organizers[i % organizers.length]],
        categories: [`Category ${i % 8}`],
      });
    }
    // A window ending on a different day each time: the same events, never a remembered reply.
    let n = 0;
    const make = () => ({ path: c.api(`/events.ics?start_date=2030-01-01&end_date=${c.day(Date.UTC(2031, 0, 1) + n++ * c.DAY)}`) });
    const onAnswer = (_status: number, body: string) => {
      const events = (body.match(/^BEGIN:VEVENT\r$/gm) ?? []).length;
      if (events !== o.events) throw new Error(`${events} events in the feed, expected ${o.events}`);
    };
    return { app, rows: [{ name: `GET /events.ics (${o.events} events in five zones)`, make, onAnswer }] };
  },
};

type AllocationNode = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: AllocationNode[] };

/** The 25 functions that allocated most, with their callers' chain (two up), in KB per request. */
function printAllocations(head: AllocationNode, count: number): void {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocationNode, chain: string[]) => {
    const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
    const key = [...chain, frame].slice(-3).join(' < ');
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child, [...chain, frame]);
  };
  walk(head, []);
  console.log(`  allocated ${(total / count / 1024).toFixed(0)} KB per request (sampled)`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${(bytes / count / 1024).toFixed(1).padStart(8)} KB  ${site.split(' < ').reverse().join(' < ')}`);
}

/**
 * `--probe cpu`: each row of the set (those whose name contains --only) warmed by 50 requests on one
 * connection, then `--requests` on `--connections`: this process's CPU and wall time per request, the
 * latency's median, p90 and max, the garbage collections and the peak of the heap used.
 */
async function cpuProbe(o: ProbeOptions): Promise<void> {
  const set = SETS[o.set];
  if (!set) throw new Error(`--set must be one of ${Object.keys(SETS).join(', ')}`);
  const { app, rows, finish } = await set(o);
  let gcs = 0;
  new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  try {
    for (const row of rows.filter(({ name }) => !o.only || name.includes(o.only))) {
      const requests = row.requests ?? o.requests;
      await closedLoop({ base: app.base, connections: 1, requests: Math.min(50, requests), request: row.make, onAnswer: row.onAnswer });
      global.gc?.();
      const before = v8.getHeapStatistics().used_heap_size;
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, v8.getHeapStatistics().used_heap_size)), 5);
      gcs = 0;
      const session = o.allocations ? new Session() : undefined;
      session?.connect();
      await session?.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      const [cpu, started] = [process.cpuUsage(), performance.now()];
      const result = await closedLoop({ base: app.base, connections: o.connections, requests, timeout: 120, request: row.make, onAnswer: row.onAnswer });
      const used = process.cpuUsage(cpu);
      const wallMs = (performance.now() - started) / requests;
      clearInterval(timer);
      if (result.non2xx || result.errors) throw new Error(`${row.name}: ${result.non2xx} non-2xx and ${result.errors} errors: ${JSON.stringify(result.statusCodes)}`);
      if (session) {
        const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: AllocationNode } };
        session.disconnect();
        printAllocations(profile.head, requests);
      }
      const l = result.latencyMs;
      console.log(
        `${row.name.padEnd(48)} ${((used.user + used.system) / 1000 / requests).toFixed(3)} ms CPU/request   ${wallMs.toFixed(3)} ms wall   p50 ${l.p50} p90 ${l.p90} max ${l.max} ms   ${gcs} collections   heap used peak ${mb(peak)} MB (from ${mb(before)})`,
      );
    }
    finish?.();
  } finally {
    await app.close();
  }
}

async function purgeProbe(o: ProbeOptions): Promise<void> {
  const app = await scratch('purge-probe-');
  // A fake cache: reads request heads, answers 200 (Node's HTTP server refuses the BAN method).
  let bans = 0;
  const cache = net.createServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
        buffered = buffered.slice(end + 4);
        bans++;
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => cache.listen(0, '127.0.0.1', resolve));
  const purgeUrl = `http://127.0.0.1:${(cache.address() as { port: number }).port}`;
  c.log(`seeding ${o.events} events, each in one of 20 categories and at one of 20 venues`);
  const [categories, venues, ids]: number[][] = [[], [], []];
  for (let i = 0; i < 20; i++) {
    categories.push(await app.write('POST', '/categories', { name: `Category ${i}` }));
    venues.push(await app.write('POST', '/venues', { venue: `Venue ${i}` }));
  }
  for (let i = 0; i < o.events; i++)
    ids.push(
      await app.write('POST', '/events', {
        title: `Event ${i}`,
        status: 'publish',
        start_date: '2027-05-01 10:00:00',
        end_date: '2027-05-01 12:00:00',
        categories: [categories[i % 20]],
        venue: venues[i % 20],
      }),
    );
  let k = 0;
  const patch = (): BenchRequest => ({
    method: 'PATCH',
    path: c.api(`/events/${ids[(k = (k + 7919) % ids.length)]}`),
    headers: c.JSON_WRITE,
    body: JSON.stringify({ title: `Patched ${k}`, cost: `$${k % 40}` }),
  });
  /** CPU µs per PATCH, with the purger's work until its last BAN (its backlog is part of the cost) when it runs. */
  const probe = async (withPurger: boolean) => {
    const purger = withPurger ? startCachePurger({ db: app.db, config: { publicUrl: undefined, basePath: '/wp-json', purgeUrl }, logger: createLogger('silent') }) : undefined;
    await purger?.ready;
    const [before, started] = [bans, process.cpuUsage()];
    const result = await closedLoop({ base: app.base, connections: 1, requests: o.requests, timeout: 120, request: patch });
    if (result.non2xx || result.errors) throw new Error(`PATCH: ${result.non2xx} non-2xx and ${result.errors} errors`);
    for (let idle = 0; purger && idle < 3;) {
      const seen = bans;
      await c.sleep(20);
      idle = bans === seen ? idle + 1 : 0;
    }
    const used = process.cpuUsage(started);
    await purger?.stop();
    if (purger && bans === before) throw new Error('the purger sent nothing');
    return (used.user + used.system) / o.requests;
  };
  for (let round = 1; round <= o.rounds; round++) {
    const off = await probe(false);
    const before = bans;
    const on = await probe(true);
    console.log(`round ${round}: PATCH without PURGE_URL ${Math.round(off)} µs CPU, with ${Math.round(on)} µs (${bans - before} BANs for ${o.requests} writes)`);
  }
  cache.close();
  await app.close();
}

async function commitProbe(o: ProbeOptions): Promise<void> {
  fs.mkdirSync(c.BENCH_DB_DIR, { recursive: true });
  for (let r = 0; r < o.rounds; r++) {
    for (const level of ['full', 'normal'] as SqliteSynchronous[]) {
      const file = path.join(c.BENCH_DB_DIR, `commit-probe-${level}.sqlite`);
      const clean = () => ['', '-wal', '-shm'].forEach((suffix) => fs.rmSync(`${file}${suffix}`, { force: true }));
      clean();
      const { db } = openDatabase(`sqlite:${file}`, { sqliteSynchronous: level });
      const times: number[] = [];
      try {
        await db.schema.createTable('probe', (table) => (table.integer('n'), table.text('body')));
        const started = performance.now();
        for (let n = 0; n < o.commits; n++) {
          const before = performance.now();
          // About the size of an event's row: the page written, and synced, is the same.
          await db.transaction((trx) => trx('probe').insert({ n, body: 'x'.repeat(2000) }));
          times.push(performance.now() - before);
        }
        const q = c.quantiles(times);
        console.log(`${level.padEnd(6)} ${String(c.round(o.commits / ((performance.now() - started) / 1000))).padStart(6)} commits/s  p50 ${q.p50} ms  p99 ${q.p99} ms`);
      } finally {
        await db.destroy();
        clean();
      }
    }
  }
}

async function memoryProbe(o: ProbeOptions): Promise<void> {
  const names = o.scenarios === 'all' ? SCENARIOS.map((s) => s.name) : (o.scenarios ?? 'events-ics,events-jsonld,changes').split(',').map((name) => name.trim());
  const { samples } = await samplesOf(o.database);
  const sampler = o.breakdown ? ['--import', pathToFileURL(path.join(c.ROOT, 'scripts/bench/memory-sampler.mjs')).href] : [];
  const service = await c.startService(o.database, { flags: [...o.nodeFlags.split(' ').filter(Boolean), ...sampler], ready: '/healthz' });
  const pid = service.child.pid;
  // The service answers /healthz before its warm-up (main.ts) is over: "started" is measured once it is idle (20 ms of CPU in half a second, 30 s at most).
  for (let waited = 0, last = c.cpuMsOf(pid) ?? 0; waited < 30_000; waited += 500) {
    await c.sleep(500);
    if ((c.cpuMsOf(pid) ?? 0) - last <= 20) break;
    last = c.cpuMsOf(pid) ?? 0;
  }
  // --trace-gc lines: `... Scavenge 40.1 (52.3) -> 33.0 (53.1) MB, ...`: used (committed) before and after; memory-sampler.mjs's answer to SIGUSR2.
  let heapPeak = 0;
  let breakdown: (value: string) => void = () => undefined;
  service.child.process.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    for (const match of text.matchAll(/ ([\d.]+) \(([\d.]+)\) -> [\d.]+ \(([\d.]+)\) MB/g)) heapPeak = Math.max(heapPeak, Number(match[2]), Number(match[3]));
    const sample = /^memory-sample (.*)$/m.exec(text);
    if (sample) breakdown(sample[1]);
  });
  const show = async (label: string, cpuMs?: number) => {
    const memory = c.memoryOf(pid);
    let line = `${label.padEnd(28)} VmHWM ${memory?.hwmMb} MB   VmRSS ${memory?.rssMb} MB${heapPeak ? `   V8 heap committed peak ${heapPeak} MB` : ''}${cpuMs === undefined ? '' : `   service CPU ${(cpuMs / o.requests).toFixed(2)} ms/request`}`;
    if (o.breakdown) {
      const answer = new Promise<string>((resolve) => (breakdown = resolve));
      service.child.process.kill('SIGUSR2');
      const p = JSON.parse(await answer) as Record<string, number> & { spaces: unknown };
      line += `\n${''.padEnd(29)}at its sampled peak: RSS ${p.rss} = file ${p.file} + anon ${p.anon}; V8 committed ${p.heapTotal} (new space ${p.newSpace}), used ${p.heapUsed}; external ${p.external} MB; spaces (used/physical MB) ${JSON.stringify(p.spaces)}`;
    }
    console.log(line);
    heapPeak = 0;
  };
  try {
    await show('started');
    for (const name of names) {
      const paths = Array.from({ length: o.requests }, seeded(name, 47, samples)).map((req) => ({ path: req.path }));
      let next = 0;
      const [started, cpuBefore] = [Date.now(), c.cpuMsOf(pid) ?? 0];
      const result = await closedLoop({ base: service.base, connections: o.connections, requests: o.requests, timeout: 120, request: () => paths[next++ % paths.length] });
      const failed = result.non2xx + result.errors;
      await show(`${name} (${((Date.now() - started) / 1000).toFixed(1)} s${failed ? `, ${failed} failed` : ''})`, (c.cpuMsOf(pid) ?? 0) - cpuBefore);
    }
  } finally {
    await c.stopChild(service.child);
  }
}

/** The plan's lines (indented by depth on SQLite) and what they flag. */
function planOf(engine: 'sqlite' | 'mysql', rows: Array<Record<string, unknown>>): { plan: string[]; flags: string[] } {
  const [plan, flags] = [[] as string[], new Set<string>()];
  const depth = new Map<number, number>();
  for (const row of rows) {
    if (engine === 'sqlite') {
      const [d, detail] = [(depth.get(Number(row.parent)) ?? -1) + 1, String(row.detail)];
      depth.set(Number(row.id), d);
      plan.push(`${'  '.repeat(d)}${detail}`);
      if (/^SCAN /.test(detail) && !/^SCAN CONSTANT/.test(detail)) flags.add(/USING (COVERING )?INDEX/.test(detail) ? `full index scan: ${detail}` : `FULL TABLE SCAN: ${detail}`);
      if (/USE TEMP B-TREE/.test(detail)) flags.add(`temp b-tree: ${detail}`);
      continue;
    }
    const extra = String(row.Extra ?? '');
    plan.push(
      `id=${row.id} ${row.select_type} ${row.table} type=${row.type} key=${row.key ?? 'NULL'} key_len=${row.key_len ?? ''} ref=${row.ref ?? ''} rows=${row.rows} ${extra}`.trim(),
    );
    if (row.type === 'ALL') flags.add(`FULL TABLE SCAN: ${row.table} (rows ~${row.rows})`);
    if (row.type === 'index') flags.add(`full index scan: ${row.table} ${row.key} (rows ~${row.rows})`);
    if (/filesort/.test(extra)) flags.add(`filesort: ${row.table} (rows ~${row.rows})`);
    if (/temporary/.test(extra)) flags.add(`temporary table: ${row.table}`);
  }
  return { plan, flags: [...flags] };
}

/**
 * `--probe explain`: one request per scenario, every SQL statement Knex ran for it with its plan
 * (`EXPLAIN QUERY PLAN` or `EXPLAIN`) and median time; whole scans and temporary sorts are flagged.
 */
async function explain(o: ProbeOptions): Promise<void> {
  const engine = c.checkDatabaseUrl(o.database);
  const names = o.scenarios?.split(',');
  const app = await inProcess(o.database);
  const samples = await loadSamples(app.db);
  let captured: Array<{ sql: string; bindings: Knex.RawBinding[] }> | undefined;
  app.db.on('query', (q: { sql: string; bindings?: Knex.RawBinding[] }) => captured?.push({ sql: q.sql, bindings: q.bindings ?? [] }));
  // The first request compiles the validator; keep it out of the capture.
  await send(app.base, { path: c.api('/') });
  process.stdout.write(`EXPLAIN of the benchmark scenarios on ${c.describeUrl(o.database)} (${engine}); median of ${o.repeat} runs per SELECT\n`);
  const random = c.rng(7);
  try {
    for (const scenario of SCENARIOS.filter((s) => (names ? names.includes(s.name) : !s.write || o.writes))) {
      const request = scenario.request(samples, random);
      captured = [];
      const answer = await send(app.base, request);
      const queries = captured;
      captured = undefined;
      process.stdout.write(
        `\n=== ${scenario.name}: ${request.method} ${decodeURIComponent(request.path)} -> ${answer.status}, ${answer.ms.toFixed(1)} ms in-process, ${queries.length} statements\n`,
      );
      let sqlMs = 0;
      for (const [i, query] of queries.entries()) {
        const inline = app.db.raw(query.sql, query.bindings).toQuery();
        const sql = o.full || inline.length <= 400 ? inline : `${inline.slice(0, 400)}...`;
        if (!/^\s*select/i.test(query.sql)) {
          process.stdout.write(`\n  [${i + 1}] ${sql}\n`);
          continue;
        }
        const raw = await app.db.raw(`${engine === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${query.sql}`, query.bindings);
        const times: number[] = [];
        for (let k = 0; k < o.repeat; k++) {
          const started = performance.now();
          await app.db.raw(query.sql, query.bindings);
          times.push(performance.now() - started);
        }
        const median = c.round(times.sort((a, b) => a - b)[Math.floor(times.length / 2)], 3);
        sqlMs += median;
        const { plan, flags } = planOf(engine, engine === 'sqlite' ? raw : raw[0]);
        process.stdout.write(`\n  [${i + 1}] ${median} ms  ${sql}\n${plan.map((line) => `        ${line}\n`).join('')}${flags.map((flag) => `      !! ${flag}\n`).join('')}`);
      }
      process.stdout.write(`\n  SELECTs re-run alone: ${sqlMs.toFixed(2)} ms of the ${answer.ms.toFixed(1)} ms request\n`);
    }
  } finally {
    await app.close();
  }
}

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };

/** `src/records/events/mapper.ts`-style names for our code, the package name for node_modules, else a bucket. */
function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = url.search(/\/(dist\/)?(src|scripts)\//);
  return src === -1
    ? url.replace(/^file:\/\//, '')
    : url
        .slice(src + 1)
        .replace(/^dist\//, '')
        .replace(/\.js$/, '.ts');
}

function summarise(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'}  ${areaOf(node.callFrame.url, node.callFrame.functionName)}:${node.callFrame.lineNumber + 1}`;
  const [self, inclusive, areas] = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  let [total, idle] = [0, 0];
  profile.samples.forEach((id, i) => {
    const [delta, node] = [(profile.timeDeltas[i] ?? 0) / 1000, byId.get(id)!];
    total += delta;
    if (node.callFrame.functionName === '(idle)') idle += delta;
    add(self, keyOf(node), delta);
    add(areas, areaOf(node.callFrame.url, node.callFrame.functionName), delta);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, delta);
    }
  });
  const busy = total - idle;
  const list = (title: string, map: Map<string, number>, keep: (key: string) => boolean) => [
    '',
    title,
    ...[...map]
      .filter(([key]) => keep(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, ms]) => `  ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${key}`),
  ];
  const packages = /\s(express-openapi-validator|knex|pino|pino-http|ajv|@wordpress\/autop|luxon|better-sqlite3|mysql2|sanitize-html|express|qs|router)[/:]/;
  return [
    `profile: ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (percentages are of busy time)`,
    ...list('by area (self time):', areas, (a) => a !== '(idle)'),
    ...list('top functions by self time:', self, (k) => !k.startsWith('(idle)')),
    ...list('our functions (src/) by inclusive time:', inclusive, (k) => /\ssrc\//.test(k)),
    ...list('package entry points by inclusive time (express-openapi-validator, knex, pino, ajv...):', inclusive, (k) => packages.test(k)),
  ].join('\n');
}

/** `--probe profile`: a `node --cpu-prof` profile's time by area, top functions by self time, ours and packages' by inclusive time. */
async function profileSummary(o: ProbeOptions): Promise<void> {
  if (!o.file) throw new Error('usage: --probe profile --file FILE.cpuprofile [--top 25]');
  process.stdout.write(`== ${o.file}\n${summarise(JSON.parse(fs.readFileSync(o.file, 'utf8')), o.top)}\n\n`);
}

const PROBES: Record<string, (o: ProbeOptions) => Promise<void>> = {
  cpu: cpuProbe,
  purge: purgeProbe,
  commit: commitProbe,
  memory: memoryProbe,
  explain,
  profile: profileSummary,
};

export async function main(argv: string[]): Promise<void> {
  const o = c.options(argv, SPEC, import.meta.url);
  // Probes of their own until 2026-12-01: the figures printed in the docs name them.
  if (o.probe && SETS[o.probe]) throw new Error(`--probe ${o.probe} is now --probe cpu --set ${o.probe} (same options)`);
  if (!o.probe || !PROBES[o.probe]) throw new Error(`--probe must be one of ${Object.keys(PROBES).join(', ')}`);
  c.checkDatabaseUrl(o.database);
  await PROBES[o.probe](o);
}
