import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testApp } from '../helpers/app.js';
import { describeResponse, propertySettings, responseProblems } from './checks.js';
import { hostileRequest, rawBodyRequests, validRequest } from './generate.js';
import type { SchemaObject } from '../../src/openapi/document.js';
import { expectError } from '../helpers/assertions.js';
import { apiOperations, type ApiOperation } from './operations.js';
import { CALLERS, databaseSnapshot, describeRequest, seedWorld, send, type ApiRequest } from './world.js';

/**
 * Fuzz test: every operation of the OpenAPI document, as every caller (anonymous and each role),
 * with one input replaced by a hostile value (wrong types, huge strings, deep nesting, unicode, SQL
 * and HTML metacharacters, huge arrays, out-of-range numbers, malformed dates and time zones), and
 * every body-taking operation with malformed JSON and form bodies and wrong content types. Never a
 * 5xx, every answer documented and every error in the WordPress envelope, and a rejected request
 * stores nothing (every table is compared before and after it). PROPERTY_RUNS sets the cases per
 * operation and caller (a quarter of them) and raw bodies per operation; PROPERTY_SEED replays a run.
 */
const { runs, seed } = propertySettings(8);
/** Hostile requests per operation and caller, and raw bodies per body-taking operation. */
const casesPerCaller = Math.max(1, Math.ceil(runs / 4));
const rawBodiesPerOperation = runs;

describe(`fuzz: hostile inputs to every operation as every caller (PROPERTY_RUNS=${runs} PROPERTY_SEED=${seed})`, function () {
  this.timeout(180_000);

  apiOperations().forEach((op, index) => {
    it(`${op.operationId}: no 5xx, documented answers in the envelope, nothing stored when rejected`, async () => {
      const { http } = await testApp();
      const world = await seedWorld(http);
      const requests: ApiRequest[] = CALLERS.flatMap((caller, i) => fc.sample(hostileRequest(op, world, caller), { numRuns: casesPerCaller, seed: seed + index * 31 + i }));
      if (op.contentTypes.length > 0) {
        const path = op.path.replace('{id}', String(world.ids[op.collection!][0])).replace('{slug}', world.slugs[op.collection as 'events']?.[0] ?? 'x');
        requests.push(...rawBodyRequests(op, path, index, rawBodiesPerOperation));
      }

      const failures: string[] = [];
      let before = await databaseSnapshot();
      for (const req of requests) {
        const res = await send(http, world, req);
        const problems = responseProblems(op, res);
        if (res.status >= 400) {
          const after = await databaseSnapshot();
          if (after !== before) problems.push('a rejected request changed the database');
          before = after;
        } else if (op.method !== 'GET') {
          before = await databaseSnapshot();
        }
        if (problems.length) failures.push(`${problems.join('; ')}\n    ${describeRequest(req)}\n    → ${describeResponse(res)}`);
      }
      assert.deepEqual(failures, [], `${failures.length} of ${requests.length} requests failed (PROPERTY_SEED=${seed}):\n${failures.slice(0, 8).join('\n')}`);
    });
  });
});

/** Malformed and over-long `Host` values (RFC 3986 host and port, at most 253 + 6 characters). */
const HOSTILE_HOSTS = [
  'a b',
  'a<b',
  '[::1',
  'a:99999',
  '',
  '%ff',
  'a/b',
  'user@a',
  'a\tb',
  '"><svg onload=alert(1)>',
  'h'.repeat(254),
  'h'.repeat(15_000),
  '[::1]:80:80',
  'xn--\u00e9',
  'a:-1',
];

describe(`fuzz: hostile Host headers on every operation as every caller (PROPERTY_SEED=${seed})`, function () {
  this.timeout(180_000);

  it('every operation answers 400 rest_invalid_host in the envelope and stores nothing', async () => {
    const { http } = await testApp();
    const world = await seedWorld(http);
    const before = await databaseSnapshot();
    const requests: ApiRequest[] = apiOperations().flatMap((op, index) => {
      const [req] = fc.sample(validRequest(op, world), { numRuns: 1, seed: seed + index });
      return HOSTILE_HOSTS.map((host, n) => ({ ...req, caller: CALLERS[(index + n) % CALLERS.length], host }));
    });
    const problems: string[] = [];
    for (const req of requests) {
      const res = await send(http, world, req);
      try {
        expectError(res, 400, 'rest_invalid_host');
        if (res.text.length > 1_000) throw new Error(`${res.text.length} bytes`);
      } catch (err) {
        problems.push(`${(err as Error).message.split('\n')[0]}\n    ${describeRequest(req)}\n    → ${describeResponse(res)}`);
      }
    }
    assert.equal(await databaseSnapshot(), before, 'a request with a bad Host changed the database');
    assert.deepEqual(problems, [], `${problems.length} of ${requests.length} requests failed (PROPERTY_SEED=${seed}):\n${problems.slice(0, 8).join('\n')}`);
  });
});

