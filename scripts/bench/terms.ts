/**
 * `npm run bench -- --terms`: term lists on a table of many tags (docs/performance.md "Current figures",
 * docs/limits.md "Term lists"). Opt-in: seeding 1,000,000 tags takes about a minute on SQLite.
 *
 *   npm run bench -- --terms [options]   (--database mysql://root@127.0.0.1:3306/tec_bench_terms)
 *
 * The database (a SQLite file under bench/results/db/ by default; a MySQL database must have "bench"
 * in its name or pass --force) is migrated and given --count tags by multi-row INSERTs, once (reused
 * while it holds them); one in ten has a published event counted. Each request below is sent --rounds
 * times, one at a time (the data version bumped before each, so none is a remembered answer), with
 * `/healthz` asked 50 times a second beside it (open-loop): the table gives each request's status, its
 * latency and the slowest `/healthz` meanwhile (the longest the request held the service's event loop).
 */
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import * as c from './common.js';
import { openLoop, send } from './load.js';

const SPEC = {
  terms: ['boolean'],
  count: ['number', 1_000_000, 1, 5_000_000],
  database: ['string', (o) => c.defaultSqliteUrl(`terms-${o.count}`)],
  force: ['boolean'],
  rounds: ['number', 3, 1, 100],
  tsx: ['boolean'],
} satisfies c.Spec;
/** The requests measured: the four and the lists beside them. */
const REQUESTS = [
  'tags?hide_empty=false&search=77',
  'tags?page=9000&per_page=100',
  'tags?hide_empty=false&page=9000&per_page=100',
  'tags?orderby=name&page=3000',
  'tags',
  'tags?hide_empty=false',
  'tags?hide_empty=false&orderby=name&page=200&per_page=50',
];

async function seed(url: string, count: number): Promise<void> {
  const { db } = openDatabase(url);
  try {
    await migrateLatest(db);
    const [{ n }] = await db('terms').where('taxonomy', 'post_tag').count({ n: '*' });
    if (Number(n) === count) return c.log(`reusing ${count} tags in ${c.describeUrl(url)}`);
    await db('terms').delete();
    const shown = c.progress('tags', count);
    for (let from = 0; from < count; from += 500) {
      const rows = Array.from({ length: Math.min(500, count - from) }, (_, k) => {
        const [i, name] = [from + k, `Tag ${from + k} ${((from + k) * 7919) % 1000}`];
        return { taxonomy: 'post_tag', name, slug: `tag-${i}`, description: '', parent: 0, published_count: i % 10 === 0 ? 1 : 0, name_key: name.toLowerCase() };
      });
      await db('terms').insert(rows);
      shown.tick(from + rows.length);
    }
    shown.done();
  } finally {
    await db.destroy();
  }
}

export async function main(argv: string[]): Promise<void> {
  const o = c.options(argv, SPEC, import.meta.url);
  const engine = c.checkDatabaseUrl(o.database);
  if (engine === 'mysql' && !/bench/.test(o.database) && !o.force)
    throw new Error('--database must name a database with "bench" in its name (or pass --force): its terms are replaced');
  const started = new Date();
  await seed(o.database, o.count);
  const tsx = o.tsx || !c.buildService();
  const { child, base } = await c.startService(o.database, { tsx });
  const { db } = openDatabase(o.database);
  const rows: Array<Array<string | number>> = [];
  const results: Array<Record<string, unknown>> = [];
  try {
    for (const request of REQUESTS) {
      const path = c.api(`/${request}`);
      // The first request of an operation compiles its validator: not measured.
      await send(base, { path: `${path}${path.includes('?') ? '&' : '?'}order=asc` });
      const [latencies, probes]: number[][] = [[], []];
      let status = 0;
      for (let round = 0; round < o.rounds; round++) {
        await bumpDataVersion(db);
        const prober = openLoop({ base, rate: 50, request: () => ({ path: '/healthz' }) });
        const answer = await send(base, { path }, { timeoutMs: 600_000 });
        const healthz = await prober.stop();
        [status] = [answer.status, latencies.push(answer.ms), probes.push(healthz.latencies.at(-1) ?? 0)];
      }
      const range = (list: number[]) => `${c.round(Math.min(...list))}–${c.round(Math.max(...list))}`;
      rows.push([request, status, range(latencies), range(probes)]);
      results.push({ request, status, latencyMs: latencies.map((ms) => c.round(ms)), slowestHealthzMs: probes.map((ms) => c.round(ms)) });
    }
  } finally {
    await c.stopChild(child);
    await db.destroy();
  }
  const text = `${o.count} tags, ${c.describeUrl(o.database)}, ${o.rounds} rounds\n${c.table(['request (anonymous)', 'status', 'latency ms', 'slowest /healthz ms'], rows)}`;
  c.writeResults(`terms-${engine}-`, started, { count: o.count, database: c.describeUrl(o.database), rounds: o.rounds, results }, text);
}
