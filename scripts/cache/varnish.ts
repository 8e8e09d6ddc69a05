/**
 * Varnish in front of a service on 127.0.0.1, for the cache tests (test/cache/) and the cache
 * benchmark: each call starts its own `varnishd -F` (a child process, in the foreground) with its own
 * work dir (-n) and a copy of scripts/cache/varnish.vcl whose backend is the given port, so that
 * several instances can run side by side without sharing anything. See docs/caching.md
 * "Running Varnish in front".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The VCL of the repository, with the backend written as 127.0.0.1:8080. */
export const VCL_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'varnish.vcl');

export interface Varnish {
  /** The port Varnish listens on, on 127.0.0.1. */
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops varnishd (manager and child) and removes its work dir. */
  stop(): Promise<void>;
}

/** Whether `varnishd` can be run here (Debian's varnish package). */
export function varnishAvailable(): boolean {
  return spawnSync('varnishd', ['-V'], { stdio: 'ignore' }).status === 0;
}

/**
 * The varnishd processes started here and not yet stopped: stopped when this process exits however
 * it exits (a test run that fails before its `after` hook, say), so that none outlives it.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** How long varnishd may take to compile the VCL and start its child (seconds, not milliseconds, under load). */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts Varnish in front of 127.0.0.1:`backendPort` and resolves once it answers. Without `port`,
 * it listens on a port the kernel picks (`-a 127.0.0.1:0`, read back through varnishadm), so two
 * instances never race for one.
 */
export async function startVarnish(options: { backendPort: number; port?: number }): Promise<Varnish> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'varnish-'));
  // Run as root, varnishd's default "unix" jail compiles the VCL and serves as the users `varnish`
  // and `vcache` (created by Debian's package): they must be able to read the copy (mkdtemp makes 0700).
  fs.chmodSync(dir, 0o755);
  const vcl = path.join(dir, 'varnish.vcl');
  fs.writeFileSync(vcl, withBackendPort(fs.readFileSync(VCL_PATH, 'utf8'), options.backendPort), { mode: 0o644 });
  const workDir = path.join(dir, 'work');
  const args = [
    '-F',
    '-n',
    workDir,
    '-f',
    vcl,
    '-a',
    `127.0.0.1:${options.port ?? 0}`,
    // The management port (for varnishadm, with the secret varnishd writes into the work dir).
    '-T',
    '127.0.0.1:0',
    '-s',
    'malloc,64m',
  ];
  const child = spawn('varnishd', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-10_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const stop = async (): Promise<void> => {
    await kill(child, exited);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const port = await waitUntilAnswering(workDir, child, () => spawnError);
    return { port, url: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw new Error(`varnishd did not start: ${(error as Error).message}\n${output.slice(-3000)}`, { cause: error });
  }
}

/** The VCL with its backend's port replaced (the file names 127.0.0.1:8080). */
export function withBackendPort(vcl: string, backendPort: number): string {
  const replaced = vcl.replace(/(\.port\s*=\s*)"\d+"/, `$1"${backendPort}"`);
  if (replaced === vcl) throw new Error('scripts/cache/varnish.vcl: no backend .port to replace');
  return replaced;
}

/**
 * Waits until varnishd's child runs (varnishadm reads its listening address) and answers HTTP. The
 * probe is a PURGE of a URL nothing caches: Varnish answers it itself (200 from 127.0.0.1, see the
 * VCL's `purgers`), so the service behind it never sees the probe (the tests count its requests).
 */
async function waitUntilAnswering(workDir: string, child: ChildProcess, spawnError: () => Error | undefined): Promise<number> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const error = spawnError();
    if (error) throw error;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`varnishd exited (${child.exitCode ?? child.signalCode})`);
    const port = await listeningPort(workDir);
    if (port !== undefined && (await answers(port))) return port;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`);
}

/** The port of the first listen address (`a0 127.0.0.1 41234`), once the child has started. */
function listeningPort(workDir: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile('varnishadm', ['-n', workDir, '-t', '2', 'debug.listen_address'], { timeout: 5_000 }, (error, stdout) => {
      const match = /^\S+\s+\S+\s+(\d+)\s*$/m.exec(stdout);
      resolve(error || !match ? undefined : Number(match[1]));
    });
  });
}

async function answers(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/.varnish-harness-probe`, { method: 'PURGE', signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** SIGTERM (the manager stops its child, then itself), SIGKILL after 10 s. */
async function kill(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
