/**
 * Helpers of every benchmark mode: options, paths, the database URL, a seeded random generator, child
 * processes (the service as `npm start` runs it), /proc readings, tables and result files. Nothing
 * here talks to anything but 127.0.0.1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/** The repository root (scripts/bench/ is two levels down). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Output folder: git-ignored. SQLite databases live in its `db/` subfolder so they are ignored too. */
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
export const BENCH_DB_DIR = path.join(RESULTS_DIR, 'db');
/** Known administrator of the seeded calendar (write scenarios authenticate with it). */
export const BENCH_ADMIN = { login: 'bench-admin', secret: 'bench-secret-5f3a9c2e71d4' };
export const AUTH = `Basic ${Buffer.from(`${BENCH_ADMIN.login}:${BENCH_ADMIN.secret}`).toString('base64')}`;
export const JSON_WRITE = { 'content-type': 'application/json', authorization: AUTH };
/** The namespace every route lives under (BASE_PATH default + the plugin namespace). */
export const NAMESPACE_PATH = '/wp-json/tribe/events/v1';
export const api = (route: string) => `${NAMESPACE_PATH}${route}`;
export const DAY = 86_400_000;
export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type Value = string | number | boolean | undefined;
/** An option: its kind, default (a function of the options read so far) and bounds for numbers. */
export type Spec = Record<string, [kind: 'string' | 'number' | 'boolean', fallback?: Value | ((o: Record<string, Value>) => Value), min?: number, max?: number]>;
type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
/** The options a spec gives, camelCased: a string option without a default may be missing. */
export type Options<S extends Spec> = {
  [K in keyof S & string as Camel<K>]: S[K][0] extends 'number'
    ? number
    : S[K][0] extends 'boolean'
      ? boolean
      : S[K] extends [unknown, unknown, ...unknown[]]
        ? string
        : string | undefined;
};

/**
 * `--name value`, `--name=value` and `--flag` options of `spec` (anything else is an error), with
 * defaults and bounds; `--help` prints the first doc comment of `moduleUrl` (the mode's usage) and the options.
 */
export function options<S extends Spec>(argv: string[], spec: S, moduleUrl: string): Options<S> {
  const out: Record<string, Value> = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help') {
      const usage = Object.entries(spec).map(
        ([name, [kind, fallback]]) =>
          `[--${name}${kind === 'boolean' ? '' : ` ${typeof fallback === 'function' || fallback === undefined || fallback === '' ? kind.toUpperCase() : fallback}`}]`,
      );
      process.stdout.write(
        `${fs
          .readFileSync(new URL(moduleUrl), 'utf8')
          .match(/\/\*\*([\s\S]*?)\*\//)?.[1]
          .replace(/^ \* ?/gm, '')}\noptions: ${usage.join(' ')}\n`,
      );
      process.exit(0);
    }
    if (!argv[i].startsWith('--')) throw new Error(`unexpected argument "${argv[i]}"`);
    const [name, inline] = argv[i].slice(2).split(/=(.*)/s, 2);
    const kind = spec[name]?.[0];
    if (!kind)
      throw new Error(
        `unknown option --${name} (known: ${Object.keys(spec)
          .map((k) => `--${k}`)
          .join(', ')})`,
      );
    if (kind === 'boolean') out[name] = inline === undefined ? true : /^(1|true|yes)$/i.test(inline);
    else {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      out[name] = kind === 'string' ? value : Number(value.replace(/_/g, '').replace(/k$/i, '000').replace(/m$/i, '000000'));
    }
  }
  for (const [name, [kind, fallback, min, max]] of Object.entries(spec)) {
    out[name] ??= typeof fallback === 'function' ? fallback(out) : (fallback ?? (kind === 'boolean' ? false : undefined));
    const v = out[name];
    if (kind === 'number' && v !== undefined && !(Number(v) >= (min ?? -Infinity) && Number(v) <= (max ?? Infinity)))
      throw new Error(`--${name} must be ${min} to ${max}, got ${v}`);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), v])) as Options<S>;
}

