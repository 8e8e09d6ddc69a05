import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { StaleVersion } from '../../src/db/errors.js';
import { RestError } from '../../src/core/errors.js';
import { conditionalWrite, entityTag, parseIfMatch, tagOfBody, versionOf } from '../../src/operations/shared/conditional.js';
import { canonicalJson as canonical } from '../../src/core/canonical-json.js';
import type { OperationContext } from '../../src/operations/shared/operation.js';

/** The pure parts of conditional writes (docs/contract.md §10): entity tags and If-Match values. */
describe('entity tags and If-Match', () => {
  const version = versionOf('event', { id: 12, version: 3 });

  it('builds a strong tag from the record version and a digest of the JSON, whole or in pieces', () => {
    const tag = entityTag(version, '{"a":1}');
    assert.match(tag, /^"event-12-3\.[A-Za-z0-9_-]{22}"$/);
    // Without a variant the digest is of the JSON alone.
    assert.equal(tag, `"event-12-3.${crypto.createHash('sha1').update('{"a":1}').digest('base64url').slice(0, 22)}"`);
    assert.equal(entityTag(version, ['{"a"', ':1}']), tag, 'the pieces of one JSON text hash alike');
    assert.notEqual(entityTag(version, '{"a":2}'), tag);
    assert.notEqual(entityTag(version, '{"a":1}', 'variant'), tag, 'a variant is another representation');
    assert.equal(entityTag(version, '{"a":1}', ''), tag, 'no variant');
    assert.equal(tagOfBody(version, { a: 1 }), tag);
  });

  it('reads *, lists, unquoted tags, and drops weak and empty ones', () => {
    assert.equal(parseIfMatch('*'), '*');
    assert.equal(parseIfMatch(' * '), '*');
    assert.deepEqual(parseIfMatch('"a", W/"b",, c ,"d"'), ['a', 'c', 'd']);
    assert.deepEqual(parseIfMatch('"a", *'), ['a', '*'], 'a * inside a list is just a tag');
    assert.deepEqual(parseIfMatch('"unterminated'), ['"unterminated']);
    assert.deepEqual(parseIfMatch('a"b", "c"d'), ['a"b"', '"c"d'], 'only quotes around the whole tag are dropped');
    assert.deepEqual(parseIfMatch(''), []);
  });

  it('fingerprints an idempotent create by canonical JSON: keys sorted at every depth, undefined fields dropped', () => {
    assert.equal(canonical({ b: 1, a: [2, { d: 'x', c: null }], e: undefined }), '{"a":[2,{"c":null,"d":"x"}],"b":1}');
    assert.equal(canonical({ b: 1, a: 2 }), canonical({ a: 2, b: 1 }));
    assert.equal(canonical({ Z: 1, a: 2, aa: 3 }), '{"Z":1,"a":2,"aa":3}', 'code-unit order');
    assert.notEqual(canonical([1, 23]), canonical([12, 3]));
    assert.notEqual(canonical({ a: 'x' }), canonical({ a: 'y' }));
    assert.equal(canonical('a"b'), '"a\\"b"');
    assert.equal(canonical(undefined), 'null');
    assert.equal(canonical([]), '[]');
    assert.equal(canonical({}), '{}');
  });

  describe('conditionalWrite', () => {
    const loaded = versionOf('event', { id: 12, version: 3 });
    const context = (ifMatch: string | undefined) => ({ req: { get: (name: string) => (name === 'if-match' ? ifMatch : undefined) } }) as unknown as OperationContext;
    const current = async () => '"event-12-4.current"';

    it('writes with no version to compare under If-Match: * (the record exists: it was loaded)', async () => {
      const expected: Array<number | undefined> = [];
      await conditionalWrite(context('*'), loaded, current, async (version) => expected.push(version));
      await conditionalWrite(context(undefined), loaded, current, async (version) => expected.push(version));
      await conditionalWrite(context('"event-12-3"'), loaded, current, async (version) => expected.push(version));
      assert.deepEqual(expected, [undefined, undefined, 3]);
    });

    it('answers 412 with the current ETag when the write finds a newer version, and passes other errors on', async () => {
      await assert.rejects(
        conditionalWrite(context('"event-12-3"'), loaded, current, async () => {
          throw new StaleVersion(12);
        }),
        (err: unknown) => err instanceof RestError && err.status === 412 && err.code === 'rest_precondition_failed' && err.headers.ETag === '"event-12-4.current"',
      );
      const other = new Error('disk full');
      await assert.rejects(
        conditionalWrite(context('"event-12-3"'), loaded, current, async () => {
          throw other;
        }),
        (err: unknown) => err === other,
      );
    });
  });
});
