#!/usr/bin/env node
// `npm run mutate` runs Stryker (stryker.config.mjs) on every rule module; `npm run mutate -- --since <ref>`
// only on the rule modules changed since a git ref (committed, staged, unstaged or new files). Every
// other argument goes to `stryker run` as is (`--incremental`, `--mutate src/http/paging.ts`, ...).
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RULE_MODULES } from '../stryker.config.mjs';

const args = process.argv.slice(2);
let since;
const rest = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--since') since = args[++i];
  else if (args[i].startsWith('--since=')) since = args[i].slice('--since='.length);
  else rest.push(args[i]);
}
if (since === '') throw new Error('--since needs a git ref, e.g. --since main');

/** A glob of RULE_MODULES (only `*` within one path segment is used) as a regular expression. */
const globToRegExp = (glob) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
const patterns = RULE_MODULES.map(globToRegExp);

if (since !== undefined) {
  const git = (...gitArgs) => execFileSync('git', gitArgs, { encoding: 'utf8' }).split('\n').filter(Boolean);
  const changed = new Set([...git('diff', '--name-only', '--diff-filter=d', since, '--'), ...git('ls-files', '--others', '--exclude-standard')]);
  const files = [...changed].filter((file) => patterns.some((pattern) => pattern.test(file))).sort();
  if (!files.length) {
    console.log(`No rule module changed since ${since}; nothing to mutate.`);
    process.exit(0);
  }
  console.log(`Mutating the rule modules changed since ${since}: ${files.join(', ')}`);
  rest.unshift('--mutate', files.join(','));
}

// StrykerJS 10 checks for Node 22 at start-up; on Node 20 (still in our engines) skip that check only.
const node20 = Number(process.versions.node.split('.')[0]) < 22 ? ['--import', './scripts/stryker-node20.mjs'] : [];
const shims = ['--import', './scripts/stryker-mocha12.mjs', ...node20];
const stryker = fileURLToPath(new URL('bin/stryker.js', import.meta.resolve('@stryker-mutator/core/package.json')));
// The checker processes load every plugin too: they get the mocha 12 shim through NODE_OPTIONS.
const shim = new URL('./stryker-mocha12.mjs', import.meta.url).href;
const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${shim}`.trim() };
const result = spawnSync(process.execPath, [...shims, stryker, 'run', ...rest], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
