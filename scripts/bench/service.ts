/**
 * Starting the service as the benchmarks measure it (the build, `npm start`'s node flags and
 * environment) and driving it with autocannon: shared by `npm run bench` (run.ts), its cluster
 * mode (cluster.ts), the soak (soak.ts) and the webhook benchmark (webhooks.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { NAMESPACE_PATH, ROOT, freePort, log, startNode, waitForHttp, type Child } from './common.js';
import type { Samples, Scenario } from './scenarios.js';

/** Builds dist/ (`npm run -s build`); false, with the reason logged, when the build failed. */
export function buildService(): boolean {
  process.stderr.write('building dist/ (npm run -s build)...\n');
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (result.status === 0) return true;
  process.stderr.write(`build failed; running the service from src/ with tsx instead:\n${(result.stdout + result.stderr).slice(-3000)}\n`);
  return false;
}

/**
 * The service's environment: defaults for everything but the port, the database and the log level.
 * AUTH_FAILURE_LIMIT is raised unless --keep-auth-limit, so that no setting of the failed-login
 * throttle (src/operations/shared/auth-failures.ts) can shape a measurement; it counts only refused credentials,
 * which the benchmark does not send. SQLITE_SYNCHRONOUS is dropped too: the service is measured with its
 * default, and a scenario that compares another level sets it itself (scenarios.ts `serviceEnv`).
 */
export function serviceEnv(url: string, port: number, keepAuthLimit = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, LOG_LEVEL: 'warn', SITE_TIMEZONE: 'UTC', VALIDATE_RESPONSES: 'false', NODE_ENV: 'production' };
  for (const name of ['PUBLIC_URL', 'SITE_URL', 'BASE_PATH', 'BODY_LIMIT', 'DEBUG', 'NODE_OPTIONS', 'AUTH_FAILURE_LIMIT', 'AUTH_FAILURE_ADDRESS_LIMIT', 'AUTH_FAILURE_WINDOW', 'TRUST_PROXY', 'SQLITE_SYNCHRONOUS']) delete env[name];
  if (!keepAuthLimit) env.AUTH_FAILURE_LIMIT = '1000000';
  return env;
}

/** The node flags `npm start` runs the service with (package.json), so the benchmark measures that process. */
export function startFlags(): string[] {
  return startWords().filter((word) => word.startsWith('--'));
}

/** The environment `npm start` sets before `node` (package.json: `NAME=value ... node ...`, e.g. glibc's malloc settings). */
export function startEnv(): Record<string, string> {
  const words = startWords();
  const assignments = words.slice(0, words.indexOf('node')).filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word));
  return Object.fromEntries(assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
}

function startWords(): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/);
}

export async function drive(base: string, scenario: Scenario, samples: Samples, seconds: number, connections: number, timeout: number): Promise<autocannon.Result> {
  return autocannon({
    url: base,
    connections,
    duration: seconds,
    timeout,
    requests: [
      {
        setupRequest: (req) => {
          const next = scenario.request(samples, Math.random);
          return { ...req, method: next.method, path: next.path, headers: { ...req.headers, ...next.headers }, body: next.body ?? req.body };
        },
      },
    ],
  });
}

/**
 * The service as `npm start` runs it (dist/, or src/ through tsx), on `database` and a free port,
 * with `adjust` changing its environment first; resolves once its namespace answers.
 */
export async function startAsNpmStart(
  database: string,
  tsx: boolean,
  adjust: (env: NodeJS.ProcessEnv) => void = () => undefined,
  /** Node flags besides `npm start`'s (`--cpu-prof`, which NODE_OPTIONS refuses). */
  extraFlags: string[] = [],
): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...serviceEnv(database, port), ...startEnv() };
  adjust(env);
  const entry = tsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/src/main.js'];
  const child = startNode('service', [...startFlags(), ...extraFlags, ...entry], env, true);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}${NAMESPACE_PATH}/`, child);
  log(`service ready on ${base} (pid ${child.pid}${tsx ? ', from src/ with tsx' : ', dist/'})`);
  return { child, base };
}
