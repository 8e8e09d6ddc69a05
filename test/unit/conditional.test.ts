import assert from 'node:assert/strict';
import { entityTag, parseIfMatch, tagOfBody, versionOf } from '../../src/http/conditional.js';
import { canonical } from '../../src/http/idempotency.js';

/** The pure parts of conditional writes (docs/contract.md §10): entity tags and If-Match values. */
describe('entity tags and If-Match', () => {
  const version = versionOf('event', { id: 12, version: 3 });

  it('builds a strong tag from the record version and a digest of the JSON, whole or in pieces', () => {
    const tag = entityTag(version, '{"a":1}');
    assert.match(tag, /^"event-12-3\.[A-Za-z0-9_-]{22}"$/);
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
});
