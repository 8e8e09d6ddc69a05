/**
 * Two probes that explain the figures (probes.ts): `--probe explain` runs the service in-process on the
 * benchmark database, sends one request per scenario, captures every SQL statement Knex runs for it
 * (the `query` event, what DEBUG=knex:query prints) and runs `EXPLAIN QUERY PLAN` (SQLite) or `EXPLAIN`
 * (MySQL/MariaDB) on each SELECT, timing it (median of --repeat runs); lines that read a whole table or
 * index, or sort in a temporary structure, are flagged. --writes also runs the POST and PATCH scenarios.
 * `--probe profile --file FILE` summarises a V8 .cpuprofile (`node --cpu-prof`, e.g. `npm run bench --
 * --profile DIR`): the time by area (our files, each package, Node internals, GC), the top functions by
 * self time, and the top functions of src/ and of the packages by inclusive time.
 */
import fs from 'node:fs';
import type { Knex } from 'knex';
import * as c from './common.js';
import { send } from './load.js';
import { inProcess, type ProbeOptions } from './probes.js';
import { SCENARIOS, loadSamples } from './scenarios.js';

/** The plan's lines (indented by depth on SQLite) and what they flag. */
function planOf(engine: 'sqlite' | 'mysql', rows: Array<Record<string, unknown>>): { plan: string[]; flags: string[] } {
  const [plan, flags] = [[] as string[], new Set<string>()];
  const depth = new Map<number, number>();
  for (const row of rows) {
    if (engine === 'sqlite') {
      const [d, detail] = [(depth.get(Number(row.parent)) ?? -1) + 1, String(row.detail)];
      depth.set(Number(row.id), d);
      plan.push(`${'  '.repeat(d)}${detail}`);
      if (/^SCAN /.test(detail) && !/^SCAN CONSTANT/.test(detail)) flags.add(/USING (COVERING )?INDEX/.test(detail) ? `full index scan: ${detail}` : `FULL TABLE SCAN: ${detail}`);
      if (/USE TEMP B-TREE/.test(detail)) flags.add(`temp b-tree: ${detail}`);
      continue;
    }
    const extra = String(row.Extra ?? '');
    plan.push(`id=${row.id} ${row.select_type} ${row.table} type=${row.type} key=${row.key ?? 'NULL'} key_len=${row.key_len ?? ''} ref=${row.ref ?? ''} rows=${row.rows} ${extra}`.trim());
    if (row.type === 'ALL') flags.add(`FULL TABLE SCAN: ${row.table} (rows ~${row.rows})`);
    if (row.type === 'index') flags.add(`full index scan: ${row.table} ${row.key} (rows ~${row.rows})`);
    if (/filesort/.test(extra)) flags.add(`filesort: ${row.table} (rows ~${row.rows})`);
    if (/temporary/.test(extra)) flags.add(`temporary table: ${row.table}`);
  }
  return { plan, flags: [...flags] };
}

