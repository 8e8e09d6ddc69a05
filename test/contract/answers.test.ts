import assert from 'node:assert/strict';
import http from 'node:http';
import express from 'express';
import request from 'supertest';
import { loadDocument } from '../../src/openapi/document.js';
import { createUser, NS, testApp } from '../helpers/app.js';
import { answerCheckingListener, missingHeadersOfAnswer, responseSchema, undocumentedKeys, undocumentedKeysOfAnswer } from './answers.js';

const doc = loadDocument();
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('answers compared with the document: undocumented keys (response schemas are open for growth) and promised headers', () => {
  it('no response schema of the document says additionalProperties: false', () => {
    const closed: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'additionalProperties' && value === false) closed.push(at);
        walk(value, `${at}/${key}`);
      }
    };
    const schemas = doc.components.schemas as Record<string, unknown>;
    // Response schemas: every schema reachable from a response (request bodies may stay closed).
    const reachable = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(collect);
      if (!node || typeof node !== 'object') return;
      const target = (node as { $ref?: unknown }).$ref;
      if (typeof target === 'string' && target.startsWith('#/components/schemas/')) {
        const name = target.slice('#/components/schemas/'.length);
        if (!reachable.has(name)) {
          reachable.add(name);
          collect(schemas[name]);
        }
        return;
      }
      Object.values(node).forEach(collect);
    };
    collect(doc.components.responses);
    for (const pathItem of Object.values(doc.paths)) for (const op of Object.values(pathItem)) collect((op as { responses?: unknown }).responses);
    for (const name of reachable) walk(schemas[name], name);
    assert.ok(reachable.has('Event') && reachable.has('Error'), 'the walk reaches the records and the error envelope');
    assert.deepEqual(closed, []);
  });

  it('finds a key a record schema does not list, also nested and inside arrays', () => {
    const category = { id: 1, count: 0, description: '', name: 'A', slug: 'a', taxonomy: 'tribe_events_cat', parent: 0, meta: [], url: 'u', urls: { self: 's', collection: 'c' } };
    assert.deepEqual(undocumentedKeys(doc, ref('Category'), category), []);
    assert.deepEqual(undocumentedKeys(doc, ref('Category'), { ...category, _links: {} }), ['/_links']);
    assert.deepEqual(undocumentedKeys(doc, ref('Category'), { ...category, urls: { ...category.urls, about: 'x' } }), ['/urls/about']);
    const list = { rest_url: 'r', total: 2, total_pages: 1, categories: [category, { ...category, custom: 1 }] };
    assert.deepEqual(undocumentedKeys(doc, ref('CategoryList'), list), ['/categories/1/custom']);
  });

  it('compares a union with the alternative the value fits (one venue or a list of venues)', () => {
    const venue = { id: 5, venue: 'Hall', show_map: true, show_map_link: true, global_id: 'g', global_id_lineage: ['g'] };
    assert.deepEqual(undocumentedKeys(doc, ref('EventVenue'), venue), []);
    assert.deepEqual(undocumentedKeys(doc, ref('EventVenue'), [venue, { ...venue, extra: 1 }]), ['/1/extra']);
    assert.deepEqual(undocumentedKeys(doc, ref('EventVenue'), { ...venue, extra: 1 }), ['/extra']);
    assert.deepEqual(undocumentedKeys(doc, ref('FeaturedImage'), false), []);
    assert.deepEqual(undocumentedKeys(doc, ref('FeaturedImage'), { url: 'u', id: 1, extension: 'jpg', alt: '' }), ['/alt']);
  });

  it('leaves objects the document opens on purpose alone (error data, JSON-LD, the namespace index)', () => {
    const error = { code: 'term_exists', message: 'm', data: { status: 400, term_id: 7 } };
    assert.deepEqual(undocumentedKeys(doc, ref('Error'), error), []);
    assert.deepEqual(undocumentedKeys(doc, ref('Error'), { ...error, additional_errors: [] }), ['/additional_errors']);
    assert.deepEqual(undocumentedKeys(doc, ref('JsonLd'), { '@type': 'Event', name: 'x', location: { '@type': 'Place' } }), []);
  });

  it('finds the schema of an answer by operation and status, falling back to `default` and to the error envelope', () => {
    assert.deepEqual(responseSchema(doc, 'getCategory', 200), ref('Category'));
    assert.deepEqual(responseSchema(doc, 'getCategory', 503), ref('Error'));
    assert.deepEqual(responseSchema(doc, undefined, 401), ref('Error'));
    assert.equal(responseSchema(doc, undefined, 200), undefined);
    assert.deepEqual(undocumentedKeysOfAnswer('getCategory', 404, { code: 'c', message: 'm', data: { status: 404 }, trace: 'x' }), ['/trace']);
  });

  it('turns an answer with an undocumented key into a 500 that names it', async () => {
    const app = express();
    app.get('/category', (req, res) => {
      (req as unknown as { openapi: unknown }).openapi = { schema: { operationId: 'getCategory' } };
      res.json({
        id: 1,
        count: 0,
        description: '',
        name: 'A',
        slug: 'a',
        taxonomy: 'tribe_events_cat',
        parent: 0,
        meta: [],
        url: 'u',
        urls: { self: 's', collection: 'c' },
        secret: 'x',
      });
    });
    const log = console.error;
    console.error = () => {};
    try {
      const res = await request(http.createServer(answerCheckingListener(app))).get('/category');
      assert.equal(res.status, 500);
      assert.equal(res.body.code, 'rest_undocumented_answer');
      assert.ok(res.body.data.problems.includes('key /secret'), JSON.stringify(res.body));
    } finally {
      console.error = log;
    }
  });

  it('turns an answer without a required header, as its headers go out, into a 500 that names it', async () => {
    const app = express();
    app.get('/category', (req, res) => {
      (req as unknown as { openapi: unknown }).openapi = { schema: { operationId: 'getCategory' } };
      res.set({ 'X-Request-Id': 'r', Allow: 'GET', Link: 'l', ETag: '"e"', Vary: 'Origin' });
      // Set as the headers go out, as src/http/cache-policy.ts does: late, but in time.
      const writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: unknown[]) {
        if (req.query.late === '1') this.setHeader('Cache-Control', 'no-store');
        return writeHead.apply(this, args as never);
      } as typeof res.writeHead;
      res.json({ id: 1, count: 0, description: '', name: 'A', slug: 'a', taxonomy: 'tribe_events_cat', parent: 0, meta: [], url: 'u', urls: { self: 's', collection: 'c' } });
    });
    const log = console.error;
    console.error = () => {};
    try {
      const missing = await request(http.createServer(answerCheckingListener(app))).get('/category');
      assert.equal(missing.status, 500);
      assert.match(String(missing.headers['x-undocumented-answer']), /header Cache-Control/);
      const late = await request(http.createServer(answerCheckingListener(app))).get('/category?late=1');
      assert.equal(late.status, 200, String(late.headers['x-undocumented-answer']));
    } finally {
      console.error = log;
    }
  });

  it('lists the required headers an answer lacks, by operation and status', () => {
    const present = new Set(['X-Request-Id', 'Allow', 'Link']);
    assert.deepEqual(
      missingHeadersOfAnswer('getCategory', 200, (name) => present.has(name)),
      ['Cache-Control', 'Vary', 'ETag'],
    );
    assert.deepEqual(
      missingHeadersOfAnswer('createCategory', 201, (name) => present.has(name)),
      ['ETag', 'Location'],
    );
    assert.deepEqual(
      missingHeadersOfAnswer('listCategories', 200, () => true),
      [],
    );
    assert.deepEqual(
      missingHeadersOfAnswer('listCategories', 404, (name) => name !== 'X-Request-Id'),
      ['X-Request-Id'],
    );
    // Allow is documented, but not required: a caller who may use no method gets none.
    assert.deepEqual(
      missingHeadersOfAnswer('listWebhooks', 401, (name) => name !== 'Allow'),
      [],
    );
    // Retry-After is documented, but not required: only 429 and 503 carry it.
    assert.deepEqual(
      missingHeadersOfAnswer('getCategory', 503, (name) => name !== 'Retry-After'),
      [],
    );
    assert.deepEqual(
      missingHeadersOfAnswer(undefined, 401, () => false),
      [],
    );
  });

  it("passes the service's real answers through unchanged", async () => {
    const { http: api } = await testApp();
    const admin = await createUser('administrator');
    const created = await api().post(`${NS}/categories`).set('Authorization', admin.authorization).send({ name: 'Keys' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const read = await api().get(`${NS}/categories/${created.body.id}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.name, 'Keys');
    assert.deepEqual(Object.keys(read.body), Object.keys(created.body));
  });
});
