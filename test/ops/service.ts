import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { UserRepository } from '../../src/repositories/users.js';
import { openTestDatabase, TEST_DATABASE_URL } from '../helpers/database.js';

/**
 * The real service as a child process (`src/main.ts` through tsx, as `npm start` runs the build), for
 * the tests that need signals, several processes or a database that goes away.
 */
export interface Service {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every JSON log line so far. */
  logs(): Array<Record<string, unknown>>;
  /** Waits for a log line matching `test` (rejecting after `timeoutMs`). */
  waitForLog(test: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * `wrapper`: a command the service runs under, such as `['strace', '-f', ...]`; the child process is
 * then that command's, and the service's own pid is in its log lines (`pid`).
 */
export async function startService(env: Record<string, string>, { wrapper = [] }: { wrapper?: string[] } = {}): Promise<Service> {
  const command = [...wrapper, process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child = spawn(command[0], command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        lines.push({ msg: part });
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      for (const wake of waiters) wake();
      resolve({ code, signal });
    }),
  );

  const waitForLog = (test: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = lines.find(test);
        if (found) {
          done();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(new Error(`the service exited (${child.exitCode ?? child.signalCode}): ${stderr}${lines.map((l) => JSON.stringify(l)).join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no such log line within ${timeoutMs} ms: ${stderr}${lines.map((l) => JSON.stringify(l)).join('\n')}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  // A process that never listens is stopped, so a failed start leaves nothing running.
  const listening = await waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('listening on ')).catch((err: unknown) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw err;
  });
  const url = new URL(String(listening.url)).origin;
  return { url, child, exited, logs: () => lines, waitForLog };
}

/** Stops a service that a test left running (a failed assertion), without waiting for grace. */
export function killService(service: Service | undefined): void {
  if (service && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
}

/**
 * A database the child process and the test both reach: the MySQL test database, or a fresh SQLite
 * file (the in-memory test database lives only in this process).
 */
export async function serviceDatabase(): Promise<{ url: string; db: Knex; engine: 'sqlite' | 'mysql'; close(): Promise<void> }> {
  if (TEST_DATABASE_URL.startsWith('mysql:') || TEST_DATABASE_URL.startsWith('mariadb:')) {
    const { db } = await openTestDatabase();
    return { url: TEST_DATABASE_URL, db, engine: 'mysql', close: async () => undefined };
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tec-ops-'));
  const url = `sqlite:${path.join(folder, 'events.sqlite')}`;
  const { db } = openDatabase(url);
  await migrateLatest(db);
  return {
    url,
    db,
    engine: 'sqlite',
    close: async () => {
      await db.destroy();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A user with a known secret; returns the Authorization header value. */
export async function addUser(db: Knex, login: string, role: 'editor' | 'administrator' = 'editor'): Promise<string> {
  const secret = `${login}-secret-0123456789`;
  await new UserRepository(db).add(login, role, secret);
  return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;
}
