import { execFileSync } from 'node:child_process';
import { projectRoot } from '../../src/openapi/document.js';

/** Runs a tool of the project (a script under node), showing its output when it fails. */
export function run(args: string[]): void {
  try {
    execFileSync(process.execPath, args, { cwd: projectRoot(), stdio: 'pipe', encoding: 'utf8' });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${args.join(' ')} failed:\n${stdout}${stderr}`, { cause: err });
  }
}
