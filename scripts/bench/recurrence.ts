/**
 * `npm run bench -- --recurrence`: recurring events under load (docs/contract.md §14, docs/performance.md
 * "Recurring events"): 1,000 weekly series over two years (about 105,000 occurrences), created through
 * `POST /events` with `recurrence`, against the same events as single events (a copy of the database
 * with the series links removed). Measures, on the service as `npm start` runs it: the latency of
 * creating a weekly two-year series (every create of the seeding, then --changes more); of changing a
 * whole series (a new title copied to every occurrence, and a new time, which regenerates them); and
 * requests/s and latency of the default list, a filtered list and `GET /events/{id}` of an occurrence,
 * on the series and on the single events (both services up; each measured twice in turn, the second kept).
 *
 *   npm run bench -- --recurrence [options]
 *
 * Only SQLite files under bench/results/db are used (the comparison copies the file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { UserRepository } from '../../src/repositories/users.js';
import * as c from './common.js';
import { closedLoop, sendJson, type BenchRequest } from './load.js';

const SPEC = {
  recurrence: ['boolean'],
  series: ['number', 1000, 1, 100_000],
  duration: ['number', 10, 1, 120],
  connections: ['number', 8, 1, 256],
  database: ['string', c.defaultSqliteUrl('recurrence')],
  changes: ['number', 40, 1, 10_000],
  reuse: ['boolean'],
} satisfies c.Spec;
const CATEGORIES = ['Music', 'Sport', 'Theatre', 'Dance', 'Talks', 'Family', 'Food', 'Film', 'Art', 'Markets'];
const summary = (values: number[]) => ({ count: values.length, ...c.quantiles(values) });

export async function main(argv: string[]): Promise<void> {
  const o = c.options(argv, SPEC, import.meta.url);
  const file = path.resolve(c.ROOT, o.database.slice('sqlite:'.length));
  if (!o.database.startsWith('sqlite:') || !file.startsWith(c.BENCH_DB_DIR)) throw new Error('--database must be a sqlite: file under bench/results/db');
  if (!c.buildService()) throw new Error('the build failed');
  const started = new Date();
  fs.mkdirSync(c.BENCH_DB_DIR, { recursive: true });
  const reuse = o.reuse && fs.existsSync(file);
  if (!reuse) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const { db } = openDatabase(o.database);
  if (!reuse) await migrateLatest(db).then(() => new UserRepository(db).add(c.BENCH_ADMIN.login, 'administrator', c.BENCH_ADMIN.secret));
  const firstIds: number[] = (await db('event_series').pluck('id')).map(Number);
  const categoryIds: number[] = (await db('terms').orderBy('id').pluck('id')).map(Number);
  await db.destroy();

  let service = await c.startService(o.database);
  const call = (method: BenchRequest['method'], route: string, body: unknown) => sendJson(service.base, method, route, body);
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const createSeries = async (i: number) => {
    const [date, hour] = [c.day(today + (i % 7) * c.DAY), String(8 + (i % 12)).padStart(2, '0')];
    const body = {
      title: `Weekly class ${i}`,
      description: 'A weekly class, every week for two years.',
      status: 'publish',
      start_date: `${date} ${hour}:00:00`,
      end_date: `${date} ${hour}:45:00`,
    };
    return call('POST', '/events', {
      ...body,
      timezone: i % 2 ? 'Europe/Paris' : 'America/New_York',
      categories: [categoryIds[i % categoryIds.length]],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=105'],
    });
  };
  // 1. Seeding through the API, each create timed; then --changes more creates on the full calendar.
  const [seedMs, createMs, titleMs, timeMs]: number[][] = [[], [], [], []];
  if (!reuse) {
    for (const name of CATEGORIES) categoryIds.push(Number((await call('POST', '/categories', { name })).json?.id));
    for (let i = 0; i < o.series; i++) {
      const created = await createSeries(i);
      seedMs.push(created.ms);
      firstIds.push(Number(created.json?.id));
      if ((i + 1) % 100 === 0) c.log(`created ${i + 1} series (p50 ${c.quantiles(seedMs).p50} ms)`);
    }
  }
  for (let i = 0; i < o.changes; i++) createMs.push((await createSeries(o.series + i)).ms);
  // 2. Changing a whole series: a title (copied to every occurrence) and a time (every occurrence regenerated).
  for (let i = 0; i < o.changes; i++) {
    const id = firstIds[(i * 7919) % firstIds.length];
    const titled = await call('PATCH', `/events/${id}`, { title: `Renamed class ${i}` });
    titleMs.push(titled.ms);
    const start = String(titled.json?.start_date);
    timeMs.push((await call('PATCH', `/events/${id}`, { start_date: start.replace(/ \d\d:/, ' 07:'), end_date: start.replace(/ \d\d:(\d\d):\d\d/, ' 07:50:00') })).ms);
  }
  await c.stopChild(service.child);

  // 3. The same events as single events: a copy of the database without the series links.
  const singleFile = file.replace(/\.sqlite$/, '-single.sqlite');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(singleFile + suffix, { force: true });
  const copy = openDatabase(o.database).db;
  await copy.raw('VACUUM INTO ?', [singleFile]).finally(() => copy.destroy());
  const singleUrl = `sqlite:${path.relative(c.ROOT, singleFile)}`;
  const single = openDatabase(singleUrl).db;
  await single('events').update({ series_id: null, recurrence_start: null, exception: false, post_parent: null });
  await single('event_series').delete();
  const [{ n: eventCount }] = await single('events').count({ n: '*' });
  const occurrenceIds = (await single('events').whereRaw('post_id % 97 = 0').pluck('post_id')).map(Number);
  await single.destroy();
  c.log(`${Number(eventCount).toLocaleString('en')} events in each database`);

  // 4. Reads on both, side by side: each scenario on one, the other, then both again; the second round is kept.
  const random = <T>(items: T[]) => c.pick(Math.random, items);
  const window = () => {
    const from = today + Math.floor(Math.random() * 600) * c.DAY;
    return `start_date=${c.day(from)}&end_date=${c.day(from + 60 * c.DAY)}`;
  };
  const scenarios: Array<[string, () => string]> = [
    ['GET /events (default window)', () => c.api('/events')],
    ['GET /events?categories&start_date&end_date', () => c.api(`/events?categories=${random(CATEGORIES).toLowerCase()}&${window()}`)],
    ['GET /events/{id} of an occurrence', () => c.api(`/events/${random(occurrenceIds)}`)],
  ];
  const services = { series: (service = await c.startService(o.database)), 'single events': await c.startService(singleUrl) };
  const reads: Record<string, Record<string, { rps: number; p50: number; p99: number; non2xx: number; errors: number }>> = {};
  for (const [name, paths] of scenarios) {
    for (const round of [1, 2]) {
      for (const [label, running] of Object.entries(services)) {
        const load = (seconds: number) => closedLoop({ base: running.base, connections: o.connections, seconds, request: () => ({ path: paths() }) });
        if (round === 1) await load(2);
        const r = await load(o.duration);
        const measured = { rps: c.round(r.rps), p50: r.latencyMs.p50, p99: r.latencyMs.p99, non2xx: r.non2xx, errors: r.errors };
        if (round === 2) (reads[name] ??= {})[label] = measured;
        c.log(`round ${round} ${label.padEnd(14)} ${name.padEnd(44)} ${JSON.stringify(measured)}`);
      }
    }
  }
  for (const running of Object.values(services)) await c.stopChild(running.child);
  const writesMs = {
    seedCreates: summary(seedMs),
    createWeeklyTwoYearSeries: summary(createMs),
    changeTitleOfWholeSeries: summary(titleMs),
    changeTimeOfWholeSeries: summary(timeMs),
  };
  const report = { series: o.series, events: Number(eventCount), connections: o.connections, duration: o.duration, writesMs, reads };
  c.writeResults('recurrence-', started, report, JSON.stringify({ writesMs, reads }, null, 2));
}
