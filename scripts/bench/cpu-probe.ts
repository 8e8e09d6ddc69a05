/**
 * CPU time per request, in-process: the service listens on an ephemeral port and one keep-alive
 * client sends the requests one after another; `process.cpuUsage()` over the run, divided by the
 * number of requests, is what one request costs (client included, which is small). Unlike
 * requests/s under load, this figure hardly moves when other processes share the machine, so it
 * shows whether a change made the service cheaper even on a busy machine.
 *
 *   node --import tsx scripts/bench/cpu-probe.ts [--events 100000 | --database URL] [--requests 2000] [--only TEXT] [--connections 1]
 *
 * --only TEXT      runs only the probes whose name contains TEXT (e.g. POST); with `node --cpu-prof` it
 *                  profiles one kind of request.
 * --connections N  keeps N requests in flight, on N keep-alive connections (1 by default): what a
 *                  request costs when several arrive in one turn of the event loop, as under load.
 *
 * The database must have been seeded (npm run bench). Response validation is off, as in production.
 */
import http from 'node:http';
import { BENCH_ADMIN, NAMESPACE_PATH, checkDatabaseUrl, defaultSqliteUrl, parseArgs, rng } from './common.js';
import { SCENARIOS, loadSamples } from './scenarios.js';
import { startInProcess } from './in-process.js';

// Date parsing needs a UTC process (dates/parse.ts assertUtcProcess); set before anything runs.
process.env.TZ = 'UTC';

const args = parseArgs(process.argv.slice(2), { events: 'number', database: 'string', requests: 'number', only: 'string', connections: 'number' }) as {
  events?: number;
  database?: string;
  requests?: number;
  only?: string;
  connections?: number;
};
const url = args.database ?? defaultSqliteUrl(args.events ?? 100_000);
checkDatabaseUrl(url);
const requests = args.requests ?? 2000;
const connections = args.connections ?? 1;

const { db, server, port, agent } = await startInProcess(url, connections);
const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;

function send(method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body ? { 'content-type': 'application/json', authorization: AUTH } : {};
    const req = http.request({ port, host: '127.0.0.1', path, method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ids = (await db('posts').where({ type: 'event', status: 'publish' }).orderBy('id').limit(20_000).pluck('id')).map(Number);
const venue = Number((await db('posts').where({ type: 'venue', status: 'publish' }).first('id')).id);
const organizer = Number((await db('posts').where({ type: 'organizer', status: 'publish' }).first('id')).id);
const terms = (await db('terms').orderBy('id').limit(2).pluck('id')).map(Number);
if (ids.length === 0) throw new Error('the database has no events: seed it first (npm run bench)');

// The filtered list's requests (category + 60-day range + search) in the benchmark's own mix, from a
// fixed seed, so that two builds are timed on the same requests.
const samples = await loadSamples(db);
const filtered = SCENARIOS.find((scenario) => scenario.name === 'events-filtered')!;
const filteredRandom = rng(15);
const phrase = SCENARIOS.find((scenario) => scenario.name === 'events-search')!;
const phraseRandom = rng(16);
const words = SCENARIOS.find((scenario) => scenario.name === 'events-search-words')!;
const wordsRandom = rng(17);

let k = 0;
const probes: Array<[string, () => [string, string, string?]]> = [
  ['GET /events/{id} (a different event each time)', () => ['GET', `${NAMESPACE_PATH}/events/${ids[(k = (k + 7919) % ids.length)]}`]],
  ['GET /events/{id} (the same event: a remembered reply)', () => ['GET', `${NAMESPACE_PATH}/events/${ids[0]}`]],
  ['GET /events (default window)', () => ['GET', `${NAMESPACE_PATH}/events`]],
  ['GET /events?categories&start_date&end_date&search', () => ['GET', filtered.request(samples, filteredRandom).path]],
  ['GET /events?search="<phrase>"', () => ['GET', phrase.request(samples, phraseRandom).path]],
  ['GET /events?search=<word or phrase>&start_date&end_date', () => ['GET', words.request(samples, wordsRandom).path]],
  ['GET /venues?only_with_upcoming=1', () => ['GET', `${NAMESPACE_PATH}/venues?only_with_upcoming=1`]],
  ['GET /categories', () => ['GET', `${NAMESPACE_PATH}/categories`]],
  ['GET /healthz (the HTTP stack alone)', () => ['GET', '/healthz']],
  [
    'POST /events (venue, organizer, 2 terms)',
    () => [
      'POST',
      `${NAMESPACE_PATH}/events`,
      JSON.stringify({ title: `Probe ${k++}`, status: 'publish', start_date: '2027-06-01 19:00:00', end_date: '2027-06-01 22:00:00', venue, organizer, categories: terms, cost: '$15' }),
    ],
  ],
  [
    'PATCH /events/{id} (title and cost)',
    () => ['PATCH', `${NAMESPACE_PATH}/events/${ids[(k = (k + 7919) % ids.length)]}`, JSON.stringify({ title: `Patched ${k}`, cost: `$${5 + (k % 40)}` })],
  ],
];

for (const [name, next] of probes) {
  if (args.only && !name.includes(args.only)) continue;
  const count = name.startsWith('POST') || name.startsWith('PATCH') ? Math.min(requests, 500) : requests;
  for (let i = 0; i < 50; i++) await send(...next());
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  let left = count;
  const sender = async () => {
    while (left-- > 0) {
      const status = await send(...next());
      if (status >= 300) throw new Error(`${name}: status ${status}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, sender));
  const used = process.cpuUsage(cpu);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`${name.padEnd(48)} ${((used.user + used.system) / 1000 / count).toFixed(3)} ms CPU/request   ${(wallMs / count).toFixed(3)} ms wall`);
}
server.close();
agent.destroy();
await db.destroy();
