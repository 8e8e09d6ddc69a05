import assert from 'node:assert/strict';
import { boundedHtml, boundedList, boundedText, codePoints, tooLong } from '../../src/text/limits.js';

describe('text limits (src/text/limits.ts)', () => {
  it('counts code points, as JSON Schema maxLength does: a surrogate pair is one, a lone surrogate one', () => {
    assert.equal(codePoints('abc'), 3);
    assert.equal(codePoints('😀😀'), 2);
    assert.equal(codePoints('\ud800x'), 2);
    assert.equal(codePoints('x\ud83d'), 2);
    assert.equal(tooLong('title', '😀'.repeat(5), 5), undefined);
    assert.equal(tooLong('title', '😀'.repeat(6), 5), 'title must be at most 5 characters long (once cleaned).');
  });

  it('cuts to a number of code points, never half of a pair', () => {
    assert.equal(boundedText('abcdef', 3), 'abc');
    assert.equal(boundedText('😀😀😀', 2), '😀😀');
    assert.equal(boundedText('a😀b', 2), 'a😀');
    assert.equal(boundedText('short', 10), 'short');
  });

  it('cuts HTML without leaving half a tag or half a character reference', () => {
    assert.equal(boundedHtml('<p>abc</p>', 100), '<p>abc</p>');
    assert.equal(boundedHtml('abc<a href="x">link</a>', 8), 'abc');
    assert.equal(boundedHtml('abc &amp; def', 6), 'abc ');
    assert.equal(boundedHtml('abc &amp; def', 9), 'abc &amp;');
    assert.equal(boundedHtml('<b>bold</b> text', 12), '<b>bold</b> ');
  });

  it('cuts a long run of `<` in linear time', () => {
    const began = performance.now();
    const html = `${'<'.repeat(200_000)}>${'x'.repeat(10)}`;
    assert.ok(boundedHtml(html, 200_001) === `${'<'.repeat(200_000)}>`);
    assert.ok(boundedHtml(html, 100_000) === '<'.repeat(99_999), 'the last `<`, unclosed, is dropped');
    assert.ok(performance.now() - began < 50, `${Math.round(performance.now() - began)} ms`);
  });

  it('keeps whole list items while they fit', () => {
    assert.deepEqual(boundedList(['ab', 'cd', 'ef'], 4), ['ab', 'cd']);
    assert.deepEqual(boundedList(['abcde'], 4), []);
    assert.deepEqual(boundedList([], 4), []);
  });
});