/** The string branches of a body field's schema: itself, its alternatives, and its items when it is a list. */
function stringSchemas(schema: SchemaObject | undefined): SchemaObject[] {
  if (!schema) return [];
  const own = schema.type === 'string' ? [schema] : [];
  const alternatives = (schema.anyOf ?? schema.oneOf ?? []).flatMap(stringSchemas);
  return [...own, ...alternatives, ...(schema.type === 'array' ? stringSchemas(schema.items) : [])];
}

/** Every field a caller may write as a string, per body-taking operation, and whether it is a list of strings. */
function writableStrings(op: ApiOperation): Array<{ name: string; strings: SchemaObject[]; list: boolean }> {
  return Object.entries(op.bodySchema?.properties ?? {})
    .map(([name, schema]) => ({ name, strings: stringSchemas(schema), list: schema.type === 'array' || (schema.anyOf ?? []).some((s) => s.type === 'array') }))
    .filter((field) => field.strings.length > 0);
}

/**
 * Size attacks (docs/limits.md "Text fields and reply sizes"): every field the document lets a caller
 * write as a string has a bound (a `maxLength` or an `enum`), and a value of a million characters in
 * any of them, alone or as a list's item, is a 4xx in the envelope naming the field that stores
 * nothing, for the most trusted caller (an administrator's HTML is not cleaned, so nothing shortens it).
 */
describe('fuzz: size attacks on every text field of every resource', function () {
  this.timeout(180_000);
  const bodyOperations = apiOperations().filter((op) => op.bodySchema && writableStrings(op).length > 0);

  it('every string a caller may write is bounded in the document (maxLength or enum)', () => {
    const unbounded = bodyOperations.flatMap((op) =>
      writableStrings(op).flatMap(({ name, strings }) => strings.filter((s) => s.maxLength === undefined && !s.enum).map(() => `${op.operationId}: ${name}`)),
    );
    assert.deepEqual([...new Set(unbounded)], []);
  });

  bodyOperations.forEach((op, index) => {
    it(`${op.operationId}: a million characters in any text field is a 4xx naming it, nothing stored`, async () => {
      const { http } = await testApp();
      const world = await seedWorld(http);
      const [base] = fc.sample(validRequest(op, world), { numRuns: 1, seed: seed + index });
      const huge = 'x'.repeat(1_000_000);
      const failures: string[] = [];
      const before = await databaseSnapshot();
      for (const { name, list } of writableStrings(op)) {
        for (const value of list ? [[huge], huge] : [huge]) {
          const body = { ...((base.body?.kind === 'raw' ? {} : base.body?.value) as Record<string, unknown>), [name]: value };
          const req: ApiRequest = {
            ...base,
            caller: 'administrator',
            body: { kind: 'json', value: body },
            mutation: `${name}: ${Array.isArray(value) ? '[1,000,000 characters]' : '1,000,000 characters'}`,
          };
          const res = await send(http, world, req);
          const problems = responseProblems(op, res);
          if (process.env.SIZE_DEBUG) console.log(op.operationId, name, res.status, res.text.slice(0, 150));
          if (res.status < 400 || res.status >= 500) problems.push(`status ${res.status}`);
          if (res.body?.code === 'rest_invalid_param' && !(name in (res.body.data?.params ?? {})))
            problems.push(`params do not name ${name}: ${JSON.stringify(res.body.data?.params).slice(0, 200)}`);
          if (problems.length) failures.push(`${problems.join('; ')}\n    ${describeRequest(req)}\n    → ${describeResponse(res)}`);
        }
      }
      assert.equal(await databaseSnapshot(), before, 'a refused write changed the database');
      assert.deepEqual(failures, [], failures.slice(0, 8).join('\n'));
    });
  });
});
