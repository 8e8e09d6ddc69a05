import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testApp } from '../helpers/app.js';
import { describeResponse, propertySettings, responseProblems } from './checks.js';
import { expectedRejection, invalidRequest, validRequest } from './generate.js';
import { apiOperations } from './operations.js';
import { describeRequest, seedWorld, send } from './world.js';

/**
 * Schemathesis-style contract property: for every operation of the OpenAPI document, requests
 * generated from its schemas (as every caller, on seeded records) get an answer the document
 * describes, and requests with exactly one input broken against the schema are refused: 401 for an
 * anonymous write (authentication comes first), 404 for a malformed path id (no route matches, as in
 * WordPress), 400 otherwise (validation comes before the record lookup and the permission check). PROPERTY_RUNS sets the cases per operation and kind;
 * PROPERTY_SEED replays a run (the seed is in the suite title and in every failure).
 */
const { runs, seed } = propertySettings(8);
// No shrinking: cases share the database, so a shrunk case would not replay what failed; the seed
// (and the path fast-check reports) replays the exact failing case instead.
const parameters = { numRuns: runs, seed, endOnFailure: true };

describe(`contract property: every operation, generated requests (PROPERTY_RUNS=${runs} PROPERTY_SEED=${seed})`, function () {
  this.timeout(120_000);

  for (const op of apiOperations()) {
    it(`${op.operationId}: valid requests get documented answers, invalid ones 4xx`, async () => {
      const { http } = await testApp();
      const world = await seedWorld(http);

      await fc.assert(
        fc.asyncProperty(validRequest(op, world), async (req) => {
          const res = await send(http, world, req);
          assert.deepEqual(responseProblems(op, res), [], `${describeRequest(req)}\n→ ${describeResponse(res)}`);
        }),
        parameters,
      );

      const invalid = invalidRequest(op, world);
      if (!invalid) return;
      await fc.assert(
        fc.asyncProperty(invalid, async (req) => {
          const res = await send(http, world, req);
          const label = `${describeRequest(req)}\n→ ${describeResponse(res)}`;
          assert.deepEqual(responseProblems(op, res), [], label);
          assert.equal(res.status, expectedRejection(op, req), label);
        }),
        parameters,
      );
    });
  }
});
