import assert from 'node:assert/strict';
import type { ApiDocument } from '../../src/openapi/document.js';
import { describeGaps, findContractGaps, recordResponse, type ExercisedResponses } from './coverage.js';

/**
 * A tiny document: a read with 200/404, a write with 201/400 and a request body, one unused schema;
 * both list the service-wide 429 and 500.
 */
const DOCUMENT = {
  openapi: '3.0.3',
  info: {},
  servers: [],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '404': { $ref: '#/components/responses/NotFound' },
          '429': { $ref: '#/components/responses/TooManyRequests' },
          '500': { $ref: '#/components/responses/InternalError' },
          default: { $ref: '#/components/responses/NotFound' },
        },
      },
    },
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCreate' } } } },
        responses: {
          '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '400': { $ref: '#/components/responses/NotFound' },
          '429': { $ref: '#/components/responses/TooManyRequests' },
          '500': { $ref: '#/components/responses/InternalError' },
        },
      },
    },
  },
  components: {
    responses: {
      NotFound: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      TooManyRequests: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      InternalError: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
    schemas: {
      Thing: { type: 'object', properties: { part: { $ref: '#/components/schemas/Part' } } },
      Part: { type: 'object' },
      ThingCreate: { type: 'object' },
      Error: { type: 'object' },
      Unused: { type: 'object' },
    },
  },
} as unknown as ApiDocument;

function seen(...pairs: Array<[string, number]>): ExercisedResponses {
  const into: ExercisedResponses = new Map();
  for (const [operationId, status] of pairs) recordResponse(operationId, status, into);
  return into;
}

describe('the contract coverage check', () => {
  it('reports operations, documented statuses and schemas that nothing exercised', () => {
    const gaps = findContractGaps(DOCUMENT, seen(['getThing', 200]), []);
    assert.deepEqual(gaps.operations, ['createThing']);
    assert.deepEqual(gaps.responses, ['getThing 404', 'createThing 201', 'createThing 400', '(any operation) 429', '(any operation) 500']);
    // Thing and the Part it references are reached from the 200; Error only from an error response,
    // ThingCreate only from a create that succeeded.
    assert.deepEqual(gaps.schemas, ['ThingCreate', 'Error', 'Unused']);
    assert.match(describeGaps(gaps) ?? '', /never called: createThing/);
  });

  it('counts request bodies of successful calls and the default response of unlisted statuses', () => {
    const gaps = findContractGaps(
      DOCUMENT,
      seen(['getThing', 200], ['getThing', 404], ['getThing', 503], ['createThing', 201], ['createThing', 400], ['getThing', 429], ['createThing', 500]),
      [],
    );
    assert.deepEqual(gaps, { operations: [], responses: [], schemas: ['Unused'] });
  });

  it('requires the service-wide 429 and 500 once, on any operation, not on each', () => {
    const pairs: Array<[string, number]> = [
      ['getThing', 200],
      ['getThing', 404],
      ['createThing', 201],
      ['createThing', 400],
    ];
    assert.deepEqual(findContractGaps(DOCUMENT, seen(...pairs, ['createThing', 429]), []).responses, ['(any operation) 500']);
    assert.deepEqual(findContractGaps(DOCUMENT, seen(...pairs, ['createThing', 429], ['getThing', 500]), []).responses, []);
  });

  it('accepts a pair only through the explicit allow-list', () => {
    const gaps = findContractGaps(DOCUMENT, seen(['getThing', 200], ['getThing', 404], ['createThing', 201], ['getThing', 429], ['getThing', 500]), [
      { operationId: 'createThing', status: 400, reason: 'test' },
    ]);
    assert.deepEqual(gaps.responses, []);
    assert.equal(describeGaps({ operations: [], responses: [], schemas: [] }), undefined);
  });
});
