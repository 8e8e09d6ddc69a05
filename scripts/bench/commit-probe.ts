/**
 * What a synced commit costs on this disk, apart from everything else the service does: one SQLite
 * connection opened as the service opens it (src/db/knex.ts) commits single-row transactions one
 * after another, with `SQLITE_SYNCHRONOUS` full and normal in turn, in a scratch file next to the
 * benchmark databases. The difference is the disk's sync time, paid by each commit; better-sqlite3 is
 * synchronous, so the event loop waits that long at each commit (docs/performance.md "Current figures").
 * CPU contention hardly moves it, unlike requests/s under load.
 *
 *   node --import tsx scripts/bench/commit-probe.ts [--commits 300] [--rounds 2]
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type SqliteSynchronous } from '../../src/db/knex.js';
import { BENCH_DB_DIR, parseArgs, round } from './common.js';

const args = parseArgs(process.argv.slice(2), { commits: 'number', rounds: 'number' }) as { commits?: number; rounds?: number };
const commits = args.commits ?? 300;
const rounds = args.rounds ?? 2;
fs.mkdirSync(BENCH_DB_DIR, { recursive: true });

async function probe(level: SqliteSynchronous): Promise<string> {
  const file = path.join(BENCH_DB_DIR, `commit-probe-${level}.sqlite`);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  const { db } = openDatabase(`sqlite:${file}`, { sqliteSynchronous: level });
  try {
    await db.schema.createTable('probe', (table) => {
      table.integer('n');
      table.text('body');
    });
    const times: number[] = [];
    const started = performance.now();
    for (let n = 0; n < commits; n++) {
      const before = performance.now();
      // About the size of an event's row: the page written, and synced, is the same.
      await db.transaction((trx) => trx('probe').insert({ n, body: 'x'.repeat(2000) }));
      times.push(performance.now() - before);
    }
    const seconds = (performance.now() - started) / 1000;
    times.sort((a, b) => a - b);
    const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))], 2);
    return `${level.padEnd(6)} ${String(round(commits / seconds, 0)).padStart(6)} commits/s  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms`;
  } finally {
    await db.destroy();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  }
}

for (let r = 0; r < rounds; r++) for (const level of ['full', 'normal'] as const) process.stdout.write(`${await probe(level)}\n`);