export async function explain(o: ProbeOptions): Promise<void> {
  const engine = c.checkDatabaseUrl(o.database);
  const names = o.scenarios?.split(',');
  const app = await inProcess(o.database);
  const samples = await loadSamples(app.db);
  let captured: Array<{ sql: string; bindings: Knex.RawBinding[] }> | undefined;
  app.db.on('query', (q: { sql: string; bindings?: Knex.RawBinding[] }) => captured?.push({ sql: q.sql, bindings: q.bindings ?? [] }));
  // The first request compiles the validator; keep it out of the capture.
  await send(app.base, { path: c.api('/') });
  process.stdout.write(`EXPLAIN of the benchmark scenarios on ${c.describeUrl(o.database)} (${engine}); median of ${o.repeat} runs per SELECT\n`);
  const random = c.rng(7);
  try {
    for (const scenario of SCENARIOS.filter((s) => (names ? names.includes(s.name) : !s.write || o.writes))) {
      const request = scenario.request(samples, random);
      captured = [];
      const answer = await send(app.base, request);
      const queries = captured;
      captured = undefined;
      process.stdout.write(`\n=== ${scenario.name}: ${request.method} ${decodeURIComponent(request.path)} -> ${answer.status}, ${answer.ms.toFixed(1)} ms in-process, ${queries.length} statements\n`);
      let sqlMs = 0;
      for (const [i, query] of queries.entries()) {
        const inline = app.db.raw(query.sql, query.bindings).toQuery();
        const sql = o.full || inline.length <= 400 ? inline : `${inline.slice(0, 400)}...`;
        if (!/^\s*select/i.test(query.sql)) {
          process.stdout.write(`\n  [${i + 1}] ${sql}\n`);
          continue;
        }
        const raw = await app.db.raw(`${engine === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${query.sql}`, query.bindings);
        const times: number[] = [];
        for (let k = 0; k < o.repeat; k++) {
          const started = performance.now();
          await app.db.raw(query.sql, query.bindings);
          times.push(performance.now() - started);
        }
        const median = c.round(times.sort((a, b) => a - b)[Math.floor(times.length / 2)], 3);
        sqlMs += median;
        const { plan, flags } = planOf(engine, engine === 'sqlite' ? raw : raw[0]);
        process.stdout.write(`\n  [${i + 1}] ${median} ms  ${sql}\n${plan.map((line) => `        ${line}\n`).join('')}${flags.map((flag) => `      !! ${flag}\n`).join('')}`);
      }
      process.stdout.write(`\n  SELECTs re-run alone: ${sqlMs.toFixed(2)} ms of the ${answer.ms.toFixed(1)} ms request\n`);
    }
  } finally {
    await app.close();
  }
}

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };

/** `src/records/events/mapper.ts`-style names for our code, the package name for node_modules, else a bucket. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = url.search(/\/(dist\/)?(src|scripts)\//);
  return src === -1 ? url.replace(/^file:\/\//, '') : url.slice(src + 1).replace(/^dist\//, '').replace(/\.js$/, '.ts');
}

export function summarise(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'}  ${areaOf(node.callFrame.url, node.callFrame.functionName)}:${node.callFrame.lineNumber + 1}`;
  const [self, inclusive, areas] = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  let [total, idle] = [0, 0];
  profile.samples.forEach((id, i) => {
    const [delta, node] = [(profile.timeDeltas[i] ?? 0) / 1000, byId.get(id)!];
    total += delta;
    if (node.callFrame.functionName === '(idle)') idle += delta;
    add(self, keyOf(node), delta);
    add(areas, areaOf(node.callFrame.url, node.callFrame.functionName), delta);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, delta);
    }
  });
  const busy = total - idle;
  const list = (title: string, map: Map<string, number>, keep: (key: string) => boolean) => [
    '',
    title,
    ...[...map]
      .filter(([key]) => keep(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, ms]) => `  ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${key}`),
  ];
  const packages = /\s(express-openapi-validator|knex|pino|pino-http|ajv|@wordpress\/autop|luxon|better-sqlite3|mysql2|sanitize-html|express|qs|router)[/:]/;
  return [
    `profile: ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (percentages are of busy time)`,
    ...list('by area (self time):', areas, (a) => a !== '(idle)'),
    ...list('top functions by self time:', self, (k) => !k.startsWith('(idle)')),
    ...list('our functions (src/) by inclusive time:', inclusive, (k) => /\ssrc\//.test(k)),
    ...list('package entry points by inclusive time (express-openapi-validator, knex, pino, ajv...):', inclusive, (k) => packages.test(k)),
  ].join('\n');
}

export async function profileSummary(o: ProbeOptions): Promise<void> {
  if (!o.file) throw new Error('usage: --probe profile --file FILE.cpuprofile [--top 25]');
  process.stdout.write(`== ${o.file}\n${summarise(JSON.parse(fs.readFileSync(o.file, 'utf8')), o.top)}\n\n`);
}
