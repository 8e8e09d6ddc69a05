import assert from 'node:assert/strict';
import { entityTag, parseIfMatch, tagOfBody, versionOf } from '../../src/http/conditional.js';

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
});