/** The default benchmark database of a name: a SQLite file in the git-ignored results folder. */
export function defaultSqliteUrl(name: number | string): string {
  return `sqlite:${path.relative(ROOT, path.join(BENCH_DB_DIR, typeof name === 'number' ? `bench-${name}.sqlite` : `${name}.sqlite`))}`;
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
export const describeUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

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

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];
export const round = (value: number, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A progress or result line of a benchmark, on stderr (stdout carries the reports). */
export const log = (message: string) => void process.stderr.write(`${message}\n`);

/** The value at quantile q of an ascending list (nearest rank); undefined for an empty list. */
export function percentile(sorted: number[], q: number): number | undefined {
  if (!sorted.length) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** p50, p95, p99 and max of a list of milliseconds, rounded to 0.1 ms. */
export function quantiles(values: number[]): { p50?: number; p90?: number; p95?: number; p99?: number; max?: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? round(percentile(sorted, q)!, 1) : undefined);
  return { p50: at(0.5), p90: at(0.9), p95: at(0.95), p99: at(0.99), max: at(1) };
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

/** SHA-256 (first 12 hex digits) of every file under src/, openapi/, generated/ and package-lock.json: which code was measured. */
export function codeFingerprint(): string {
  const hash = crypto.createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(path.relative(ROOT, full)).update(fs.readFileSync(full));
    }
  };
  for (const dir of ['src', 'openapi', 'generated']) if (fs.existsSync(path.join(ROOT, dir))) walk(path.join(ROOT, dir));
  const lock = path.join(ROOT, 'package-lock.json');
  if (fs.existsSync(lock)) hash.update(fs.readFileSync(lock));
  return hash.digest('hex').slice(0, 12);
}

export function machine(): { host: string; cpus: number; cpuModel?: string; memoryGb: number; node: string; loadAverage: number[] } {
  const cpus = os.cpus();
  return {
    host: os.hostname(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    memoryGb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
  };
}

/** Writes bench/results/<name>-<time>.json and prints the report with the file's name. */
export function writeResults(name: string, started: Date, json: Record<string, unknown>, text: string): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const body = { started: started.toISOString(), finished: new Date().toISOString(), code: codeFingerprint(), machine: machine(), ...json };
  fs.writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  process.stdout.write(`\n${text}\n\nresults: ${path.relative(ROOT, file)}\n`);
}

/** Says what went wrong in capitals and sets the exit code to 1, if anything did. */
export function failOn(problems: Array<string | false | 0 | undefined>): void {
  const found = problems.filter(Boolean);
  if (!found.length) return;
  process.stdout.write(`\n!!! ${found.join('; ')} !!!\n`);
  process.exitCode = 1;
}

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** The last lines the process wrote (shown when it dies or misbehaves). */
  output: string[];
  exited: Promise<number | null>;
}

/** Starts a node process with its output kept (last 200 lines) and its first 20 lines echoed when `echo` is set. */
export function startNode(name: string, args: string[], env: NodeJS.ProcessEnv, echo = false): Child {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  let echoed = 0;
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line === '') continue;
      output.push(line.length > 2000 ? `${line.slice(0, 2000)}...` : line);
      if (output.length > 200) output.shift();
      // Shortened, keeping the end, which holds an error's code: a failing scenario can log thousands of errors.
      if (echo && echoed < 20) log(`[${name}] ${line.length > 800 ? `${line.slice(0, 400)} ... ${line.slice(-400)}` : line}`);
      else if (echo && echoed === 20) log(`[${name}] (further output not shown)`);
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
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs / 1000} s:\n${child.output.slice(-30).join('\n')}`);
}

/** Builds dist/ (`npm run -s build`); false, with the reason logged, when the build failed (the caller then runs src/ with tsx). */
export function buildService(): boolean {
  log('building dist/ (npm run -s build)...');
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (result.status === 0) return true;
  log(`build failed; running the service from src/ with tsx instead:\n${(result.stdout + result.stderr).slice(-3000)}`);
  return false;
}

/**
 * The service's environment: defaults for everything but the port, the database and the log level.
 * AUTH_FAILURE_LIMIT is raised so that the failed-login throttle cannot shape a
 * measurement; SQLITE_SYNCHRONOUS is dropped too (a scenario that compares another level sets it).
 */
export function serviceEnv(url: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    SITE_TIMEZONE: 'UTC',
    VALIDATE_RESPONSES: 'false',
    NODE_ENV: 'production',
    AUTH_FAILURE_LIMIT: '1000000',
  };
  for (const name of [
    'PUBLIC_URL',
    'SITE_URL',
    'BASE_PATH',
    'BODY_LIMIT',
    'DEBUG',
    'NODE_OPTIONS',
    'AUTH_FAILURE_ADDRESS_LIMIT',
    'AUTH_FAILURE_WINDOW',
    'TRUST_PROXY',
    'SQLITE_SYNCHRONOUS',
  ])
    delete env[name];
  return env;
}

/** `npm start`'s node flags and the environment it sets before `node` (package.json, e.g. glibc's malloc settings). */
export function npmStart(): { flags: string[]; env: Record<string, string> } {
  const words = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  const assignments = words.slice(0, words.indexOf('node')).filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word));
  return {
    flags: words.filter((word) => word.startsWith('--')),
    env: Object.fromEntries(assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)])),
  };
}

export interface ServiceOptions {
  tsx?: boolean;
  /** Changes the environment last (after `npm start`'s). */
  env?: (env: NodeJS.ProcessEnv) => void;
  /** Node flags besides `npm start`'s (`--cpu-prof`, which NODE_OPTIONS refuses; `--max-old-space-size=96` to try a setting). */
  flags?: string[];
  name?: string;
  /** The path polled until it answers (the namespace index by default). */
  ready?: string;
}

/** The service as `npm start` runs it (dist/, or src/ through tsx) on `database` and a free port; resolves once it answers. */
export async function startService(database: string, o: ServiceOptions = {}): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const start = npmStart();
  const env: NodeJS.ProcessEnv = { ...serviceEnv(database, port), ...start.env };
  o.env?.(env);
  const entry = o.tsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/src/main.js'];
  const child = startNode(o.name ?? 'service', [...start.flags, ...(o.flags ?? []), ...entry], env, true);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}${o.ready ?? `${NAMESPACE_PATH}/`}`, child);
  log(`${o.name ?? 'service'} ready on ${base} (pid ${child.pid}${o.tsx ? ', from src/ with tsx' : ', dist/'}${o.flags?.length ? `, ${o.flags.join(' ')}` : ''})`);
  return { child, base };
}

