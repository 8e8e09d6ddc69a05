/**
 * Query plans of the benchmark scenarios: runs the service in-process on the benchmark database,
 * sends one request per scenario, captures every SQL statement Knex runs for it (the `query` event,
 * i.e. exactly what DEBUG=knex:query would print), then runs `EXPLAIN QUERY PLAN` (SQLite) or
 * `EXPLAIN` (MySQL/MariaDB) on each SELECT and times it (median of --repeat runs).
 * Lines that read the whole table or a whole index, or sort in a temporary structure, are flagged.
 *
 *   node --import tsx scripts/bench/explain.ts [--events 100000 | --database URL] [--scenarios a,b] [--repeat 15] [--writes]
 *
 * The database must have been seeded (npm run bench, or scripts/bench/seed.ts). --writes also runs the
 * POST and PATCH scenarios (they add or change one event).
 */
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/db/knex.js';
import { loadConfig } from '../../src/core/config.js';
import { createApp } from '../../src/http/app.js';
import { LIMITS, bounded, checkDatabaseUrl, defaultSqliteUrl, describeUrl, parseArgs, rng, round } from './common.js';
import { SCENARIOS, loadSamples } from './scenarios.js';

// Date parsing needs a UTC process (dates/parse.ts assertUtcProcess); set before anything runs.
process.env.TZ = 'UTC';

interface Captured {
  sql: string;
  bindings: unknown[];
}

interface Explained {
  sql: string;
  medianMs: number | undefined;
  plan: string[];
  flags: string[];
}

function planOf(engine: 'sqlite' | 'mysql', rows: Array<Record<string, unknown>>): { plan: string[]; flags: string[] } {
  const plan: string[] = [];
  const flags = new Set<string>();
  if (engine === 'sqlite') {
    // id/parent give the tree; indent by depth.
    const depth = new Map<number, number>();
    for (const row of rows) {
      const d = (depth.get(Number(row.parent)) ?? -1) + 1;
      depth.set(Number(row.id), d);
      const detail = String(row.detail);
      plan.push(`${'  '.repeat(d)}${detail}`);
      if (/^SCAN /.test(detail) && !/^SCAN CONSTANT/.test(detail)) flags.add(/USING (COVERING )?INDEX/.test(detail) ? `full index scan: ${detail}` : `FULL TABLE SCAN: ${detail}`);
      if (/USE TEMP B-TREE/.test(detail)) flags.add(`temp b-tree: ${detail}`);
    }
  } else {
    for (const row of rows) {
      plan.push(`id=${row.id} ${row.select_type} ${row.table} type=${row.type} key=${row.key ?? 'NULL'} key_len=${row.key_len ?? ''} ref=${row.ref ?? ''} rows=${row.rows} ${row.Extra ?? ''}`.trim());
      if (row.type === 'ALL') flags.add(`FULL TABLE SCAN: ${row.table} (rows ~${row.rows})`);
      if (row.type === 'index') flags.add(`full index scan: ${row.table} ${row.key} (rows ~${row.rows})`);
      if (/filesort/.test(String(row.Extra ?? ''))) flags.add(`filesort: ${row.table} (rows ~${row.rows})`);
      if (/temporary/.test(String(row.Extra ?? ''))) flags.add(`temporary table: ${row.table}`);
    }
  }
  return { plan, flags: [...flags] };
}

async function explain(db: Knex, engine: 'sqlite' | 'mysql', query: Captured, repeat: number): Promise<Explained> {
  const inline = db.raw(query.sql, query.bindings as Knex.RawBinding[]).toQuery();
  const isSelect = /^\s*select/i.test(query.sql);
  if (!isSelect) return { sql: inline, medianMs: undefined, plan: [], flags: [] };
  const raw = await db.raw(`${engine === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${query.sql}`, query.bindings as Knex.RawBinding[]);
  const rows = (engine === 'sqlite' ? raw : raw[0]) as Array<Record<string, unknown>>;
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = process.hrtime.bigint();
    await db.raw(query.sql, query.bindings as Knex.RawBinding[]);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { sql: inline, medianMs: round(times[Math.floor(times.length / 2)], 3), ...planOf(engine, rows) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), { events: 'number', database: 'string', scenarios: 'string', repeat: 'number', writes: 'boolean', full: 'boolean' });
  const events = bounded('events', Number(args.events ?? 100_000), LIMITS.events);
  const url = String(args.database ?? defaultSqliteUrl(events));
  const engine = checkDatabaseUrl(url);
  const repeat = Math.min(100, Math.max(1, Number(args.repeat ?? 15)));
  const names = args.scenarios ? String(args.scenarios).split(',') : undefined;
  const scenarios = SCENARIOS.filter((s) => (names ? names.includes(s.name) : !s.write || args.writes));

  const { db } = openDatabase(url);
  const samples = await loadSamples(db);
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', SITE_TIMEZONE: 'UTC', HOST: '127.0.0.1', PORT: '0' });
  const app = createApp({ config, db });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let captured: Captured[] | undefined;
  db.on('query', (q: { sql: string; bindings?: unknown[] }) => captured?.push({ sql: q.sql, bindings: q.bindings ?? [] }));
  // The first request compiles the validator; keep it out of the capture.
  await fetch(`${base}/wp-json/tribe/events/v1/`).then((r) => r.arrayBuffer());

  process.stdout.write(`EXPLAIN of the benchmark scenarios on ${describeUrl(url)} (${engine}); median of ${repeat} runs per SELECT\n`);
  const random = rng(7);
  try {
    for (const scenario of scenarios) {
      const request = scenario.request(samples, random);
      captured = [];
      const started = process.hrtime.bigint();
      const res = await fetch(base + request.path, { method: request.method, headers: request.headers, body: request.body });
      await res.arrayBuffer();
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const queries = captured;
      captured = undefined;
      process.stdout.write(`\n=== ${scenario.name}: ${request.method} ${decodeURIComponent(request.path)} -> ${res.status}, ${wallMs.toFixed(1)} ms in-process, ${queries.length} statements\n`);
      let sqlMs = 0;
      for (const [i, query] of queries.entries()) {
        const result = await explain(db, engine, query, repeat);
        sqlMs += result.medianMs ?? 0;
        const sql = args.full || result.sql.length <= 400 ? result.sql : `${result.sql.slice(0, 400)}...`;
        process.stdout.write(`\n  [${i + 1}] ${result.medianMs === undefined ? '' : `${result.medianMs} ms  `}${sql}\n`);
        for (const line of result.plan) process.stdout.write(`        ${line}\n`);
        for (const flag of result.flags) process.stdout.write(`      !! ${flag}\n`);
      }
      process.stdout.write(`\n  SELECTs re-run alone: ${sqlMs.toFixed(2)} ms of the ${wallMs.toFixed(1)} ms request\n`);
    }
  } finally {
    server.close();
    await db.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`explain failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
