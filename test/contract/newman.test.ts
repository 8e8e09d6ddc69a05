import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOCUMENT_PATH, projectRoot } from '../../src/openapi/document.js';
import { openTestDatabase } from '../helpers/database.js';
import { startService, type RunningService } from '../sdk/server.js';
import { postmanEnvironment, seedDemo } from '../../scripts/demo/seed.js';
import { requireTool } from './kit-tools.js';

/**
 * The contract kit a client team copies (docs/contract-testing.md): Portman turns the served
 * document into a Postman collection with the configuration in contract-kit/portman/, and newman
 * runs it against the service seeded as `npm run demo` seeds it, here on the test database (so on
 * MySQL too under TEST_DATABASE_URL). The ids differ from a fresh demo's there, so the seed's
 * variables are handed to newman as its environment, as a team would with `npm run demo -- --env`.
 */

/** Below this the collection lost its tests (a broken configuration converts to an empty suite). */
const MIN_ASSERTIONS = 450;
const MIN_REQUESTS = 60;
/** The error cases of the configuration's variations, each of which must have run. */
const ERROR_STATUSES = [400, 401, 403, 404, 409, 412, 422];

/** Runs a tool without blocking the event loop (the service answers from this very process). */
function runTool(file: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: projectRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

interface NewmanReport {
  run: {
    stats: { requests: { total: number; failed: number }; assertions: { total: number; failed: number } };
    failures: Array<{ error: { message: string }; source?: { name?: string } }>;
    executions: Array<{ item: { name: string }; response?: { code: number } }>;
  };
}

describe('contract kit: Portman + newman against the seeded service', function () {
  let folder: string;
  let service: RunningService | undefined;

  before(function () {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-kit-'));
  });

  after(async () => {
    await service?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('passes every contract test and every error case, with no failure', async function () {
    this.timeout(240_000);
    const portman = requireTool(this, 'portman');
    const newman = requireTool(this, 'newman');

    const collection = path.join(folder, 'collection.json');
    const converted = await runTool(portman, [
      '--local',
      DOCUMENT_PATH,
      '--portmanConfigFile',
      'contract-kit/portman/portman-config.json',
      '--output',
      collection,
      '--baseUrl',
      '{{baseUrl}}',
    ]);
    assert.equal(converted.code, 0, converted.output);
    assert.ok(fs.existsSync(collection), `portman wrote no collection:\n${converted.output}`);

    // Seeded inside the test: the root hooks empty the database before each test.
    service = await startService();
    const { db } = await openTestDatabase();
    const { variables } = await seedDemo(db, service.baseUrl);
    const environment = path.join(folder, 'environment.json');
    fs.writeFileSync(environment, JSON.stringify(postmanEnvironment({ baseUrl: service.baseUrl, ...variables })));

    const report = path.join(folder, 'report.json');
    const ran = await runTool(newman, ['run', collection, '--environment', environment, '--reporters', 'cli,json', '--reporter-json-export', report, '--color', 'off']);
    assert.ok(fs.existsSync(report), `newman wrote no report:\n${ran.output.slice(-4000)}`);
    const { run } = JSON.parse(fs.readFileSync(report, 'utf8')) as NewmanReport;
    const failures = run.failures.map((failure) => `${failure.source?.name ?? '?'}: ${failure.error.message}`);
    assert.deepEqual(failures, [], ran.output.slice(-4000));
    assert.equal(ran.code, 0, ran.output.slice(-4000));
    assert.equal(run.stats.assertions.failed, 0);
    assert.ok(run.stats.assertions.total >= MIN_ASSERTIONS, `only ${run.stats.assertions.total} assertions ran`);
    assert.ok(run.stats.requests.total >= MIN_REQUESTS, `only ${run.stats.requests.total} requests ran`);
    const statuses = new Set(run.executions.map((execution) => execution.response?.code));
    for (const status of ERROR_STATUSES) assert.ok(statuses.has(status), `no request of the suite was answered ${status}`);
  });
});
