import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { BodyGate, jsonDepth } from '../../src/http/body-gate.js';
import { DocumentRoutes } from '../../src/http/document-routes.js';

describe('JSON nesting depth (checked before a body is parsed)', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    const cases: Array<[string, number]> = [
      ['"x"', 0],
      ['{}', 1],
      ['{"a":[1,{"b":[]}]}', 4],
      ['{"a":"[[[{{{"}', 1],
      ['{"a":"quote \\" then [[[["}', 1],
      ['{"a":"backslash \\\\"}', 1],
      ['{"a":"\\\\"}[[', 2],
      [`${'['.repeat(50)}${']'.repeat(50)}`, 50],
      ['[][][]', 1],
    ];
    for (const [text, depth] of cases) {
      assert.equal(jsonDepth(text), depth, text);
      assert.equal(jsonDepth(Buffer.from(text)), depth, `${text} as bytes`);
    }
  });

  it('stops as soon as the depth passes the bound', () => {
    assert.equal(jsonDepth(`${'['.repeat(1_000_000)}`, 32), 33);
  });

  it('reads UTF-8 bytes of other characters as text', () => {
    assert.equal(jsonDepth(Buffer.from('{"a":"日本語 😀 [[["}')), 1);
  });
});

describe('A write whose client left before its body was read', () => {
  // Authentication can take a while (a hashed secret); a client that gives up meanwhile leaves a
  // finished request, which body-parser passes on with no body at all. It must not reach the
  // operation as an empty body (it once created an event from nothing and failed with a 500).
  it('stops with a 400 before the operation runs', async () => {
    const gate = new BodyGate(
      new DocumentRoutes([{ operationId: 'createThing', method: 'POST', path: '/things', parameters: [], bodySchema: { type: 'object' }, allowsAnonymous: true }], '/api'),
    );
    const reached: unknown[] = [];
    const failures: unknown[] = [];
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const app = express();
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    // The slow step before the body is parsed: it lasts until the client is gone (its connection closed).
    app.use((req, _res, next) => {
      arrived();
      if (req.socket.destroyed) next();
      else req.socket.once('close', () => next());
    });
    app.use(gate.parseFor(express.json()));
    app.post('/api/things', (req, res) => {
      reached.push(req.body);
      res.status(201).end();
      settle();
    });
    app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      failures.push(err);
      res.status(400).end();
      settle();
    });
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const body = JSON.stringify({ title: 'sent, then abandoned' });
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write(`POST /api/things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      // The client leaves once the server has the request (body included: it was sent with the headers).
      await arrival;
      socket.destroy();
      await settled;
      assert.deepEqual(reached, [], 'the operation never ran');
      assert.equal(failures.length, 1);
      assert.equal((failures[0] as { status?: number; type?: string }).status, 400);
      assert.equal((failures[0] as { type?: string }).type, 'request.aborted');
    } finally {
      server.close();
    }
  });
});
