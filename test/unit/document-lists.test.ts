import assert from 'node:assert/strict';
import { corsLists } from '../../src/http/headers.js';
import {
  headerNames,
  listOperations,
  loadDocument,
  methodsOf,
  operationsWithHeader,
  requestHeaderNames,
  responseHeaderNames,
  securitySchemeNames,
  type ApiDocument,
} from '../../src/openapi/document.js';

/** Sorted, to compare lists as sets. */
const sorted = (names: Iterable<string>) => [...names].sort();

/**
 * The lists the service reads from the document at start-up (openapi/document.ts, http/headers.ts):
 * today's document gives the lists the code used to spell out, and a header or an operation added to
 * the document shows up in them without another change.
 */
describe('lists derived from the OpenAPI document', () => {
  const document = loadDocument();
  const operations = listOperations(document);

  it('gives the operations that take Idempotency-Key: every create of a calendar record, and nothing else', () => {
    assert.deepEqual(sorted(operationsWithHeader(operations, 'Idempotency-Key')), sorted(['createEvent', 'createVenue', 'createOrganizer', 'createCategory', 'createTag']));
    assert.deepEqual(sorted(operationsWithHeader(operations, 'idempotency-key')), sorted(operationsWithHeader(operations, 'Idempotency-Key')), 'names compare without case');
    assert.deepEqual(
      sorted(operationsWithHeader(operations, 'Idempotency-Key')),
      // Not createWebhook nor createSubscription: they are no calendar record, and their writes do not run
      // where a create's stored answer is written (docs/webhooks.md, docs/importing.md).
      sorted(
        operations
          .filter((op) => op.method === 'POST' && op.operationId.startsWith('create') && !['createWebhook', 'createSubscription'].includes(op.operationId))
          .map((op) => op.operationId),
      ),
    );
  });

  it('gives the CORS lists the service has always sent, as sets', () => {
    const lists = corsLists(document, operations);
    assert.deepEqual(
      sorted(lists.allowedHeaders),
      sorted(['Authorization', 'X-WP-Nonce', 'Content-Disposition', 'Content-MD5', 'Content-Type', 'If-None-Match', 'If-Match', 'Idempotency-Key', 'X-Request-Id']),
    );
    assert.deepEqual(
      sorted(lists.exposedHeaders),
      sorted([
        'X-WP-Total',
        'X-WP-TotalPages',
        'Link',
        'X-TEC-Total',
        'X-TEC-TotalPages',
        'X-TEC-Change-Cursor',
        'X-TEC-Truncated',
        'X-Request-Id',
        'ETag',
        'Location',
        'Retry-After',
        'Idempotent-Replayed',
      ]),
    );
    assert.deepEqual(sorted(lists.methods), sorted(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']));
    // WordPress's own lists come first, as WordPress sends them (docs/plugin-behaviour.md §2.4).
    assert.deepEqual(lists.allowedHeaders.slice(0, 5), ['Authorization', 'X-WP-Nonce', 'Content-Disposition', 'Content-MD5', 'Content-Type']);
    assert.deepEqual(lists.exposedHeaders.slice(0, 3), ['X-WP-Total', 'X-WP-TotalPages', 'Link']);
  });

  it('allows every request header of the document and exposes every response header but Allow, Cache-Control and Vary', () => {
    const lists = corsLists(document, operations);
    for (const name of requestHeaderNames(operations)) assert.ok(lists.allowedHeaders.includes(name), name);
    // Cache-Control is CORS-safelisted (readable anyway) and Vary is for caches (http/headers.ts).
    assert.ok(responseHeaderNames(document).includes('Cache-Control') && responseHeaderNames(document).includes('Vary'));
    for (const name of responseHeaderNames(document)) assert.equal(lists.exposedHeaders.includes(name), !['Allow', 'Cache-Control', 'Vary'].includes(name), name);
    for (const method of methodsOf(operations)) assert.ok(lists.methods.includes(method), method);
    assert.deepEqual(securitySchemeNames(document), ['basicAuth', 'bearerAuth']);
  });

  it('picks up a header, a keyed operation and a method added to the document', () => {
    const changed: ApiDocument = loadDocument();
    const listTags = changed.paths['/tags'].get as { parameters?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> };
    listTags.parameters = [
      ...(listTags.parameters ?? []),
      { name: 'X-Test-Request', in: 'header', schema: { type: 'string' } },
      { $ref: '#/components/parameters/IdempotencyKey' },
    ];
    // The 200 answer may be a shared `$ref`: a response of its own carries the new header.
    listTags.responses['299'] = { description: 'test', headers: { 'X-Test-Response': { schema: { type: 'string' } }, etag: { schema: { type: 'string' } } } } as never;
    changed.paths['/tags'].trace = { operationId: 'traceTags', responses: { '200': { description: 'test' } } };
    const changedOperations = listOperations(changed);
    const lists = corsLists(changed, changedOperations);
    assert.ok(lists.allowedHeaders.includes('X-Test-Request'));
    assert.ok(lists.exposedHeaders.includes('X-Test-Response'));
    assert.equal(lists.exposedHeaders.filter((name) => name.toLowerCase() === 'etag').length, 1, 'one name per header, whatever its case');
    assert.ok(operationsWithHeader(changedOperations, 'Idempotency-Key').has('listTags'));
    assert.ok(lists.methods.includes('TRACE'));
    // The lists of the document as it is stay as they were.
    assert.ok(!corsLists(document, operations).allowedHeaders.includes('X-Test-Request'));
  });

  it('keeps one spelling per header name, the first', () => {
    assert.deepEqual(headerNames(['ETag', 'X-A', 'etag', 'x-a', 'X-B']), ['ETag', 'X-A', 'X-B']);
  });
});
