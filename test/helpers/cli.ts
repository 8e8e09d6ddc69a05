import { spawn } from 'node:child_process';
import { projectRoot } from '../../src/openapi/document.js';

/**
 * The command line (`src/cli.ts`) as its own process on `databaseUrl`, without blocking this one (a
 * replayed site or a service in this process answers it meanwhile): its exit status and output.
 */
export function runCli(databaseUrl: string, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: projectRoot(), env: { ...process.env, DATABASE_URL: databaseUrl } });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status: status ?? 1, ...out })));
}
