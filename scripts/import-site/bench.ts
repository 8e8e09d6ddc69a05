/**
 * How long `import-site` takes for a site of 10,000 events, and its peak memory (docs/importing.md
 * "Performance"): a synthetic site (the recorded peer's answers as templates, test/helpers/tec-site-server.ts)
 * serves 10,000 events, 20 venues, 20 organizers and 10 terms; the command runs in its own process
 * under /usr/bin/time, into an empty database, then again (every record unchanged).
 *
 *   npm run -s build && node --import tsx scripts/import-site/bench.ts [--events N] [--database URL] [--heap MB] [--serve]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_CREDENTIALS, loadRecording, replaySite, type RecordedAnswer } from '../../test/helpers/tec-site-server.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '10000' }, database: { type: 'string' }, serve: { type: 'boolean', default: false }, heap: { type: 'string' } },
});
const EVENTS = Number(values.events);
const NS = '/wp-json/tribe/events/v1';
const recording = loadRecording();
const json = (body: unknown, headers: Record<string, string> = {}): RecordedAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const firstPage = JSON.parse(
  recording.authenticated[`${NS}/events?status=publish,future,draft,pending,private&start_date=1000-01-01%2000%3A00%3A00&end_date=9999-12-31%2023%3A59%3A59&per_page=10&page=1`]
    .body,
);
const template = firstPage.events.find((e: { venue: unknown; organizer: unknown[] }) => !Array.isArray(e.venue) && e.organizer.length);
const venueTemplate = template.venue;
const organizerTemplate = template.organizer[0];
const categoryTemplate = template.categories[0];
const tagTemplate = template.tags[0];

const venue = (i: number) => ({ ...venueTemplate, id: 100 + i, venue: `Venue ${i}`, slug: `venue-${i}` });
const organizer = (i: number) => ({ ...organizerTemplate, id: 200 + i, organizer: `Organizer ${i}`, slug: `organizer-${i}` });
const term = (t: Record<string, unknown>, id: number, name: string) => ({ ...t, id, name, slug: name.toLowerCase().replace(/ /g, '-'), parent: 0 });
const categories = Array.from({ length: 5 }, (_, i) => term(categoryTemplate, 1 + i, `Category ${i}`));
const tags = Array.from({ length: 5 }, (_, i) => term(tagTemplate, 6 + i, `Tag ${i}`));

function event(i: number) {
  const day = new Date(Date.UTC(2027, 0, 1) + (i % 700) * 86_400_000).toISOString().slice(0, 10);
  return {
    ...template,
    id: 1000 + i,
    title: `Event ${i}`,
    slug: `event-${i}`,
    description: `<p>Event number ${i}, with a <strong>description</strong> of some length. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`,
    start_date: `${day} 19:00:00`,
    end_date: `${day} 22:00:00`,
    utc_start_date: `${day} 19:00:00`,
    utc_end_date: `${day} 22:00:00`,
    timezone: 'UTC',
    venue: venue(i % 20),
    organizer: [organizer(i % 20)],
    categories: [categories[i % 5]],
    tags: [tags[i % 5]],
    image: false,
  };
}

function answer(url: string): RecordedAnswer | undefined {
  const { pathname, searchParams } = new URL(url, 'http://x');
  const page = Number(searchParams.get('page') ?? 1);
  const perPage = Number(searchParams.get('per_page') ?? 10);
  const paged = (total: number, make: (i: number) => unknown, key: string) => {
    const items = Array.from({ length: Math.max(0, Math.min(perPage, total - (page - 1) * perPage)) }, (_, k) => make((page - 1) * perPage + k));
    return json({ [key]: items, total, total_pages: Math.ceil(total / perPage) });
  };
  if (pathname === `${NS}/events`) return paged(EVENTS, event, 'events');
  if (pathname === `${NS}/venues`) return paged(20, venue, 'venues');
  if (pathname === `${NS}/organizers`) return paged(20, organizer, 'organizers');
  if (pathname === `${NS}/categories`) return json({ categories, total: 5, total_pages: 1 });
  if (pathname === `${NS}/tags`) return json({ tags, total: 5, total_pages: 1 });
  if (pathname === '/wp-json/wp/v2/tribe_events') {
    const ids = Array.from({ length: Math.max(0, Math.min(perPage, EVENTS - (page - 1) * perPage)) }, (_, k) => ({ id: 1000 + (page - 1) * perPage + k }));
    return json(ids, { 'x-wp-totalpages': String(Math.ceil(EVENTS / perPage)) });
  }
  return undefined;
}

async function main(): Promise<void> {
  const site = await replaySite(recording, (url) => answer(url));
  if (values.serve) {
    // Only the synthetic site, for a run by hand (a profile, another database).
    console.log(`serving ${EVENTS} events at ${site.origin}`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-bench-'));
  const database = values.database ?? `sqlite:${path.join(dir, 'bench.sqlite')}`;
  const run = async (label: string) => {
    const started = Date.now();
    // Asynchronous: the synthetic site answers from this process.
    const child = spawn(
      '/usr/bin/time',
      [
        '-v',
        process.execPath,
        ...(values.heap ? [`--max-old-space-size=${values.heap}`] : []),
        ...(process.env.PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROFILE] : []),
        'dist/src/cli.js',
        'import-site',
        site.origin,
        '--credentials',
        ADMIN_CREDENTIALS,
        '--json',
      ],
      {
        env: { ...process.env, DATABASE_URL: database },
      },
    );
    const result = { stdout: '', stderr: '', status: 0 };
    child.stdout.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()));
    result.status = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    const seconds = (Date.now() - started) / 1000;
    const peak = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1] ?? 0) / 1024;
    const report = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}');
    console.log(`${label}: ${seconds.toFixed(1)} s, peak RSS ${peak.toFixed(0)} MB, events ${JSON.stringify(report.counts?.event)}`);
    if (result.status !== 0) console.log(result.stderr.slice(-2000));
  };
  console.log(`${EVENTS} events into ${database.replace(/:[^:@/]*@/, ':***@')} (node ${process.version}, ${os.cpus().length} CPUs)`);
  await run('first import (empty database)');
  await run('second import (unchanged)');
  await site.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
