import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { Knex } from 'knex';
import { UserRepository } from '../../src/repositories/users.js';
import type { Role } from '../../src/auth/capabilities.js';
import { resetDatabase } from '../helpers/database.js';
import { killService, serviceDatabase, startService, type Service } from '../ops/service.js';

/**
 * The service as a child process with a liveness probe beside every attack (docs/limits.md): an
 * attack that blocks the event loop shows as a `/healthz` that does not answer in time, which an
 * in-process test cannot see (its own loop would be the one blocked).
 */

/** How long `/healthz` may take while an attack runs. */
export const PROBE_BUDGET_MS = 250;

export interface StallService {
  url: string;
  service: Service;
  db: Knex;
  /**
   * `Authorization` header of a user with that role, created when it does not exist (on MariaDB the
   * test hooks empty the database before every test, so a user made in `before` would be gone).
   */
  as(role: Role): Promise<string>;
  close(): Promise<void>;
}

export async function startStallService(env: Record<string, string> = {}): Promise<StallService> {
  const database = await serviceDatabase();
  if (database.engine === 'mysql') await resetDatabase(database.db);
  const service = await startService({ DATABASE_URL: database.url, ...env });
  return {
    url: service.url,
    service,
    db: database.db,
    async as(role) {
      const login = `stall-${role}`;
      const secret = `${login}-secret-0123456789`;
      if (!(await database.db('users').where({ login }).first('id'))) await new UserRepository(database.db).add(login, role, secret);
      return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;
    },
    async close() {
      killService(service);
      await service.exited;
      await database.close();
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: any;
  ms: number;
}

/** One request to the child service; rejects when it does not answer within `timeoutMs`. */
export async function send(
  base: string,
  path: string,
  init: { method?: string; authorization?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.authorization) headers.authorization = init.authorization;
  let body: string | Blob | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : init.body instanceof Uint8Array ? new Blob([Uint8Array.from(init.body)]) : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const began = performance.now();
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, ms: performance.now() - began };
}

/**
 * The prober: a process of its own that asks for `/healthz` back to back (20 ms apart, each on a
 * kept-alive connection, 5 s at most) until its standard input closes, then prints the slowest probe.
 * Not a loop in the test runner: after a few thousand tests its heap is large, and one full garbage
 * collection there paused its own loop for a few hundred milliseconds, which counted as a slow
 * `/healthz` (seen once on CI, Node 24). Plain CommonJS with node:http, so it starts in about 40 ms.
 */
const PROBER = `
const http = require('node:http');
const target = new URL('/healthz', process.argv[1]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let done = false;
process.stdin.on('end', () => { done = true; });
process.stdin.resume();
const probe = () => new Promise((resolve) => {
  const req = http.get(target, { agent, timeout: 5000 }, (res) => { res.resume(); res.on('end', resolve); res.on('error', resolve); });
  req.on('timeout', () => req.destroy());
  req.on('error', resolve);
});
(async () => {
  let slowest = 0;
  let probes = 0;
  process.stdout.write('ready\\n');
  while (!done) {
    const began = performance.now();
    await probe();
    slowest = Math.max(slowest, performance.now() - began);
    probes++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  agent.destroy();
  process.stdout.write(JSON.stringify({ slowest, probes }) + '\\n');
})();
`;

interface Prober {
  /** Stops probing; the slowest probe and how many ran. */
  stop(): Promise<{ slowest: number; probes: number }>;
}

async function startProber(base: string): Promise<Prober> {
  const child = spawn(process.execPath, ['-e', PROBER, base], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the /healthz prober exited (${code}) before it was ready`)));
  });
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return JSON.parse(output.slice('ready\n'.length)) as { slowest: number; probes: number };
    },
  };
}

/**
 * Runs `attack` while a prober (above) asks for `/healthz` back to back; returns the attack's result
 * and the slowest probe, and fails when a probe took longer than PROBE_BUDGET_MS (the service's loop
 * was blocked).
 */
export async function withoutStall<T>(base: string, attack: () => Promise<T>): Promise<{ result: T; slowestProbeMs: number }> {
  const prober = await startProber(base);
  let result: T;
  try {
    result = await attack();
  } catch (err) {
    // No prober outlives its test; the attack's own failure is the one reported.
    await prober.stop();
    throw err;
  }
  const probed = await prober.stop();
  assert.ok(probed.probes > 0, 'no probe ran');
  assert.ok(probed.slowest < PROBE_BUDGET_MS, `/healthz took ${Math.round(probed.slowest)} ms while the attack ran (budget ${PROBE_BUDGET_MS} ms)`);
  return { result, slowestProbeMs: probed.slowest };
}
