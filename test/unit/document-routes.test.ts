import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type Request } from 'express';
import { DocumentRoutes } from '../../src/http/document-routes.js';
import { allowHeader } from '../../src/http/allow.js';
import { BodyGate } from '../../src/http/body-gate.js';
import type { OperationInfo } from '../../src/openapi/document.js';

const op = (method: string, path: string, extra: Partial<OperationInfo> = {}): OperationInfo => ({
  operationId: `${method} ${path}`,
  method,
  path,
  parameters: [],
  bodySchema: undefined,
  allowsAnonymous: method === 'GET',
  ...extra,
});

/** A small document: `/events/by-slug/ics` is named by two routes (a slug read and a feed). */
const OPERATIONS = [
  op('GET', '/events'),
  op('POST', '/events', { bodySchema: { type: 'object' } }),
  op('GET', '/events/{id}'),
  op('PATCH', '/events/{id}', { bodySchema: { type: 'object' } }),
  op('GET', '/events/by-slug/{slug}'),
  op('GET', '/events/{id}/ics'),
  op('POST', '/events/{id}/ics', { bodySchema: { type: 'object' }, allowsAnonymous: true }),
];

/** The routes, with every test of a request path against a route's pattern counted. */
function countedRoutes(): { routes: DocumentRoutes; tests: string[] } {
  const routes = new DocumentRoutes(OPERATIONS, '/api');
  const tests: string[] = [];
  for (const route of routes.routes) {
    const test = route.pattern.test.bind(route.pattern);
    route.pattern.test = (path: string) => (tests.push(`${route.path} ${path}`), test(path));
  }
  return { routes, tests };
}

const request = (method: string, path: string) => ({ method, path }) as unknown as Request;

describe("The document's routes a request names (found once per request)", () => {
  it('finds every route naming the path, in the document order, and none for other paths', () => {
    const { routes } = countedRoutes();
    assert.deepEqual(
      routes.matching(request('GET', '/api/events/by-slug/ics')).map((r) => r.path),
      ['/events/by-slug/{slug}', '/events/{id}/ics'],
    );
    assert.deepEqual(
      routes.matching(request('GET', '/api/events/5')).map((r) => r.path),
      ['/events/{id}'],
    );
    assert.deepEqual(routes.matching(request('GET', '/api/Events/5')), [], 'exactly, in its case');
    assert.deepEqual(routes.matching(request('GET', '/api/venues')), []);
    assert.deepEqual(
      routes.operationsFor(request('PATCH', '/api/events/5')).map((o) => o.operationId),
      ['PATCH /events/{id}'],
    );
  });

  it('tests the path against the routes once, however many stages ask', () => {
    const { routes, tests } = countedRoutes();
    const req = request('GET', '/api/events/5');
    const first = routes.matching(req);
    assert.equal(tests.length, routes.routes.length);
    assert.equal(routes.matching(req), first, 'the same answer, not found again');
    assert.deepEqual(routes.operationsFor(req), [OPERATIONS[2]]);
    assert.equal(tests.length, routes.routes.length);
    // Another request finds its own.
    routes.matching(request('GET', '/api/events/5'));
    assert.equal(tests.length, 2 * routes.routes.length);
  });

  it('looks a path up again once it has changed', () => {
    const { routes } = countedRoutes();
    const req = { method: 'GET', path: '/api/events/5' } as { method: string; path: string };
    assert.deepEqual(
      routes.matching(req as unknown as Request).map((r) => r.path),
      ['/events/{id}'],
    );
    req.path = '/api/events/5/ics';
    assert.deepEqual(
      routes.matching(req as unknown as Request).map((r) => r.path),
      ['/events/{id}/ics'],
    );
  });

  it('gives Allow and the body gate the operation it found once, in an app', async () => {
    const { routes, tests } = countedRoutes();
    const gate = new BodyGate(routes);
    const allow = allowHeader(routes);
    const seen: Array<{ allow: string | undefined; body: unknown; tests: number }> = [];
    const app = express();
    app.use((_req, _res, next) => ((tests.length = 0), next()));
    app.use(allow);
    app.use(gate.refuseAnonymousWrites);
    app.use(gate.parseFor(express.json()));
    app.use(allow);
    app.use((req, res) => {
      seen.push({ allow: res.get('Allow'), body: req.body, tests: tests.length });
      res.status(204).end();
    });
    app.use((err: { status?: number }, _req: Request, res: express.Response, _next: express.NextFunction) => {
      seen.push({ allow: res.get('Allow'), body: undefined, tests: tests.length });
      res.status(err.status ?? 500).end();
    });
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const json = { 'content-type': 'application/json' };
      // PATCH is listed for a known caller only.
      assert.equal((await fetch(`${base}/api/events/5`)).status, 204);
      // Named by two routes: the first decides Allow, the body gate asks every one (the second takes the body).
      assert.equal((await fetch(`${base}/api/events/by-slug/ics`, { method: 'POST', headers: json, body: '{"a":1}' })).status, 204);
      // An anonymous write of an operation needing credentials: refused before its body is read.
      assert.equal((await fetch(`${base}/api/events/5`, { method: 'PATCH', headers: json, body: '{"title":"x"}' })).status, 401);
      const once = routes.routes.length;
      assert.deepEqual(seen, [
        { allow: 'GET', body: undefined, tests: once },
        { allow: 'GET', body: { a: 1 }, tests: once },
        { allow: 'GET', body: undefined, tests: once },
      ]);
    } finally {
      server.close();
    }
  });
});
