import { execFileSync } from 'node:child_process';
import { projectRoot } from '../../src/openapi/document.js';

/** Runs a tool of the project (a script under node), showing its output when it fails. */
export function run(args: string[]): void {
  runCommand(process.execPath, args);
}

/**
 * Runs a command (synchronously: nothing of this process may need to answer it), showing its output
 * when it fails; in the project's root unless `options.cwd` says otherwise, with `options.env` added
 * to this process's environment.
 */
export function runCommand(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): void {
  try {
    execFileSync(command, args, { cwd: options.cwd ?? projectRoot(), env: { ...process.env, ...options.env }, stdio: 'pipe', encoding: 'utf8' });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`, { cause: err });
  }
}
