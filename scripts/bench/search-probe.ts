/**
 * CPU time per `GET /events?search=` request, in-process, by kind of word (as cpu-probe.ts: one
 * keep-alive client, `process.cpuUsage()` over the run), and the answers themselves, so that two
 * builds can be compared for identical ids, order and `X-WP-Total` (`--answers FILE`, then diff).
 *
 *   node --import tsx scripts/bench/search-probe.ts [--events 10000 | --database URL] [--requests 300] [--answers FILE] [--only TEXT]
 *
 * Each request's window starts one day earlier than the one before (all before the calendar's first
 * day, so the answer is the same), so that neither the remembered reply nor the remembered total
 * serves it: this is what a word costs the first time. `(total remembered)` kinds keep one window
 * and ask later pages, the total then counted once per word.
 */
import fs from 'node:fs';
import http from 'node:http';
import { NAMESPACE_PATH, checkDatabaseUrl, defaultSqliteUrl, parseArgs, pick, rng } from './common.js';
import { loadSamples } from './scenarios.js';
import { ADJECTIVES, FORMATS, SUBJECTS } from './seed.js';
import { startInProcess } from './in-process.js';

process.env.TZ = 'UTC';

const args = parseArgs(process.argv.slice(2), { events: 'number', database: 'string', requests: 'number', answers: 'string', only: 'string' }) as {
  events?: number;
  database?: string;
  requests?: number;
  answers?: string;
  only?: string;
};
const url = args.database ?? defaultSqliteUrl(args.events ?? 10_000);
checkDatabaseUrl(url);
const requests = args.requests ?? 300;

const { db, server, port, agent } = await startInProcess(url);

function get(path: string): Promise<{ status: number; total: string | undefined; ids: number[] }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path, method: 'GET', agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events?: Array<{ id: number }> };
        resolve({ status: res.statusCode ?? 0, total: res.headers['x-wp-total'] as string | undefined, ids: (body.events ?? []).map((e) => e.id) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const samples = await loadSamples(db);
const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const end = day(samples.lastDay + 365 * DAY);
let shift = 0;
const freshWindow = () => ({ start_date: day(samples.firstDay - (730 + (shift++ % 3000)) * DAY), end_date: end });
const fixedWindow = () => ({ start_date: day(samples.firstDay - 730 * DAY), end_date: end });
const common = (r: () => number) => pick(r, [ADJECTIVES, SUBJECTS, FORMATS][Math.floor(r() * 3)]).toLowerCase();

const kinds: Array<[string, (r: () => number) => Record<string, string>]> = [
  ['common word, page 1', (r) => ({ ...freshWindow(), search: common(r) })],
  ['common word, pages 1-5 (total remembered)', (r) => ({ ...fixedWindow(), search: common(r), page: String(1 + Math.floor(r() * 5)) })],
  ['two common words', (r) => ({ ...freshWindow(), search: `${common(r)} ${common(r)}` })],
  ['very common word ("the")', () => ({ ...freshWindow(), search: 'the' })],
  ['rare title phrase', (r) => ({ ...freshWindow(), search: `"${pick(r, ADJECTIVES)} ${pick(r, SUBJECTS)} ${pick(r, FORMATS)}"` })],
  ['word found nowhere', (r) => ({ ...freshWindow(), search: `zq${Math.floor(r() * 36 ** 5).toString(36)}` })],
  ['common word, default window', (r) => ({ search: common(r), page: String(1 + Math.floor(r() * 3)) })],
];

const answers: string[] = [];
for (const [name, query] of kinds) {
  if (args.only && !name.includes(args.only)) continue;
  const r = rng(31);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) {
    const q = new URLSearchParams(query(r));
    const answer = await get(`${NAMESPACE_PATH}/events?${q}`);
    if (answer.status !== 200) throw new Error(`${name}: ${q}: status ${answer.status}`);
    q.delete('start_date');
    answers.push(`${name}\t${q}\t${answer.total}\t${answer.ids.join(',')}`);
  }
  const used = process.cpuUsage(cpu);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`${name.padEnd(44)} ${((used.user + used.system) / 1000 / requests).toFixed(2)} ms CPU/request   ${(wallMs / requests).toFixed(2)} ms wall`);
}
if (args.answers) fs.writeFileSync(args.answers, `${answers.join('\n')}\n`);
server.close();
agent.destroy();
await db.destroy();
