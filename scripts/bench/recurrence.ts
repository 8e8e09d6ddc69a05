/**
 * Recurring events under load (docs/contract.md §14): 1,000 weekly series over two years (about
 * 105,000 occurrences), created through `POST /events` with `recurrence`, against the same events
 * as single events (a copy of the database with the series links removed: identical rows, indexes
 * and content). Measures, on the service started as `npm start` starts it (built into dist/ first):
 *
 * - the latency of creating a weekly two-year series (every create of the seeding, sequential);
 * - the latency of changing a whole series (`PATCH` of the first event: a new title copied to every
 *   occurrence, and a new time, which regenerates every occurrence);
 * - requests/s and latency of the default list, a filtered list (a category and a 60-day window)
 *   and `GET /events/{id}` of an occurrence, on the series and on the single events.
 *
 *   node --import tsx scripts/bench/recurrence.ts [--series 1000] [--duration 10] [--connections 8]
 *        [--database sqlite:bench/results/db/recurrence.sqlite] [--changes 40] [--reuse]
 *
 * The seeding's creates are reported (`seedCreates`), and then `--changes` more creates and whole-series
 * changes are measured on the full calendar. `--reuse` keeps a database seeded by an earlier run.
 *
 * Only SQLite files under bench/results/db are used (the comparison copies the file). Only 127.0.0.1
 * is contacted. Prints a table and writes bench/results/recurrence-<timestamp>.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { UserRepository } from '../../src/repositories/users.js';
import { serviceEnv, startEnv, startFlags } from './service.js';
import { BENCH_ADMIN, BENCH_DB_DIR, NAMESPACE_PATH, RESULTS_DIR, freePort, parseArgs, round, startNode, stopChild, waitForHttp, type Child } from './common.js';

const SPEC = { series: 'number', duration: 'number', connections: 'number', database: 'string', changes: 'number', reuse: 'boolean', help: 'boolean' } as const;
const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;
const CATEGORIES = ['Music', 'Sport', 'Theatre', 'Dance', 'Talks', 'Family', 'Food', 'Film', 'Art', 'Markets'];
const DAY = 86_400_000;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0, 1);
}

function summary(values: number[]) {
  return { count: values.length, p50: percentile(values, 50), p95: percentile(values, 95), max: percentile(values, 100) };
}

async function startService(url: string): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  // As `npm start` runs it (package.json: its node flags and environment): the build in dist/, made by main() first.
  const child = startNode('service', [...startFlags(), 'dist/src/main.js'], { ...serviceEnv(url, port), ...startEnv() }, true);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}${NAMESPACE_PATH}/`, child);
  return { child, base };
}

async function send(base: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: { id: number; start_date: string; [key: string]: unknown }; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}${NAMESPACE_PATH}${route}`, {
    method,
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, json, ms: performance.now() - started };
}

async function load(base: string, paths: () => string, seconds: number, connections: number) {
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, path: paths() }) }],
  });
  return { rps: round(result.requests.average, 0), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), SPEC);
  if (args.help) {
    process.stdout.write(fs.readFileSync(new URL(import.meta.url), 'utf8').match(/\/\*\*([\s\S]*?)\*\//)?.[1] ?? '');
    return;
  }
  const seriesCount = Number(args.series ?? 1000);
  const duration = Number(args.duration ?? 10);
  const connections = Number(args.connections ?? 8);
  const changes = Number(args.changes ?? 40);
  const url = String(args.database ?? `sqlite:${path.relative(process.cwd(), path.join(BENCH_DB_DIR, 'recurrence.sqlite'))}`);
  const file = path.resolve(url.slice('sqlite:'.length));
  if (!url.startsWith('sqlite:') || !file.startsWith(BENCH_DB_DIR)) throw new Error('--database must be a sqlite: file under bench/results/db');
  log('building dist/ (npm run -s build)...');
  const built = spawnSync('npm', ['run', '-s', 'build'], { encoding: 'utf8', timeout: 300_000 });
  if (built.status !== 0) throw new Error(`build failed:\n${(built.stdout + built.stderr).slice(-3000)}`);
  fs.mkdirSync(BENCH_DB_DIR, { recursive: true });
  const reuse = Boolean(args.reuse) && fs.existsSync(file);
  if (!reuse) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const { db } = openDatabase(url);
  if (!reuse) {
    await migrateLatest(db);
    await new UserRepository(db).add(BENCH_ADMIN.login, 'administrator', BENCH_ADMIN.secret);
  }
  const firstIds: number[] = (await db('event_series').pluck('id')).map(Number);
  const categoryIds: number[] = (await db('terms').orderBy('id').pluck('id')).map(Number);
  await db.destroy();

  const service = await startService(url);
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const createSeries = async (i: number): Promise<{ id: number; ms: number }> => {
    const start = new Date(today + (i % 7) * DAY);
    const date = start.toISOString().slice(0, 10);
    const hour = String(8 + (i % 12)).padStart(2, '0');
    const res = await send(service.base, 'POST', '/events', {
      title: `Weekly class ${i}`,
      description: 'A weekly class, every week for two years.',
      status: 'publish',
      start_date: `${date} ${hour}:00:00`,
      end_date: `${date} ${hour}:45:00`,
      timezone: i % 2 ? 'Europe/Paris' : 'America/New_York',
      categories: [categoryIds[i % categoryIds.length]],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=105'],
    });
    if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.json).slice(0, 500)}`);
    return { id: res.json.id, ms: res.ms };
  };

  // 1. Seed through the API (each create timed too).
  const seedMs: number[] = [];
  if (!reuse) {
    for (const name of CATEGORIES) categoryIds.push((await send(service.base, 'POST', '/categories', { name })).json.id);
    for (let i = 0; i < seriesCount; i++) {
      const created = await createSeries(i);
      seedMs.push(created.ms);
      firstIds.push(created.id);
      if ((i + 1) % 100 === 0) log(`created ${i + 1} series (p50 ${percentile(seedMs, 50)} ms)`);
    }
  }
  const createMs: number[] = [];
  for (let i = 0; i < changes; i++) createMs.push((await createSeries(seriesCount + i)).ms);

  // 2. Changing a whole series: a title (copied to every occurrence) and a time (every occurrence regenerated).
  const titleMs: number[] = [];
  const timeMs: number[] = [];
  for (let i = 0; i < changes; i++) {
    const id = firstIds[(i * 7919) % firstIds.length];
    const titled = await send(service.base, 'PATCH', `/events/${id}`, { title: `Renamed class ${i}` });
    if (titled.status !== 200) throw new Error(`title change: ${titled.status} ${JSON.stringify(titled.json).slice(0, 300)}`);
    titleMs.push(titled.ms);
    const start = titled.json.start_date;
    const moved = await send(service.base, 'PATCH', `/events/${id}`, { start_date: start.replace(/ \d\d:/, ' 07:'), end_date: start.replace(/ \d\d:(\d\d):\d\d/, ' 07:50:00') });
    if (moved.status !== 200) throw new Error(`time change: ${moved.status} ${JSON.stringify(moved.json).slice(0, 300)}`);
    timeMs.push(moved.ms);
  }
  await stopChild(service.child);

  // 3. The same events as single events: a copy of the database without the series links.
  const singleFile = file.replace(/\.sqlite$/, '-single.sqlite');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(singleFile + suffix, { force: true });
  const copy = openDatabase(url).db;
  await copy.raw('VACUUM INTO ?', [singleFile]);
  await copy.destroy();
  const single = openDatabase(`sqlite:${path.relative(process.cwd(), singleFile)}`).db;
  await single('events').update({ series_id: null, recurrence_start: null, exception: false, post_parent: null });
  await single('event_series').delete();
  const [{ n: eventCount }] = await single('events').count({ n: '*' });
  const occurrenceIds = (await single('events').whereRaw('post_id % 97 = 0').pluck('post_id')).map(Number);
  await single.destroy();
  log(`${Number(eventCount).toLocaleString('en')} events in each database`);

  // 4. Reads on both.
  const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
  const window = () => {
    const from = today + Math.floor(Math.random() * 600) * DAY;
    return `start_date=${new Date(from).toISOString().slice(0, 10)}&end_date=${new Date(from + 60 * DAY).toISOString().slice(0, 10)}`;
  };
  const scenarios: Array<[string, () => string]> = [
    ['GET /events (default window)', () => `${NAMESPACE_PATH}/events`],
    ['GET /events?categories&start_date&end_date', () => `${NAMESPACE_PATH}/events?categories=${pick(CATEGORIES).toLowerCase()}&${window()}`],
    ['GET /events/{id} of an occurrence', () => `${NAMESPACE_PATH}/events/${pick(occurrenceIds)}`],
  ];
  const reads: Record<string, Record<string, Awaited<ReturnType<typeof load>>>> = {};
  // Both services run side by side; each scenario is measured on one, the other, then both again,
  // and the second round is kept: both warm, neither favoured by going first.
  const services = {
    series: await startService(url),
    'single events': await startService(`sqlite:${path.relative(process.cwd(), singleFile)}`),
  };
  for (const [name, paths] of scenarios) {
    for (const round of [1, 2]) {
      for (const [label, running] of Object.entries(services)) {
        if (round === 1) await load(running.base, paths, 2, connections);
        const measured = await load(running.base, paths, duration, connections);
        if (round === 2) (reads[name] ??= {})[label] = measured;
        log(`round ${round} ${label.padEnd(14)} ${name.padEnd(44)} ${JSON.stringify(measured)}`);
      }
    }
  }
  for (const running of Object.values(services)) await stopChild(running.child);

  const report = {
    series: seriesCount,
    events: Number(eventCount),
    connections,
    duration,
    writesMs: { seedCreates: summary(seedMs), createWeeklyTwoYearSeries: summary(createMs), changeTitleOfWholeSeries: summary(titleMs), changeTimeOfWholeSeries: summary(timeMs) },
    reads,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const out = path.join(RESULTS_DIR, `recurrence-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n${out}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
