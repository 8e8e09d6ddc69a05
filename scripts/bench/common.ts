/**
 * Helpers shared by the benchmark scripts: option parsing, the default database, a seeded random
 * generator, child processes and /proc readings. Nothing here talks to anything but 127.0.0.1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';

/** The repository root (scripts/bench/ is two levels down). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Output folder: git-ignored. SQLite databases live in its `db/` subfolder so they are ignored too. */
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
export const BENCH_DB_DIR = path.join(RESULTS_DIR, 'db');

/** Known administrator of the seeded calendar (write scenarios authenticate with it). */
export const BENCH_ADMIN = { login: 'bench-admin', secret: 'bench-secret-5f3a9c2e71d4' };

/** The namespace every route lives under (BASE_PATH default + the plugin namespace). */
export const NAMESPACE_PATH = '/wp-json/tribe/events/v1';

export const LIMITS = {
  events: { min: 100, max: 5_000_000 },
  duration: { min: 1, max: 120 },
  warmup: { min: 0, max: 30 },
  connections: { min: 1, max: 256 },
};

/** `--name value`, `--name=value` and `--flag` options; anything else is an error. */
export function parseArgs(argv: string[], spec: Record<string, 'string' | 'number' | 'boolean'>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const kind = spec[name];
    if (!kind) throw new Error(`unknown option --${name} (known: ${Object.keys(spec).map((k) => `--${k}`).join(', ')})`);
    if (kind === 'boolean') {
      out[name] = inline === undefined ? true : /^(1|true|yes)$/i.test(inline);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    if (kind === 'number') {
      const n = Number(value.replace(/_/g, '').replace(/k$/i, '000').replace(/m$/i, '000000'));
      if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got "${value}"`);
      out[name] = n;
    } else out[name] = value;
  }
  return out;
}

export function bounded(name: string, value: number, limits: { min: number; max: number }): number {
  if (!Number.isFinite(value) || value < limits.min || value > limits.max) {
    throw new Error(`--${name} must be between ${limits.min} and ${limits.max}, got ${value}`);
  }
  return value;
}

/** The default benchmark database for a calendar size: a SQLite file in the git-ignored results folder. */
export function defaultSqliteUrl(events: number): string {
  return `sqlite:${path.relative(ROOT, path.join(BENCH_DB_DIR, `bench-${events}.sqlite`))}`;
}

/** Engine of a DATABASE_URL, and a refusal of anything that is not on this machine. */
export function checkDatabaseUrl(url: string): 'sqlite' | 'mysql' {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^(mysql|mariadb):\/\//.test(url)) {
    const host = new URL(url.replace(/^mariadb:/, 'mysql:')).hostname;
    if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) throw new Error(`the benchmark only talks to this machine; database host "${host}" refused`);
    return 'mysql';
  }
  throw new Error('--database must be sqlite:PATH or mysql://user@127.0.0.1:3306/db');
}

/** A password-free description of a database URL. */
export function describeUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** mulberry32: small, fast, seeded; the calendar is the same for the same seed and size. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC, the storage format of every date. */
export function sqlDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** SHA-256 (first 12 hex digits) of every file under src/, openapi/, generated/ (the bundled document the service reads) and package-lock.json: which code was measured. */
export function codeFingerprint(): string {
  const hash = crypto.createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        hash.update(path.relative(ROOT, full));
        hash.update(fs.readFileSync(full));
      }
    }
  };
  for (const dir of ['src', 'openapi', 'generated']) if (fs.existsSync(path.join(ROOT, dir))) walk(path.join(ROOT, dir));
  const lock = path.join(ROOT, 'package-lock.json');
  if (fs.existsSync(lock)) hash.update(fs.readFileSync(lock));
  return hash.digest('hex').slice(0, 12);
}

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** The last lines the process wrote (shown when it dies or misbehaves). */
  output: string[];
  exited: Promise<number | null>;
}

/** Starts a node process with its output kept (last 200 lines) and echoed when `echo` is set. */
export function startNode(name: string, args: string[], env: NodeJS.ProcessEnv, echo = false): Child {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  let echoed = 0;
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line === '') continue;
      output.push(line.length > 2000 ? `${line.slice(0, 2000)}...` : line);
      if (output.length > 200) output.shift();
      // Echo the first lines only, shortened: a failing scenario can log thousands of errors.
      if (echo && echoed < 20) process.stderr.write(`[${name}] ${line.length > 800 ? `${line.slice(0, 400)} ... ${line.slice(-400)}` : line}\n`); // the end holds an error's code
      else if (echo && echoed === 20) process.stderr.write(`[${name}] (further output not shown)\n`);
      echoed++;
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  return { name, process: child, pid: child.pid, output, exited };
}

/** Stops a process we started (SIGTERM, then SIGKILL after 10 s), by its own pid only. */
export async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 10_000);
  await child.exited;
  clearTimeout(timer);
}

/** Polls a URL until it answers 2xx (or the process dies, or the time is up). */
export async function waitForHttp(url: string, child: Child, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  void child.exited.then(() => (dead = true));
  while (Date.now() < deadline) {
    if (dead) throw new Error(`${child.name} exited before it was ready:\n${child.output.slice(-30).join('\n')}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs / 1000} s:\n${child.output.slice(-30).join('\n')}`);
}

/** Resident memory of a process from /proc (kB): peak (VmHWM) and current (VmRSS). */
export function memoryOf(pid: number): { hwmMb: number; rssMb: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { hwmMb: round(kb('VmHWM') / 1024, 1), rssMb: round(kb('VmRSS') / 1024, 1) };
  } catch {
    return undefined;
  }
}

/** CPU time used so far by a process (user + system), in milliseconds; undefined if unreadable. */
export function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at state (field 3).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks * 10; // CLK_TCK is 100 on Linux
  } catch {
    return undefined;
  }
}

/** Busy CPU time of the whole machine so far (all cores, user+nice+system+irq+softirq+steal), in ms. */
export function machineBusyMs(): number | undefined {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    const busy = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + (cpu[7] ?? 0);
    return busy * 10;
  } catch {
    return undefined;
  }
}

/** The pid of the local MariaDB/MySQL server, for CPU accounting (read-only). */
export function findDatabaseServerPid(): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'mariadbd' || comm === 'mysqld') return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A progress line on stderr: a bar on a terminal, a line every 10 % otherwise. */
export function progress(label: string, total: number): { tick(done: number): void; done(extra?: string): void } {
  const started = Date.now();
  const tty = process.stderr.isTTY;
  let lastDecile = -1;
  let lastDraw = 0;
  const line = (done: number) => {
    const fraction = total === 0 ? 1 : done / total;
    const elapsed = (Date.now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    const eta = rate > 0 ? (total - done) / rate : 0;
    const width = 30;
    const filled = Math.round(fraction * width);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} ${Math.round(rate).toLocaleString('en')}/s ${elapsed.toFixed(0)}s elapsed, ETA ${eta.toFixed(0)}s`;
  };
  return {
    tick(done) {
      if (tty) {
        if (Date.now() - lastDraw < 200 && done < total) return;
        lastDraw = Date.now();
        process.stderr.write(`\r${line(done)}\x1b[K`);
      } else {
        const decile = Math.floor((done / Math.max(total, 1)) * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          process.stderr.write(`${line(done)}\n`);
        }
      }
    },
    done(extra = '') {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stderr.write(`${tty ? '\r' : ''}${label}: ${total.toLocaleString('en')} in ${seconds}s${extra ? ` ${extra}` : ''}${tty ? '\x1b[K' : ''}\n`);
    },
  };
}

/** A Markdown table: the first column left-aligned, the others right-aligned; undefined cells as `-`. */
export function table(headers: string[], rows: Array<Array<string | number | undefined>>): string {
  const cells = rows.map((row) => row.map((c) => (c === undefined ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.map(line)].join('\n');
}

/** A progress or result line of a benchmark, on stderr (stdout carries the reports). */
export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** `--help`: prints the first doc comment of the benchmark's module (its usage) and exits. */
export function printUsageAndExit(moduleUrl: string): never {
  process.stdout.write(`${fs.readFileSync(new URL(moduleUrl), 'utf8').match(/\/\*\*([\s\S]*?)\*\//)?.[1].replace(/^ \* ?/gm, '')}\n`);
  process.exit(0);
}
