/**
 * `npm run bench -- --terms`: term lists on a table of many tags (docs/performance.md "Current figures",
 * docs/limits.md "Term lists"). Opt-in: seeding 1,000,000 tags takes about a minute on SQLite.
 *
 *   npm run bench -- --terms [--count 1000000] [--database mysql://root@127.0.0.1:3306/tec_bench_terms]
 *                    [--force] [--rounds 3] [--tsx]
 *
 * The database (a SQLite file under bench/results/db/ by default; a MySQL database must have "bench"
 * in its name or pass --force) is migrated and given --count tags by multi-row INSERTs, once (reused
 * while it holds them); one in ten has a published event counted. The service is started as
 * `npm start` starts it, and each request below is sent --rounds times, one at a time (the data
 * version bumped before each, so none is a remembered answer), with
 * `/healthz` asked back to back beside it (20 ms apart, on a connection of its own): the table gives
 * each request's status, its latency and the slowest `/healthz` meanwhile (the longest the request
 * held the service's event loop, within a probe). Results go to bench/results/terms-<engine>-<time>.json.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { BENCH_DB_DIR, NAMESPACE_PATH, RESULTS_DIR, checkDatabaseUrl, codeFingerprint, describeUrl, log, parseArgs, progress, round, stopChild, table } from './common.js';
import { buildService, startAsNpmStart } from './service.js';

const SPEC = { terms: 'boolean', count: 'number', database: 'string', force: 'boolean', rounds: 'number', tsx: 'boolean' } as const;

/** The requests measured: the issue's four and the lists beside them. */
const REQUESTS = [
  'tags?hide_empty=false&search=77',
  'tags?page=9000&per_page=100',
  'tags?hide_empty=false&page=9000&per_page=100',
  'tags?orderby=name&page=3000',
  'tags',
  'tags?hide_empty=false',
  'tags?hide_empty=false&orderby=name&page=200&per_page=50',
];

const ROWS_PER_INSERT = 500;

async function seed(url: string, count: number): Promise<void> {
  const { db } = openDatabase(url);
  try {
    await migrateLatest(db);
    const [{ n }] = await db('terms').where('taxonomy', 'post_tag').count({ n: '*' });
    if (Number(n) === count) return log(`reusing ${count} tags in ${describeUrl(url)}`);
    await db('terms').delete();
    const shown = progress('tags', count);
    for (let at = 0; at < count; at += ROWS_PER_INSERT) {
      const rows = [];
      for (let i = at; i < Math.min(count, at + ROWS_PER_INSERT); i++) {
        const name = `Tag ${i} ${(i * 7919) % 1000}`;
        rows.push({ taxonomy: 'post_tag', name, slug: `tag-${i}`, description: '', parent: 0, published_count: i % 10 === 0 ? 1 : 0, name_key: name.toLowerCase() });
      }
      await db('terms').insert(rows);
      shown.tick(at + rows.length);
    }
    shown.done();
  } finally {
    await db.destroy();
  }
}

/** `/healthz` back to back until stopped: the slowest answer. */
function probe(base: string): { stop(): Promise<number> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  let slowest = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      const req = http.get(`${base}/healthz`, { agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', () => resolve());
    });
  const running = (async () => {
    while (!done) {
      const began = performance.now();
      await once();
      slowest = Math.max(slowest, performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    agent.destroy();
  })();
  return {
    async stop() {
      done = true;
      await running;
      return slowest;
    },
  };
}

export async function termsBench(argv: string[]): Promise<void> {
  const args = parseArgs(argv, SPEC);
  const count = Number(args.count ?? 1_000_000);
  const rounds = Number(args.rounds ?? 3);
  const url = typeof args.database === 'string' ? args.database : `sqlite:${path.join(BENCH_DB_DIR, `terms-${count}.sqlite`)}`;
  const engine = checkDatabaseUrl(url);
  if (engine === 'mysql' && !/bench/.test(url) && !args.force) throw new Error('--database must name a database with "bench" in its name (or pass --force): its terms are replaced');
  fs.mkdirSync(BENCH_DB_DIR, { recursive: true });
  await seed(url, count);
  const tsx = Boolean(args.tsx);
  if (!tsx) buildService();
  const { child, base } = await startAsNpmStart(url, tsx);
  // A new data version before each round: no answer is a remembered one.
  const { db } = openDatabase(url);
  const rows: Array<Array<string | number>> = [];
  const results: Array<Record<string, unknown>> = [];
  try {
    for (const request of REQUESTS) {
      const target = `${base}${NAMESPACE_PATH}/${request}`;
      // The first request of an operation compiles its validator: not measured.
      await fetch(`${target}${target.includes('?') ? '&' : '?'}order=asc`).then((res) => res.arrayBuffer());
      const latencies: number[] = [];
      const probes: number[] = [];
      let status = 0;
      for (let round = 0; round < rounds; round++) {
        await bumpDataVersion(db);
        const prober = probe(base);
        const began = performance.now();
        const res = await fetch(target);
        await res.arrayBuffer();
        latencies.push(performance.now() - began);
        probes.push(await prober.stop());
        status = res.status;
      }
      rows.push([request, status, `${round(Math.min(...latencies))}–${round(Math.max(...latencies))}`, `${round(Math.min(...probes))}–${round(Math.max(...probes))}`]);
      results.push({ request, status, latencyMs: latencies.map((ms) => round(ms)), slowestHealthzMs: probes.map((ms) => round(ms)) });
    }
  } finally {
    await stopChild(child);
    await db.destroy();
  }
  const text = table(['request (anonymous)', 'status', 'latency ms', 'slowest /healthz ms'], rows);
  console.log(`\n${count} tags, ${describeUrl(url)}, ${rounds} rounds\n${text}`);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `terms-${engine}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ code: codeFingerprint(), count, database: describeUrl(url), rounds, results }, null, 2));
  log(`written to ${file}`);
}
