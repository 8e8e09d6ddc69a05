import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import YAML from 'yaml';
import { DOCUMENT_PATH, projectRoot } from '../../src/openapi/document.js';
import { requireTool } from './kit-tools.js';
import { freePort } from './prism.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The mock a client team develops against before the service runs (docs/contract-testing.md):
 * `npx prism mock generated/openapi.yaml` answers every operation from the document's examples.
 * This starts it and checks that a few answers are exactly those examples, so a team reading the
 * examples in /docs gets the same from the mock.
 */

type Schema = { $ref?: string; example?: unknown };
type MediaType = { example?: unknown; examples?: Record<string, { value: unknown }>; schema?: Schema };
type Document = {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { responses: Record<string, unknown>; schemas: Record<string, Schema> };
};

const document = YAML.parse(fs.readFileSync(DOCUMENT_PATH, 'utf8')) as Document;

/**
 * The example Prism serves for one response: the media type's `example`, else the first of its
 * `examples`, else the `example` of its schema (where this document keeps most of them).
 */
function documentedExample(path: string, method: string, status: string, mediaType: string): unknown {
  let response = document.paths[path][method].responses[status] as { $ref?: string; content?: Record<string, MediaType> };
  if (response.$ref) response = document.components.responses[response.$ref.split('/').pop() as string] as typeof response;
  const media = response.content?.[mediaType];
  assert.ok(media, `${method} ${path} ${status} has no ${mediaType} content`);
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first) return first.value;
  let schema = media.schema ?? {};
  if (schema.$ref) schema = document.components.schemas[schema.$ref.split('/').pop() as string];
  assert.ok(schema.example !== undefined, `${method} ${path} ${status} ${mediaType} has no example`);
  return schema.example;
}

describe('contract kit: the Prism mock answers from the document', function () {
  let prism: ChildProcess | undefined;
  let base = '';
  let log = '';

  before(async function () {
    this.timeout(60_000);
    const bin = requireTool(this, 'prism');
    const port = await freePort();
    prism = spawn(bin, ['mock', DOCUMENT_PATH, '--host', '127.0.0.1', '--port', String(port)], { cwd: projectRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
    prism.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    prism.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    // The mock serves the document's paths at its root (the server URL is relative).
    base = `http://127.0.0.1:${port}`;
    const child = prism;
    const up = async () => {
      if (child.exitCode !== null) throw new Error(`prism mock exited with ${child.exitCode}`);
      return fetch(`${base}/events`).then(
        () => true,
        () => false,
      );
    };
    await waitFor(up, 'prism mock to answer', 45_000, 250).catch((err: Error) => {
      throw new Error(`prism mock did not start (${err.message}):\n${log}`);
    });
  });

  after(() => {
    prism?.kill('SIGTERM');
  });

  // The paths name the records of the document's path parameter examples (the mock answers any).
  const cases: Array<[string, string, string, string]> = [
    ['/events/4', '/events/{id}', '200', 'application/json'],
    ['/events/by-slug/spring-concert', '/events/by-slug/{slug}', '200', 'application/json'],
    ['/venues/1', '/venues/{id}', '200', 'application/json'],
    ['/organizers/2', '/organizers/{id}', '200', 'application/json'],
    ['/categories/2', '/categories/{id}', '200', 'application/json'],
    ['/tags/3', '/tags/{id}', '200', 'application/json'],
    ['/events', '/events', '200', 'application/json'],
    ['/changes', '/changes', '200', 'application/json'],
  ];
  for (const [url, path, status, mediaType] of cases) {
    it(`GET ${url} answers the example of ${path} ${status}`, async () => {
      const res = await fetch(`${base}${url}`, { headers: { Accept: mediaType } });
      assert.equal(res.status, Number(status));
      assert.match(res.headers.get('content-type') ?? '', new RegExp(mediaType));
      assert.deepEqual(await res.json(), documentedExample(path, 'get', status, mediaType));
    });
  }

  it('GET /events/4/ics answers the documented calendar', async () => {
    const res = await fetch(`${base}/events/4/ics`, { headers: { Accept: 'text/calendar' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/calendar/);
    assert.equal(await res.text(), documentedExample('/events/{id}/ics', 'get', '200', 'text/calendar'));
  });

  it('a write without credentials answers 401, as the document says', async () => {
    const res = await fetch(`${base}/events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'x' }) });
    assert.equal(res.status, 401);
  });
});
