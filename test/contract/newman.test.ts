import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import YAML from 'yaml';
import { DOCUMENT_PATH, NAMESPACE, loadDocument, projectRoot } from '../../src/openapi/document.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/core/logger.js';
import { testConfig } from '../helpers/app.js';
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
/** The error cases of the configuration's variations, each of which must have run. */
const ERROR_STATUSES = [400, 401, 403, 404, 409, 412, 422];

/**
 * Runs a tool without blocking the event loop (the service answers from this very process), in
 * `cwd`: Portman leaves its working files in ./tmp/ of the folder it runs in.
 */
function runTool(file: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

type Parameter = { $ref?: string; in?: string; name?: string; example?: unknown };

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
    const config = path.join(projectRoot(), 'contract-kit/portman/portman-config.json');
    const converted = await runTool(portman, ['--local', DOCUMENT_PATH, '--portmanConfigFile', config, '--output', collection, '--baseUrl', '{{baseUrl}}'], folder);
    assert.equal(converted.code, 0, converted.output);
    assert.ok(fs.existsSync(collection), `portman wrote no collection:\n${converted.output}`);

    // Seeded inside the test: the root hooks empty the database before each test.
    // As the demo: loopback allowed, so the import reads the service's own feed.
    service = await startService({ outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'] } });
    const { db } = await openTestDatabase();
    const { variables } = await seedDemo(db, service.baseUrl);
    const environment = path.join(folder, 'environment.json');
    fs.writeFileSync(environment, JSON.stringify(postmanEnvironment({ baseUrl: service.baseUrl, ...variables })));

    const report = path.join(folder, 'report.json');
    const ran = await runTool(newman, ['run', collection, '--environment', environment, '--reporters', 'cli,json', '--reporter-json-export', report, '--color', 'off'], folder);
    assert.ok(fs.existsSync(report), `newman wrote no report:\n${ran.output.slice(-4000)}`);
    const { run } = JSON.parse(fs.readFileSync(report, 'utf8')) as NewmanReport;
    const failures = run.failures.map((failure) => `${failure.source?.name ?? '?'}: ${failure.error.message}`);
    assert.deepEqual(failures, [], ran.output.slice(-4000));
    assert.equal(ran.code, 0, ran.output.slice(-4000));
    assert.equal(run.stats.assertions.failed, 0);
    assert.ok(run.stats.assertions.total >= MIN_ASSERTIONS, `only ${run.stats.assertions.total} assertions ran`);
    // One request per operation of the document, and one per error case.
    const operations = Object.values(loadDocument().paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item).filter((op) => typeof op === 'object' && op !== null && 'operationId' in op),
    ).length;
    assert.equal(run.stats.requests.total, operations + ERROR_STATUSES.length, 'requests run');
    const statuses = new Set(run.executions.map((execution) => execution.response?.code));
    for (const status of ERROR_STATUSES) assert.ok(statuses.has(status), `no request of the suite was answered ${status}`);
    // The guide shows what this run counts (docs/contract-testing.md, the output of its newman run), so
    // its figures are this run's and cannot go stale.
    const guide = fs.readFileSync(path.join(projectRoot(), 'docs/contract-testing.md'), 'utf8');
    const shown = /# (\d+) requests, (\d+) assertions, 0 failures/.exec(guide);
    assert.ok(shown, 'docs/contract-testing.md shows the counts of a newman run');
    assert.deepEqual(
      { requests: Number(shown[1]), assertions: Number(shown[2]) },
      { requests: run.stats.requests.total, assertions: run.stats.assertions.total },
      'the counts docs/contract-testing.md shows are those of this run',
    );
  });

  it("a fresh demo has the ids and slugs of the document's examples and of the configuration's defaults", async function () {
    this.timeout(60_000);
    // What `npm run demo` does, on a database of its own (a fresh in-memory SQLite).
    const { db } = openDatabase('sqlite::memory:');
    const server = http.createServer(createApp({ config: testConfig(), db, logger: createLogger('error') }));
    try {
      await migrateLatest(db);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const { variables } = await seedDemo(db, `http://127.0.0.1:${port}/wp-json/${NAMESPACE}`);

      const config = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'contract-kit/portman/portman-config.json'), 'utf8')) as {
        globals: { collectionVariables: Record<string, string> };
      };
      const { baseUrl, ...defaults } = config.globals.collectionVariables;
      assert.equal(baseUrl, `http://127.0.0.1:8080/wp-json/${NAMESPACE}`);
      assert.deepEqual(variables, defaults);

      // The document's path parameter examples name records the demo has (Prism, Portman and
      // /docs show them; a team trying one against the demo gets a 200).
      const document = YAML.parse(fs.readFileSync(DOCUMENT_PATH, 'utf8')) as {
        paths: Record<string, { parameters?: Parameter[]; get: { parameters?: Parameter[] } }>;
        components: { parameters: Record<string, Parameter> };
      };
      const pathExample = (route: string) => {
        // Declared on the path item or on the operation.
        const item = document.paths[route];
        const parameters = [...(item.parameters ?? []), ...(item.get.parameters ?? [])].map((p) =>
          p.$ref ? document.components.parameters[p.$ref.split('/').pop() as string] : p,
        );
        const parameter = parameters.find((p) => p.in === 'path');
        assert.ok(parameter && parameter.example !== undefined, `GET ${route} has no path parameter example`);
        return String(parameter.example);
      };
      assert.deepEqual(
        {
          event: pathExample('/events/{id}'),
          eventSlug: pathExample('/events/by-slug/{slug}'),
          venue: pathExample('/venues/{id}'),
          venueSlug: pathExample('/venues/by-slug/{slug}'),
          organizer: pathExample('/organizers/{id}'),
          organizerSlug: pathExample('/organizers/by-slug/{slug}'),
          category: pathExample('/categories/{id}'),
          tag: pathExample('/tags/{id}'),
          webhook: pathExample('/webhooks/{id}'),
          subscription: pathExample('/subscriptions/{id}'),
        },
        {
          event: variables.eventId,
          eventSlug: variables.eventSlug,
          venue: variables.venueId,
          venueSlug: variables.venueSlug,
          organizer: variables.organizerId,
          organizerSlug: variables.organizerSlug,
          category: variables.categoryId,
          tag: variables.tagId,
          webhook: variables.webhookId,
          subscription: variables.subscriptionId,
        },
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await db.destroy();
    }
  });
});
