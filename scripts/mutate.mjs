#!/usr/bin/env node
// `npm run mutate` runs Stryker (stryker.config.mjs) on every rule module; `npm run mutate -- --since <ref>`
// only on the rule modules the current branch changed since it left a git ref (committed, staged,
// unstaged or new files). Every other argument goes to `stryker run` as is (`--incremental`,
// `--mutate src/operations/shared/paging.ts`, ...).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RULE_MODULES } from '../stryker.config.mjs';

// StrykerJS 10 declares Node >= 22, so it is not a devDependency: on Node 20 (still supported) every
// `npm ci` would print an engine warning. It is installed on first use into `.tools/stryker/`
// (git-ignored) at these exact versions, without peers, so its mocha runner and TypeScript checker
// use the project's own mocha and typescript (Node resolves them from the folders above).
const STRYKER = ['@stryker-mutator/core@10.0.0', '@stryker-mutator/mocha-runner@10.0.0', '@stryker-mutator/typescript-checker@10.0.0'];
const toolsDir = fileURLToPath(new URL('../.tools/stryker/', import.meta.url));
const corePackage = `${toolsDir}node_modules/@stryker-mutator/core/package.json`;
if (!existsSync(corePackage)) {
  console.log(`Installing ${STRYKER.join(', ')} into .tools/stryker (once)`);
  execFileSync('npm', ['install', '--prefix', toolsDir, '--no-save', '--legacy-peer-deps', '--no-audit', '--no-fund', ...STRYKER], { stdio: 'inherit' });
}

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
  // From the point the branch left `since` (its merge base), so commits made on `since` afterwards
  // (another branch merged into main) do not count as this branch's changes.
  const [base] = git('merge-base', since, 'HEAD');
  const changed = new Set([...git('diff', '--name-only', '--diff-filter=d', base, '--'), ...git('ls-files', '--others', '--exclude-standard')]);
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
const stryker = `${toolsDir}node_modules/@stryker-mutator/core/bin/stryker.js`;
// The checker processes load every plugin too: they get the mocha 12 shim through NODE_OPTIONS.
const shim = new URL('./stryker-mocha12.mjs', import.meta.url).href;
const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${shim}`.trim() };
const result = spawnSync(process.execPath, [...shims, stryker, 'run', ...rest], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
