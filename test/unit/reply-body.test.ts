import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonParts, serializeReply, STREAM_ABOVE_BYTES } from '../../src/operations/shared/reply-body.js';

describe('replies serialised record by record', () => {
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
        assert.equal(Buffer.concat(serialized.chunks).toString('utf8'), JSON.stringify(body) ?? '');
        assert.equal(serialized.bytes, Buffer.byteLength(JSON.stringify(body) ?? ''));
      }),
      { numRuns: 2000, seed: 20261122 },
    );
    const record = { id: 1, title: 'Café 😀', skipped: undefined, fn: () => 1, list: [undefined, 1, { deep: { deeper: [1, 2] } }], date: new Date(0) };
    assert.equal(serializeReply({ events: [record, record], total: 2 }, Infinity).buffer?.toString('utf8'), JSON.stringify({ events: [record, record], total: 2 }));
  });

  it('counts bytes exactly, whatever the characters', () => {
    // Thousands of short pieces, each with 2-, 3- and 4-byte characters.
    const record = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field ${i} €`, `é${i}😀€`]));
    const json = JSON.stringify(record);
    const serialized = serializeReply(record, Infinity);
    assert.equal(Buffer.concat(serialized.chunks).toString('utf8'), json);
    assert.equal(serialized.bytes, Buffer.byteLength(json));
    // A limit between two pieces: complete at exactly the reply's size, cut short one byte below it.
    assert.equal(serializeReply(record, Buffer.byteLength(json)).complete, true);
    assert.equal(serializeReply(record, Buffer.byteLength(json) - 1).complete, false);
  });

  it('stops soon after the limit instead of serialising the rest', () => {
    const big = { events: Array.from({ length: 1000 }, (_, i) => ({ id: i, description: 'x'.repeat(10_000) })) };
    const serialized = serializeReply(big, 100_000);
    assert.equal(serialized.complete, false);
    assert.ok(serialized.bytes > 100_000 && serialized.bytes < 125_000, `${serialized.bytes} bytes`);
  });

  it('writes a reply sent in one piece as one Buffer, and marks a larger one for streaming', () => {
    const body = { events: [{ id: 1, title: 'Café — 😀' }], total: 1 };
    const serialized = serializeReply(body, Infinity);
    assert.ok(Buffer.isBuffer(serialized.buffer));
    assert.equal(serialized.buffer.toString('utf8'), JSON.stringify(body));
    assert.equal(serialized.buffer.length, serialized.bytes);
    assert.deepEqual(jsonParts(serialized), [serialized.buffer]);

    const text = 'é'.repeat(STREAM_ABOVE_BYTES);
    const large = serializeReply({ before: 'x'.repeat(1000), text, after: [1, 2] }, Infinity);
    assert.equal(large.buffer, undefined);
    assert.ok(large.complete && large.chunks.length > 0);
    assert.equal(Buffer.concat(large.chunks).toString('utf8'), JSON.stringify({ before: 'x'.repeat(1000), text, after: [1, 2] }));
    assert.equal(large.bytes, Buffer.byteLength(JSON.stringify({ before: 'x'.repeat(1000), text, after: [1, 2] })));
    const cut = serializeReply({ text: 'x'.repeat(1000) }, 100);
    assert.deepEqual([cut.complete, cut.buffer], [false, undefined]);
  });
});
