/**
 * What PURGE_URL costs a write: CPU time per PATCH of an event, in-process, without the cache purger
 * and with it (sending its BANs to a fake cache that answers 200 at once), counted until the purger
 * has sent the last write's BAN. Like cpu-probe.ts, a figure that hardly moves when other processes
 * share the machine.
 *
 *   node --import tsx scripts/bench/purge-probe.ts [--events 2000] [--requests 300] [--rounds 3]
 *
 * Builds its own SQLite file under the system's temporary folder: `--events` events, each in one of
 * 20 categories and at one of 20 venues.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createApp } from '../../src/http/app.js';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { UserRepository } from '../../src/repositories/users.js';
import { startCachePurger } from '../../src/cache/purger.js';
import { parseArgs } from './common.js';

process.env.TZ = 'UTC';

const args = parseArgs(process.argv.slice(2), { events: 'number', requests: 'number', rounds: 'number' }) as { events?: number; requests?: number; rounds?: number };
const EVENTS = args.events ?? 2000;
const REQUESTS = args.requests ?? 300;
const ROUNDS = args.rounds ?? 3;
const NS = '/wp-json/tribe/events/v1';
const AUTH = `Basic ${Buffer.from('probe:probe-secret-0123456789').toString('base64')}`;

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'purge-probe-'));
const url = `sqlite:${path.join(folder, 'events.sqlite')}`;
const { db } = openDatabase(url);
await migrateLatest(db);
await new UserRepository(db).add('probe', 'administrator', 'probe-secret-0123456789');
const config = { ...loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url }), validateResponses: false };
const server = http.createServer(createApp({ config, db, logger: createLogger('silent') })).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const port = (server.address() as net.AddressInfo).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(method: string, url: string, body?: object): Promise<{ status: number; json: { id: number } }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path: url, method, agent, headers: { 'content-type': 'application/json', authorization: AUTH } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body && JSON.stringify(body));
  });
}

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
const purgeUrl = `http://127.0.0.1:${(cache.address() as net.AddressInfo).port}`;

console.log(`seeding ${EVENTS} events in ${folder}`);
const categories: number[] = [];
const venues: number[] = [];
for (let i = 0; i < 20; i++) {
  categories.push((await send('POST', `${NS}/categories`, { name: `Category ${i}` })).json.id);
  venues.push((await send('POST', `${NS}/venues`, { venue: `Venue ${i}` })).json.id);
}
const ids: number[] = [];
for (let i = 0; i < EVENTS; i++) {
  const body = { title: `Event ${i}`, status: 'publish', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 12:00:00', categories: [categories[i % 20]], venue: venues[i % 20] };
  ids.push((await send('POST', `${NS}/events`, body)).json.id);
}

let k = 0;
/** CPU microseconds per PATCH (title and cost), with the purger's work until its last BAN included when it runs. */
async function probe(withPurger: boolean, handle: Knex): Promise<number> {
  const purger = withPurger ? startCachePurger({ db: handle, config: { publicUrl: undefined, basePath: '/wp-json', purgeUrl }, logger: createLogger('silent') }) : undefined;
  await purger?.ready;
  const before = bans;
  const started = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const id = ids[(k = (k + 7919) % ids.length)];
    const { status } = await send('PATCH', `${NS}/events/${id}`, { title: `Patched ${k}`, cost: `$${k % 40}` });
    if (status !== 200) throw new Error(`PATCH answered ${status}`);
  }
  // The purger's backlog, if any, is part of the cost: wait for the BAN of the last write.
  if (purger) {
    for (let idle = 0; idle < 3; ) {
      const seen = bans;
      await new Promise((resolve) => setTimeout(resolve, 20));
      idle = bans === seen ? idle + 1 : 0;
    }
  }
  const used = process.cpuUsage(started);
  await purger?.stop();
  if (purger && bans === before) throw new Error('the purger sent nothing');
  return (used.user + used.system) / REQUESTS;
}

for (let round = 1; round <= ROUNDS; round++) {
  const off = await probe(false, db);
  const before = bans;
  const on = await probe(true, db);
  console.log(`round ${round}: PATCH without PURGE_URL ${Math.round(off)} µs CPU, with ${Math.round(on)} µs (${bans - before} BANs for ${REQUESTS} writes)`);
}

agent.destroy();
server.close();
cache.close();
await db.destroy();
fs.rmSync(folder, { recursive: true, force: true });
