import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import YAML from 'yaml';
import { listOperations, loadDocument, projectRoot } from '../../src/openapi/document.js';
import { createOperationTable } from '../../src/operations/handlers.js';
import { buildRouteTable } from '../../src/operations/namespace-index.js';
import { resolveAll } from '../../src/core/outbound.js';

/**
 * The component files of the sources: every YAML file under openapi/ but the root, the Redocly
 * configuration, path items and openapi/released/ (the last released bundle, not a source:
 * docs/api-versioning.md).
 */
function componentFiles(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => {
    const parts = file.split(path.sep);
    return file.endsWith('.yaml') && parts.length > 1 && !parts.includes('paths') && parts[0] !== 'released';
  });
}

describe('the OpenAPI document as the source of truth', () => {
  const root = projectRoot();
  let folder: string;
  /** A fresh bundle of the sources in openapi/, made as `npm run generate` makes generated/openapi.yaml. */
  let bundle: string;

  before(function () {
    this.timeout(60_000);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-'));
    bundle = path.join(folder, 'openapi.yaml');
    execFileSync(process.execPath, [path.join(root, 'scripts/bundle.mjs'), bundle], { cwd: root, stdio: 'pipe' });
  });

  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('matches the committed bundle generated/openapi.yaml (run `npm run generate` after editing openapi/)', () => {
    const committed = fs.readFileSync(path.join(root, 'generated/openapi.yaml'), 'utf8');
    assert.ok(fs.readFileSync(bundle, 'utf8') === committed, 'generated/openapi.yaml is stale: run `npm run generate`');
  });

  it('matches the committed JSON twin generated/openapi.json, which the service loads (run `npm run generate`)', () => {
    const committed = fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8');
    assert.ok(fs.readFileSync(path.join(folder, 'openapi.json'), 'utf8') === committed, 'generated/openapi.json is stale: run `npm run generate`');
    // And it is the committed YAML, read back: the service and every YAML reader see one document.
    assert.deepEqual(loadDocument(), YAML.parse(fs.readFileSync(path.join(root, 'generated/openapi.yaml'), 'utf8')));
  });

  it('matches the committed generated/ types (run `npm run generate` after editing openapi/)', function () {
    this.timeout(60_000);
    const out = path.join(folder, 'openapi.d.ts');
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), bundle, '-o', out, '--empty-objects-unknown', '--default-non-nullable', 'false'],
      { cwd: root, stdio: 'pipe' },
    );
    execFileSync(process.execPath, [path.join(root, 'scripts/banner.mjs'), out], { cwd: root });
    const committed = fs.readFileSync(path.join(root, 'generated/openapi.d.ts'), 'utf8');
    assert.ok(fs.readFileSync(out, 'utf8') === committed, 'generated/openapi.d.ts is stale: run `npm run generate`');
  });

  it('bundles every component and path item written under openapi/, each name defined once', () => {
    // Redocly bundles only what the root reaches through $refs: a component nobody references would
    // silently be missing from the served document (the single-file linters flagged it as unused).
    const document = loadDocument(bundle);
    const sources = path.join(root, 'openapi');
    const definedIn = new Map<string, string>();
    for (const file of componentFiles(sources)) {
      const type = path.basename(file, '.yaml');
      for (const name of Object.keys(YAML.parse(fs.readFileSync(path.join(sources, file), 'utf8')) ?? {})) {
        const other = definedIn.get(`${type}/${name}`);
        assert.equal(other, undefined, `${type} ${name} is defined in openapi/${other} and in openapi/${file}`);
        definedIn.set(`${type}/${name}`, file);
        assert.ok(name in (document.components[type] ?? {}), `openapi/${file}: ${name} is referenced nowhere, so the bundle leaves it out`);
      }
    }
    const bundled = Object.entries(document.components).flatMap(([type, group]) => (type === 'securitySchemes' ? [] : Object.keys(group)));
    assert.equal(bundled.length, definedIn.size, 'the bundle holds exactly the components written under openapi/');
    const rootDocument = YAML.parse(fs.readFileSync(path.join(sources, 'openapi.yaml'), 'utf8')) as { paths: Record<string, { $ref: string }> };
    const referenced = new Set(Object.values(rootDocument.paths).map((item) => item.$ref));
    for (const file of fs.readdirSync(sources, { recursive: true, encoding: 'utf8' })) {
      const parts = file.split(path.sep);
      if (parts.includes('paths') && file.endsWith('.yaml')) assert.ok(referenced.has(parts.join('/')), `openapi/${file} is not referenced from openapi/openapi.yaml`);
    }
  });

  it('has exactly one handler per operation and one operationId per operation', () => {
    const document = loadDocument();
    const operations = listOperations(document);
    const ids = operations.map((op) => op.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    const table = createOperationTable(document, buildRouteTable(operations), resolveAll);
    assert.deepEqual(Object.keys(table).sort(), [...ids].sort());
  });

  it('describes every route of the interface with the methods WordPress registers', () => {
    const operations = listOperations(loadDocument());
    const methods = (p: string) =>
      operations
        .filter((op) => op.path === p)
        .map((op) => op.method)
        .sort()
        .join(',');
    assert.equal(methods('/'), 'GET');
    assert.equal(methods('/doc'), 'GET');
    for (const collection of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      assert.equal(methods(`/${collection}`), 'GET,POST', collection);
      assert.equal(methods(`/${collection}/{id}`), 'DELETE,GET,PATCH,POST,PUT', `${collection}/{id}`);
    }
    for (const collection of ['events', 'venues', 'organizers']) {
      assert.equal(methods(`/${collection}/by-slug/{slug}`), 'DELETE,GET,PATCH,POST,PUT', `${collection} by slug`);
    }
    assert.equal(methods('/changes'), 'GET');
    assert.equal(methods('/events.ics'), 'GET');
    assert.equal(methods('/events/{id}/ics'), 'GET');
    // No path holds a parameter inside a segment (`/events/{id}.ics` is an alias outside the document,
    // src/http/aliases.ts): Prism, Portman and wpapi route such paths wrongly.
    for (const op of operations) assert.doesNotMatch(op.path, /[^/]\{|\}[^/]/, op.path);
    assert.equal(methods('/events.jsonld'), 'GET');
    assert.equal(methods('/events/{id}/occurrences'), 'GET');
    // Webhooks (docs/webhooks.md): not in the plugin.
    assert.equal(methods('/webhooks'), 'GET,POST');
    assert.equal(methods('/webhooks/{id}'), 'DELETE,GET,PATCH');
    assert.equal(methods('/webhooks/{id}/secret'), 'POST');
    assert.equal(methods('/webhooks/{id}/deliveries'), 'GET');
    assert.equal(methods('/webhooks/{id}/ping'), 'POST');
    // Calendar imports (docs/importing.md): not in the plugin.
    assert.equal(methods('/events/import'), 'POST');
    // Subscriptions (docs/importing.md "Subscribing to a calendar"): not in the plugin.
    assert.equal(methods('/subscriptions'), 'GET,POST');
    assert.equal(methods('/subscriptions/{id}'), 'DELETE,GET,PATCH');
    assert.equal(methods('/subscriptions/{id}/refresh'), 'POST');
    assert.equal(methods('/subscriptions/{id}/runs'), 'GET');
    assert.equal(new Set(operations.map((op) => op.path)).size, 30);
  });

  it('requires credentials for every write and none for reads, except of webhooks and subscriptions (administrators only)', () => {
    for (const op of listOperations(loadDocument())) {
      const open = op.method === 'GET' && !op.path.startsWith('/webhooks') && !op.path.startsWith('/subscriptions');
      assert.equal(op.allowsAnonymous, open, `${op.operationId} (${op.method})`);
    }
  });
});
