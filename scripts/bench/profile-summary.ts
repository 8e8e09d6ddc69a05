/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --profile DIR`):
 * where the time goes by area (our files, each package, Node internals, GC, idle), the top
 * functions by self time, and the top functions of src/ by inclusive time.
 *
 *   node --import tsx scripts/bench/profile-summary.ts FILE.cpuprofile [--top 25]
 */
import fs from 'node:fs';
import { parseArgs } from './common.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

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
  if (src !== -1) return url.slice(src + 1).replace(/^dist\//, '').replace(/\.js$/, '.ts');
  return url.replace(/^file:\/\//, '');
}

function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}  ${areaOf(url, functionName)}:${lineNumber + 1}`;
}

export function summarise(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id)!;
    total += delta;
    if (node.callFrame.functionName === '(idle)') idle += delta;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + delta);
    const area = areaOf(node.callFrame.url, node.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + delta);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = keyOf(byId.get(at)!);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + delta);
    }
  });
  const busy = total - idle;
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
  const lines: string[] = [];
  lines.push(`profile: ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (percentages are of busy time)`);
  lines.push('', 'by area (self time):');
  for (const [area, ms] of [...areas].filter(([a]) => a !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(ms)}  ${area}`);
  lines.push('', 'top functions by self time:');
  for (const [key, ms] of [...self].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(ms)}  ${key}`);
  lines.push('', 'our functions (src/) by inclusive time:');
  for (const [key, ms] of [...inclusive].filter(([k]) => /\ssrc\//.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(ms)}  ${key}`);
  lines.push('', 'package entry points by inclusive time (express-openapi-validator, knex, pino, ajv...):');
  for (const [key, ms] of [...inclusive].filter(([k]) => /\s(express-openapi-validator|knex|pino|pino-http|ajv|@wordpress\/autop|luxon|better-sqlite3|mysql2|sanitize-html|express|qs|router)[/:]/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(ms)}  ${key}`);
  }
  return lines.join('\n');
}

function main(): void {
  const files = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  const args = parseArgs(process.argv.slice(2).filter((a) => !files.includes(a)), { top: 'number' });
  if (files.length === 0) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--top 25]');
  for (const file of files) {
    process.stdout.write(`== ${file}\n${summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(args.top ?? 25))}\n\n`);
  }
}

main();
