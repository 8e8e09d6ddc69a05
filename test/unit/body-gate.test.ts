import assert from 'node:assert/strict';
import { jsonDepth } from '../../src/http/body-gate.js';

describe('JSON nesting depth (checked before a body is parsed)', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    const cases: Array<[string, number]> = [
      ['"x"', 0],
      ['{}', 1],
      ['{"a":[1,{"b":[]}]}', 4],
      ['{"a":"[[[{{{"}', 1],
      ['{"a":"quote \\" then [[[["}', 1],
      ['{"a":"backslash \\\\"}', 1],
      ['{"a":"\\\\"}[[', 2],
      [`${'['.repeat(50)}${']'.repeat(50)}`, 50],
      ['[][][]', 1],
    ];
    for (const [text, depth] of cases) {
      assert.equal(jsonDepth(text), depth, text);
      assert.equal(jsonDepth(Buffer.from(text)), depth, `${text} as bytes`);
    }
  });

  it('stops as soon as the depth passes the bound', () => {
    assert.equal(jsonDepth(`${'['.repeat(1_000_000)}`, 32), 33);
  });

  it('reads UTF-8 bytes of other characters as text', () => {
    assert.equal(jsonDepth(Buffer.from('{"a":"日本語 😀 [[["}')), 1);
  });
});
