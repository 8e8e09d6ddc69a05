import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The patches of patches/ are applied by patch-package after every install (package.json
 * `postinstall`); src/http/validator.ts counts on the validator's. A version of a package the patch
 * was not written for, or an install that skipped the scripts, leaves the package unpatched without
 * an error: this test finds that. Each hunk's new lines must be in the installed file, in order.
 */
const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(path.join(root, 'package.json'));

interface Hunk {
  file: string;
  /** Runs of consecutive added lines. */
  added: string[][];
  removed: string[];
}

function hunksOf(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let file = '';
  let hunk: Hunk | undefined;
  let run: string[] | undefined;
  for (const line of patch.split('\n')) {
    if (!line.startsWith('+')) run = undefined;
    if (line.startsWith('+++ b/')) file = line.slice('+++ b/'.length);
    else if (line.startsWith('@@')) hunks.push((hunk = { file, added: [], removed: [] }));
    else if (hunk && line.startsWith('+')) {
      if (!run) hunk.added.push((run = []));
      run.push(line.slice(1));
    } else if (hunk && line.startsWith('-')) hunk.removed.push(line.slice(1));
  }
  return hunks;
}

describe('the patches of patches/ are applied to the installed packages', () => {
  const patches = readdirSync(path.join(root, 'patches')).filter((name) => name.endsWith('.patch'));

  it('there is the validator patch src/http/validator.ts counts on', () => {
    assert.ok(
      patches.some((name) => name.startsWith('express-openapi-validator+')),
      patches.join(', '),
    );
  });

  for (const name of patches) {
    it(name, () => {
      const [, pkg, version] = /^(.+)\+([^+]+)\.patch$/.exec(name.replaceAll('++', '/'))!;
      const installed = JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string };
      assert.equal(installed.version, version, `the patch is written for ${pkg} ${version}`);
      const hunks = hunksOf(readFileSync(path.join(root, 'patches', name), 'utf8'));
      assert.ok(hunks.length > 0);
      for (const hunk of hunks) {
        const text = readFileSync(path.join(root, hunk.file), 'utf8');
        for (const lines of hunk.added) assert.ok(text.includes(lines.join('\n')), `${hunk.file} lacks the lines the patch adds:\n${lines.join('\n')}`);
        for (const line of hunk.removed) assert.ok(!text.includes(line), `${hunk.file} still has: ${line}`);
      }
    });
  }
});
