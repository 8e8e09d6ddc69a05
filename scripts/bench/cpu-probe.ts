import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../../src/db/knex.js';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';

const url = process.env.DB ?? 'sqlite:bench/results/db/bench-100000.sqlite';
const { db } = openDatabase(url);
const app = createApp({ config: { ...loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url }), validateResponses: false }, db, logger: createLogger('silent') });
const server = http.createServer(app).listen(0);
await new Promise((r) => server.once('listening', r));
const port = (server.address() as AddressInfo).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (path: string) => new Promise<number>((resolve, reject) => {
  http.get({ port, path, agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); }).on('error', reject);
});
const ids = (await db('posts').where({ type: 'event', status: 'publish' }).orderByRaw('random()').limit(3000).pluck('id')) as number[];
const NS = '/wp-json/tribe/events/v1';
async function measure(name: string, paths: () => string, n: number) {
  for (let i = 0; i < 100; i++) await get(paths());
  const t0 = process.cpuUsage(); const w0 = Date.now();
  for (let i = 0; i < n; i++) { const s = await get(paths()); if (s !== 200) throw new Error(`${name} ${s}`); }
  const c = process.cpuUsage(t0);
  console.log(`${name}: ${((c.user + c.system) / 1000 / n).toFixed(3)} ms CPU/req, ${((Date.now() - w0) / n).toFixed(2)} ms wall`);
}
let k = 0;
await measure('by-id', () => `${NS}/events/${ids[k++ % ids.length]}`, 2000);
if (!process.env.ONLY) await measure('default list', () => `${NS}/events`, 2000);
if (!process.env.ONLY) await measure('venues upcoming', () => `${NS}/venues?only_with_upcoming=1`, 1000);
if (!process.env.ONLY) await measure('categories', () => `${NS}/categories`, 2000);
await measure('health', () => `/healthz`, 2000);
server.close(); agent.destroy(); await db.destroy();
