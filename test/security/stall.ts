import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

/**
 * How long `/healthz` may take while an attack runs, less the time the service or the prober waited
 * for a processor another program held (healthz-prober.mjs; docs/limits.md).
 */
export const PROBE_BUDGET_MS = 250;

/** The pid of each stall service by its URL, for the prober. */
const pidsByUrl = new Map<string, number>();

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
  if (service.child.pid !== undefined) pidsByUrl.set(service.url, service.child.pid);
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
      pidsByUrl.delete(service.url);
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

/** The prober's script: a process of its own, not a loop in the test runner (see the file). */
const PROBER = fileURLToPath(new URL('./healthz-prober.mjs', import.meta.url));

interface Prober {
  /** Stops probing; the slowest probe (less waits for a processor, and as measured) and how many ran. */
  stop(): Promise<{ slowest: number; slowestWall: number; probes: number }>;
}

async function startProber(base: string): Promise<Prober> {
  const pid = pidsByUrl.get(base);
  const child = spawn(process.execPath, [PROBER, base, ...(pid === undefined ? [] : [String(pid)])], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => output.startsWith('ready\n') && resolve());
    void exited.then((code) => reject(new Error(`the /healthz prober exited (${code}) before it was ready`)));
  });
  return {
    async stop() {
      child.stdin.end();
      const code = await exited;
      const report = output.slice('ready\n'.length).trim();
      if (code !== 0 || report === '') throw new Error(`the /healthz prober failed (exit ${code}) and reported nothing`);
      return JSON.parse(report) as { slowest: number; slowestWall: number; probes: number };
    },
  };
}

/**
 * Runs `attack` while a prober (above) asks for `/healthz` back to back; returns the attack's result
 * and the slowest probe, and fails when a probe took longer than `budgetMs` (PROBE_BUDGET_MS unless
 * given: the service's loop was blocked).
 */
export async function withoutStall<T>(base: string, attack: () => Promise<T>, budgetMs = PROBE_BUDGET_MS): Promise<{ result: T; slowestProbeMs: number }> {
  const prober = await startProber(base);
  let result: T;
  try {
    result = await attack();
  } catch (err) {
    // No prober outlives its test; the attack's own failure is the one reported.
    await prober.stop().catch(() => undefined);
    throw err;
  }
  const probed = await prober.stop();
  assert.ok(probed.probes > 0, 'no probe ran');
  assert.ok(
    probed.slowest < budgetMs,
    `/healthz took ${Math.round(probed.slowest)} ms while the attack ran, less waits for a processor (${Math.round(probed.slowestWall)} ms as measured; budget ${budgetMs} ms)`,
  );
  return { result, slowestProbeMs: probed.slowest };
}
