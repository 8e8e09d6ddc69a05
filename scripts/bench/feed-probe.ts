/**
 * CPU time and heap growth per feed request, in-process (as cpu-probe.ts, for the scenarios whose
 * garbage set the resident peak: docs/performance.md "Memory"): the benchmark's `events-ics`,
 * `events-jsonld` and `changes` requests from a fixed seed, one after another on one keep-alive
 * connection. Reports CPU ms per request, and the bytes V8 allocated per request (summed over its
 * collections: the garbage a request leaves).
 *
 *   node --import tsx scripts/bench/feed-probe.ts [--events 10000 | --database URL] [--requests 400] [--only TEXT] [--allocations]
 *
 * --allocations  also samples where the bytes were allocated (V8's sampling heap profiler, garbage
 *                included) and prints the functions that allocated most.
 */
import http from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { Session } from 'node:inspector/promises';
import { checkDatabaseUrl, defaultSqliteUrl, parseArgs, rng } from './common.js';
import { SCENARIOS, loadSamples } from './scenarios.js';
import { startInProcess } from './in-process.js';

process.env.TZ = 'UTC';

const args = parseArgs(process.argv.slice(2), { events: 'number', database: 'string', requests: 'number', only: 'string', allocations: 'boolean' }) as {
  allocations?: boolean;
  events?: number;
  database?: string;
  requests?: number;
  only?: string;
};
const url = args.database ?? defaultSqliteUrl(args.events ?? 10_000);
checkDatabaseUrl(url);
const requests = args.requests ?? 400;

const { db, server, port, agent } = await startInProcess(url);

function get(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path, method: 'GET', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

// Heap used just before each collection less just after the one before: what was allocated between them.
let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });

const samples = await loadSamples(db);
for (const name of ['events-ics', 'events-jsonld', 'changes']) {
  if (args.only && !name.includes(args.only)) continue;
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  const random = rng(31);
  for (let i = 0; i < 30; i++) await get(scenario.request(samples, random).path);
  const paths = Array.from({ length: requests }, () => scenario.request(samples, random).path);
  global.gc?.();
  const before = v8.getHeapStatistics();
  let peakUsed = before.used_heap_size;
  const timer = setInterval(() => (peakUsed = Math.max(peakUsed, v8.getHeapStatistics().used_heap_size)), 5);
  gcs = 0;
  const session = args.allocations ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  const cpu = process.cpuUsage();
  for (const path of paths) {
    const status = await get(path);
    if (status >= 300) throw new Error(`${name}: status ${status}`);
  }
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  if (session) {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: AllocationNode } };
    session.disconnect();
    printAllocations(profile.head, requests);
  }
  console.log(
    `${name.padEnd(14)} ${((used.user + used.system) / 1000 / requests).toFixed(3)} ms CPU/request   ${gcs} collections   heap used peak ${(peakUsed / 2 ** 20).toFixed(1)} MB (from ${(before.used_heap_size / 2 ** 20).toFixed(1)})`,
  );
}
server.close();
agent.destroy();
await db.destroy();

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/** The 25 functions that allocated most, with their callers' chain (two up), in KB per request. */
function printAllocations(head: AllocationNode, count: number): void {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocationNode, path: string[]) => {
    const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
    const chain = [...path, frame];
    if (node.selfSize) {
      const key = chain.slice(-3).join(' < ');
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, chain);
  };
  walk(head, []);
  console.log(`  allocated ${(total / count / 1024).toFixed(0)} KB per request (sampled)`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(bytes / count / 1024).toFixed(1).padStart(8)} KB  ${site.split(' < ').reverse().join(' < ')}`);
}
