/**
 * The service's resident peak (VmHWM) under a fixed amount of work, whatever the machine's load:
 * starts dist/ as `npm start` does (scripts/bench/service.ts), then sends each scenario's requests
 * (`--requests` of them, from a fixed seed) over `--connections` concurrent keep-alive connections,
 * and prints the resident peak and size after each scenario. `npm run bench` drives scenarios for a
 * time, so on a busy machine it sends fewer requests and its peak moves with the load; this does not
 * (docs/performance.md "Memory"). It also prints the service's CPU time per request at that concurrency.
 *
 *   npm run -s build && node --import tsx scripts/bench/memory-probe.ts [--events 10000 | --database URL]
 *        [--scenarios events-ics,events-jsonld,changes | --scenarios all] [--requests 600] [--connections 32]
 *        [--node-flags '--trace-gc'] [--breakdown]
 *
 * --scenarios   names from scripts/bench/scenarios.ts, or `all` for every one of them.
 * --node-flags  more node flags for the service (after npm start's); with --trace-gc the largest heap
 *               V8 reached (its committed size) is printed after each scenario.
 * --breakdown   the service samples its own memory every 20 ms (scripts/bench/memory-sampler.mjs) and
 *               what its resident size was made of at its largest is printed after each scenario
 *               (with each of V8's spaces, used/physical MB).
 */
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, checkDatabaseUrl, cpuMsOf, defaultSqliteUrl, freePort, memoryOf, parseArgs, rng, startNode, stopChild, waitForHttp } from './common.js';
import { SCENARIOS, loadSamples } from './scenarios.js';
import { serviceEnv, startEnv, startFlags } from './service.js';
import { openDatabase } from '../../src/db/knex.js';

const args = parseArgs(process.argv.slice(2), { events: 'number', database: 'string', scenarios: 'string', requests: 'number', connections: 'number', 'node-flags': 'string', breakdown: 'boolean' }) as {
  'node-flags'?: string;
  breakdown?: boolean;
  events?: number;
  database?: string;
  scenarios?: string;
  requests?: number;
  connections?: number;
};
const url = args.database ?? defaultSqliteUrl(args.events ?? 10_000);
checkDatabaseUrl(url);
const names = args.scenarios === 'all' ? SCENARIOS.map((s) => s.name) : (args.scenarios ?? 'events-ics,events-jsonld,changes').split(',').map((name) => name.trim());
const requests = args.requests ?? 600;
const connections = args.connections ?? 32;

const { db } = openDatabase(url);
const samples = await loadSamples(db);
await db.destroy();

const port = await freePort();
const sampler = args.breakdown ? ['--import', pathToFileURL(path.join(ROOT, 'scripts/bench/memory-sampler.mjs')).href] : [];
const service = startNode('service', [...startFlags(), ...(args['node-flags'] ?? '').split(' ').filter(Boolean), ...sampler, path.join(ROOT, 'dist/src/main.js')], { ...serviceEnv(url, port), ...startEnv() });
await waitForHttp(`http://127.0.0.1:${port}/healthz`, service);
// The service answers /healthz before its warm-up (main.ts) is over: "started" is measured once it is idle.
await untilIdle(service.pid);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
// --trace-gc lines: `... Scavenge 40.1 (52.3) -> 33.0 (53.1) MB, ...`: used (committed) before and after.
let heapPeak = 0;
// memory-sampler.mjs's answer to SIGUSR2.
let breakdown: (value: string) => void = () => undefined;
service.process.stdout!.on('data', (chunk: Buffer) => {
  const text = chunk.toString();
  for (const match of text.matchAll(/ ([\d.]+) \(([\d.]+)\) -> [\d.]+ \(([\d.]+)\) MB/g)) heapPeak = Math.max(heapPeak, Number(match[2]), Number(match[3]));
  const sample = /^memory-sample (.*)$/m.exec(text);
  if (sample) breakdown(sample[1]);
});
/** At the sampled peak: resident (file + anonymous pages), V8's committed heap (new space), its used part, external. */
async function sampledPeak(): Promise<string> {
  if (!args.breakdown) return '';
  const answer = new Promise<string>((resolve) => (breakdown = resolve));
  service.process.kill('SIGUSR2');
  const peak = JSON.parse(await answer) as Record<string, number> & { spaces: unknown };
  return `\n${''.padEnd(29)}at its sampled peak: RSS ${peak.rss} = file ${peak.file} + anon ${peak.anon}; V8 committed ${peak.heapTotal} (new space ${peak.newSpace}), used ${peak.heapUsed}; external ${peak.external} MB; spaces (used/physical MB) ${JSON.stringify(peak.spaces)}`;
}
const show = async (label: string, cpuMs?: number) => {
  const memory = memoryOf(service.pid);
  const line = `${label.padEnd(28)} VmHWM ${memory?.hwmMb} MB   VmRSS ${memory?.rssMb} MB${heapPeak ? `   V8 heap committed peak ${heapPeak} MB` : ''}${cpuMs === undefined ? '' : `   service CPU ${(cpuMs / requests).toFixed(2)} ms/request`}`;
  console.log(line + (await sampledPeak()));
  heapPeak = 0;
};
await show('started');

/** Resolves once the process has used no more than 20 ms of CPU in half a second (30 s at most). */
async function untilIdle(pid: number): Promise<void> {
  let last = cpuMsOf(pid) ?? 0;
  for (let waited = 0; waited < 30_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = cpuMsOf(pid) ?? 0;
    if (now - last <= 20) return;
    last = now;
  }
}

function get(requestPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path: requestPath, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

try {
  for (const name of names) {
    const scenario = SCENARIOS.find((s) => s.name === name);
    if (!scenario) throw new Error(`no scenario ${name}`);
    const random = rng(47);
    const paths = Array.from({ length: requests }, () => scenario.request(samples, random).path);
    let next = 0;
    let failed = 0;
    const started = Date.now();
    const cpuBefore = cpuMsOf(service.pid) ?? 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < paths.length) {
          const status = await get(paths[next++]);
          if (status >= 300) failed++;
        }
      }),
    );
    await show(`${name} (${((Date.now() - started) / 1000).toFixed(1)} s${failed ? `, ${failed} failed` : ''})`, (cpuMsOf(service.pid) ?? 0) - cpuBefore);
  }
} finally {
  agent.destroy();
  await stopChild(service);
}