/** A file of /proc, or undefined when it cannot be read (the process is gone). */
function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Resident memory of a process from /proc: peak (VmHWM) and current (VmRSS), MB. */
export function memoryOf(pid: number): { hwmMb: number; rssMb: number } | undefined {
  const status = readProc(`${pid}/status`);
  if (status === undefined) return undefined;
  const mb = (key: string) => round(Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024, 1);
  return { hwmMb: mb('VmHWM'), rssMb: mb('VmRSS') };
}

/** CPU time used so far by a process (user + system), in milliseconds; undefined if unreadable. */
export function cpuMsOf(pid: number | undefined): number | undefined {
  const stat = pid === undefined ? undefined : readProc(`${pid}/stat`);
  if (stat === undefined) return undefined;
  // Fields after the command name (which may contain spaces) start at state (field 3); CLK_TCK is 100.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Busy CPU time of the whole machine so far (all cores, user+nice+system+irq+softirq+steal), in ms. */
export function machineBusyMs(): number | undefined {
  const cpu = readProc('stat')?.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return cpu && (cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + (cpu[7] ?? 0)) * 10;
}

/** The pid of the local MariaDB/MySQL server, for CPU accounting (read-only). */
export function findDatabaseServerPid(): number | undefined {
  const pid = fs.readdirSync('/proc').find((entry) => /^\d+$/.test(entry) && ['mariadbd', 'mysqld'].includes(readProc(`${entry}/comm`)?.trim() ?? ''));
  return pid === undefined ? undefined : Number(pid);
}

export type Usage = { seconds: number; serviceCores?: number; machineCores?: number };

/** Cores used by the process and by the whole machine between this call and the returned function's. */
export function usageMeter(pid: number): () => Usage {
  const start = { at: Date.now(), service: cpuMsOf(pid), machine: machineBusyMs() };
  return () => {
    const seconds = (Date.now() - start.at) / 1000;
    const cores = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : round((b - a) / 1000 / seconds, 2));
    return { seconds: round(seconds, 1), serviceCores: cores(start.service, cpuMsOf(pid)), machineCores: cores(start.machine, machineBusyMs()) };
  };
}

/** A progress line on stderr: a line every 10 %. */
export function progress(label: string, total: number): { tick(done: number): void; done(extra?: string): void } {
  const started = Date.now();
  let lastDecile = -1;
  return {
    tick(done) {
      const decile = Math.floor((done / Math.max(total, 1)) * 10);
      if (decile === lastDecile) return;
      lastDecile = decile;
      const elapsed = (Date.now() - started) / 1000;
      const rate = elapsed > 0 ? done / elapsed : 0;
      log(
        `${label} ${decile * 10}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} ${Math.round(rate).toLocaleString('en')}/s, ETA ${(rate > 0 ? (total - done) / rate : 0).toFixed(0)}s`,
      );
    },
    done: (extra = '') => log(`${label}: ${total.toLocaleString('en')} in ${((Date.now() - started) / 1000).toFixed(1)}s${extra ? ` ${extra}` : ''}`),
  };
}

/** A Markdown table: the first column left-aligned, the others right-aligned; undefined cells as `-`. */
export function table(headers: string[], rows: Array<Array<string | number | undefined>>): string {
  const cells = rows.map((row) => row.map((c) => (c === undefined ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...cells.map(line)].join('\n');
}
