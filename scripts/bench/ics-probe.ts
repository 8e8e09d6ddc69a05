/**
 * Time of `GET /events.ics` for 500 events, in-process (docs/contract.md §11): a fresh SQLite file
 * gets 500 events through the API (five zones, venues, organizers, categories, all-day ones), then
 * the feed is requested with a different date window each time (every request misses the
 * remembered replies) and the wall time per request is printed (median, p90, max).
 *
 *   node --import tsx scripts/bench/ics-probe.ts [--events 500] [--requests 40]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { loadConfig } from '../../src/core/config.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/core/logger.js';
import { UserRepository } from '../../src/repositories/users.js';
import { NAMESPACE_PATH, parseArgs } from './common.js';

process.env.TZ = 'UTC';

const args = parseArgs(process.argv.slice(2), { events: 'number', requests: 'number' }) as { events?: number; requests?: number };
const count = args.events ?? 500;
const requests = args.requests ?? 40;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ics-probe-'));
const url = `sqlite:${path.join(dir, 'events.sqlite')}`;
const { db } = openDatabase(url);
await migrateLatest(db);
const app = createApp({ config: { ...loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, PUBLIC_URL: 'http://bench.test' }), validateResponses: false }, db, logger: createLogger('silent') });
await new UserRepository(db).add('probe', 'administrator', 'probe-secret-0123456789');
const auth = `Basic ${Buffer.from('probe:probe-secret-0123456789').toString('base64')}`;
const agent = request(app);
const zones = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'UTC+5.5', 'Australia/Sydney'];
const venues: number[] = [];
const organizers: number[] = [];
for (let i = 0; i < 20; i++) {
  venues.push((await agent.post(`${NAMESPACE_PATH}/venues`).set('Authorization', auth).send({ venue: `Hall ${i}`, address: `${i} Main Street`, city: 'Springfield', geo_lat: 40 + i / 10, geo_lng: -70 }).expect(201)).body.id);
  organizers.push((await agent.post(`${NAMESPACE_PATH}/organizers`).set('Authorization', auth).send({ organizer: `Crew ${i}`, email: `crew${i}@example.test` }).expect(201)).body.id);
}
for (let i = 0; i < count; i++) {
  const day = new Date(Date.UTC(2030, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
  await agent
    .post(`${NAMESPACE_PATH}/events`)
    .set('Authorization', auth)
    .send({
      title: `Concert ${i}: strings, winds; and voices – 音楽会 🎻`,
      description: `<p>An evening of music number ${i}.</p><p>${'Long programme text. '.repeat(10)}</p>`,
      start_date: `${day} 19:00:00`,
      end_date: `${day} 22:00:00`,
      all_day: i % 10 === 0,
      timezone: zones[i % zones.length],
      venue: venues[i % venues.length],
      organizer: [organizers[i % organizers.length]],
      categories: [`Category ${i % 8}`],
    })
    .expect(201);
}
const times: number[] = [];
let bytes = 0;
for (let n = 0; n < requests + 3; n++) {
  // A window ending on a different day each time: the same events, never a remembered reply.
  const end = new Date(Date.UTC(2031, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
  const started = process.hrtime.bigint();
  const res = await agent.get(`${NAMESPACE_PATH}/events.ics?start_date=2030-01-01&end_date=${end}`);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  const events = (res.text.match(/^BEGIN:VEVENT\r$/gm) ?? []).length;
  if (events !== count) throw new Error(`${events} events in the feed, expected ${count}`);
  bytes = Buffer.byteLength(res.text);
  if (n >= 3) times.push(ms); // the first requests warm up the code and the zone tables
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
process.stdout.write(`GET /events.ics, ${count} events, ${(bytes / 1024).toFixed(0)} KiB: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms (${requests} requests)\n`);
await db.destroy();
fs.rmSync(dir, { recursive: true, force: true });
