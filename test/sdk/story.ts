import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createUser } from '../helpers/app.js';
import type { RunningService } from './server.js';

/**
 * The steps of the shared client story (docs/sdks.md, "The client story"), in order. Each language's
 * story prints `step <name>` once a step has passed, so a story that stops early, or skips a step,
 * fails its test even when it exits 0.
 */
export const STORY_STEPS = [
  'create-linked-records',
  'create-event',
  'read-by-id-and-slug',
  'not-modified',
  'list-with-filters',
  'update-if-match',
  'idempotent-replay',
  'change-feed',
  'ics-and-json-ld-feeds',
  'typed-errors',
  'delete',
] as const;

/** The environment a story reads: the service's address, an administrator (Basic) and an editor (bearer). */
export async function storyEnvironment(service: RunningService): Promise<Record<string, string>> {
  const admin = await createUser('administrator');
  const editor = await createUser('editor');
  return { TEC_BASE_URL: service.baseUrl, TEC_LOGIN: admin.login, TEC_SECRET: admin.secret, TEC_BEARER: editor.secret };
}

/**
 * Runs a story as a child process and checks that it exited 0 after printing every step in order.
 * Asynchronous: the service it talks to runs in this process.
 */
export async function runStory(command: string, args: string[], options: { cwd?: string; env: Record<string, string> }): Promise<void> {
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 180_000 }, (err, stdout, stderr) => {
      const failed = err as (Error & { code?: number | string }) | null;
      resolve({ code: failed ? (typeof failed.code === 'number' ? failed.code : -1) : 0, stdout, stderr });
    });
  });
  const output = `${stdout}${stderr}`;
  assert.equal(code, 0, `${command} ${args.join(' ')} exited ${code}:\n${output}`);
  const steps = stdout
    .split('\n')
    .filter((line) => line.startsWith('step '))
    .map((line) => line.slice('step '.length).trim());
  assert.deepEqual(steps, [...STORY_STEPS], output);
}

/**
 * Whether a tool the openapi-generator SDK tests need is here (`probe` exits 0). Without it the test
 * skips with a message, unless REQUIRE_SDK=1 (CI sets it), which makes it a failure.
 */
export function requireTool(context: Mocha.Context, what: string, probe: [string, ...string[]], install: string): void {
  const [command, ...args] = probe;
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (!result.error && result.status === 0) return;
  const reason = `${what} was not found (${install})`;
  if (process.env.REQUIRE_SDK === '1') throw new Error(`REQUIRE_SDK=1 but ${reason}: the SDK test cannot run.`);
  console.log(`      (skipped: ${reason}; set REQUIRE_SDK=1 to fail instead)`);
  context.skip();
}
