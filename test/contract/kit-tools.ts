import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';

/**
 * The contract kit's command-line tools (`portman`, `newman`, `prism`: npm devDependencies, see
 * docs/contract-testing.md). They are looked up in the project's node_modules/.bin, then in
 * KIT_TOOLS_DIR (a folder of such binaries, e.g. a scratch `npm install --prefix`), and `prism`
 * also at PRISM_BIN. A missing tool skips the test with a message, unless REQUIRE_SDK=1 (CI sets
 * it), which makes it a failure.
 */
export function findTool(name: string): string | undefined {
  const candidates = [path.join(projectRoot(), 'node_modules', '.bin', name)];
  if (process.env.KIT_TOOLS_DIR) candidates.push(path.join(process.env.KIT_TOOLS_DIR, name));
  if (name === 'prism' && process.env.PRISM_BIN) candidates.unshift(process.env.PRISM_BIN);
  return candidates.find((file) => fs.existsSync(file));
}

/** The tool's path, or skips the running test (fails under REQUIRE_SDK=1) when it is missing. */
export function requireTool(context: Mocha.Context, name: string): string {
  const found = findTool(name);
  if (found) return found;
  if (process.env.REQUIRE_SDK === '1') throw new Error(`REQUIRE_SDK=1 but \`${name}\` was not found in node_modules/.bin or KIT_TOOLS_DIR`);
  console.log(`      (skipped: \`${name}\` was not found; run npm ci, or set KIT_TOOLS_DIR to a folder holding it)`);
  context.skip();
}
