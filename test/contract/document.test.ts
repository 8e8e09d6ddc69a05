import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { listOperations, loadDocument, projectRoot } from '../../src/openapi/document.js';
import { createOperationTable } from '../../src/operations/handlers.js';
import { buildRouteTable } from '../../src/operations/namespace-index.js';

describe('the OpenAPI document as the source of truth', () => {
  it('matches the committed generated/ types (run `npm run generate` after editing openapi/)', function () {
    this.timeout(60_000);
    const root = projectRoot();
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'generated-')), 'openapi.d.ts');
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi/openapi.yaml', '-o', out, '--empty-objects-unknown', '--default-non-nullable', 'false'],
      { cwd: root, stdio: 'pipe' },
    );
    execFileSync(process.execPath, [path.join(root, 'scripts/banner.mjs'), out], { cwd: root });
    const committed = fs.readFileSync(path.join(root, 'generated/openapi.d.ts'), 'utf8');
    assert.ok(fs.readFileSync(out, 'utf8') === committed, 'generated/openapi.d.ts is stale: run `npm run generate`');
  });

  it('has exactly one handler per operation and one operationId per operation', () => {
    const document = loadDocument();
    const operations = listOperations(document);
    const ids = operations.map((op) => op.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    const table = createOperationTable(document, buildRouteTable(operations));
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
    assert.equal(methods('/events/{id}.ics'), 'GET');
    assert.equal(methods('/events.jsonld'), 'GET');
    assert.equal(methods('/events/{id}/occurrences'), 'GET');
    assert.equal(new Set(operations.map((op) => op.path)).size, 20);
  });

  it('requires credentials for every write and none for reads', () => {
    for (const op of listOperations(loadDocument())) {
      assert.equal(op.allowsAnonymous, op.method === 'GET', `${op.operationId} (${op.method})`);
    }
  });
});
