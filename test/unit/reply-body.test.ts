import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonParts, keepAsBytes, serializeReply, STREAM_ABOVE_BYTES } from '../../src/operations/shared/reply-body.js';

describe('replies serialised piece by piece', () => {
  it('joins to exactly what JSON.stringify writes, whatever the value', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.array(tie('node'), { maxLength: 5 }),
        fc.dictionary(fc.string(), fc.oneof(tie('node'), fc.constant(undefined)), { maxKeys: 5 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (body) => {
        const serialized = serializeReply(body, Infinity);
        assert.ok(serialized.complete);
        assert.equal(serialized.pieces.join(''), JSON.stringify(body) ?? '');
        assert.equal(serialized.bytes, Buffer.byteLength(serialized.pieces.join('')));
      }),
      { numRuns: 2000, seed: 20261122 },
    );
    const record = { id: 1, title: 'Café 😀', skipped: undefined, fn: () => 1, list: [undefined, 1, { deep: { deeper: [1, 2] } }], date: new Date(0) };
    assert.equal(serializeReply({ events: [record, record], total: 2 }, Infinity).pieces.join(''), JSON.stringify({ events: [record, record], total: 2 }));
  });

  it('stops soon after the limit instead of serialising the rest', () => {
    const big = { events: Array.from({ length: 1000 }, (_, i) => ({ id: i, description: 'x'.repeat(10_000) })) };
    const serialized = serializeReply(big, 100_000);
    assert.equal(serialized.complete, false);
    assert.ok(serialized.bytes > 100_000 && serialized.bytes < 125_000, `${serialized.bytes} bytes`);
  });

  it('keeps a remembered reply as its UTF-8 bytes only, and a streamed or cut one as its pieces', () => {
    const body = { events: [{ id: 1, title: 'Café — 😀' }], total: 1 };
    const serialized = serializeReply(body, Infinity);
    keepAsBytes(serialized);
    assert.ok(Buffer.isBuffer(serialized.buffer));
    assert.equal(serialized.buffer.toString('utf8'), JSON.stringify(body));
    assert.equal(serialized.buffer.length, serialized.bytes);
    assert.deepEqual([serialized.pieces, serialized.text], [[], undefined]);
    assert.deepEqual(jsonParts(serialized), [serialized.buffer]);

    const large = serializeReply({ text: 'x'.repeat(STREAM_ABOVE_BYTES) }, Infinity);
    const cut = serializeReply({ text: 'x'.repeat(1000) }, 100);
    for (const kept of [large, cut]) {
      const pieces = [...kept.pieces];
      keepAsBytes(kept);
      assert.equal(kept.buffer, undefined);
      assert.deepEqual(jsonParts(kept), pieces);
    }
  });
});
