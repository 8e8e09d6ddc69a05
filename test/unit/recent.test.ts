import assert from 'node:assert/strict';
import { Recent, roughBytes } from '../../src/records/related-rows.js';

/** The bounded map behind the rows event records embed (records/related-rows.ts): least recently used goes first. */
describe('Recent: a map that forgets the least recently used entries', () => {
  it('keeps at most `max` entries and forgets the one used longest ago', () => {
    const recent = new Recent<string>(2);
    recent.set(1, 'one');
    recent.set(2, 'two');
    assert.equal(recent.get(1), 'one'); // 1 is now the most recently used
    recent.set(3, 'three');
    assert.deepEqual([recent.get(1), recent.get(2), recent.get(3)], ['one', undefined, 'three']);
  });

  it('counts setting an entry again as a use, and replaces its value', () => {
    const recent = new Recent<string>(2);
    recent.set(1, 'one');
    recent.set(2, 'two');
    recent.set(1, 'uno');
    recent.set(3, 'three');
    assert.deepEqual([recent.get(1), recent.get(2), recent.get(3)], ['uno', undefined, 'three']);
  });

  it('holds exactly `max` entries, and nothing with a bound of 0', () => {
    const recent = new Recent<string>(2);
    recent.set(1, 'one');
    recent.set(2, 'two');
    assert.deepEqual([recent.get(1), recent.get(2)], ['one', 'two']);
    const none = new Recent<string>(0);
    none.set(1, 'one');
    assert.equal(none.get(1), undefined);
  });
});

describe('Recent with a byte bound', () => {
  const weigh = (value: string) => value.length;

  it('forgets the least recently used entries once the values weigh more than `maxBytes`', () => {
    const recent = new Recent<string>(10, { maxBytes: 10, weigh });
    recent.set(1, 'aaaa');
    recent.set(2, 'bbbb');
    assert.equal(recent.get(1), 'aaaa'); // 1 is now the most recently used
    recent.set(3, 'cccc'); // 12 bytes: 2 goes
    assert.deepEqual([recent.get(1), recent.get(2), recent.get(3)], ['aaaa', undefined, 'cccc']);
    assert.equal(recent.heldBytes, 8);
  });

  it('counts a replaced value at its new weight, and never keeps a value heavier than the bound', () => {
    const recent = new Recent<string>(10, { maxBytes: 10, weigh });
    recent.set(1, 'aaaaaaaa');
    recent.set(1, 'a');
    recent.set(2, 'bbbbbbbbb');
    assert.deepEqual([recent.get(1), recent.get(2)], ['a', 'bbbbbbbbb']);
    assert.equal(recent.heldBytes, 10);
    recent.set(3, 'c'.repeat(11));
    assert.deepEqual([recent.get(1), recent.get(2), recent.get(3)], ['a', 'bbbbbbbbb', undefined]);
    assert.equal(recent.heldBytes, 10);
  });
});

describe('roughBytes: what a row takes in the heap, about', () => {
  it('grows with the text and the fields, nested objects included', () => {
    const row = { id: 1, title: 'Hall', fields: { address: '1 Main Street', city: 'Springfield' } };
    const longer = { ...row, fields: { ...row.fields, address: '1 Main Street'.repeat(100) } };
    assert.equal(roughBytes('abc'), 16 + 6);
    assert.equal(roughBytes(row), 32 + 8 + 8 + 8 + (16 + 8) + 8 + (32 + 8 + (16 + 26) + 8 + (16 + 22)));
    assert.equal(roughBytes(longer) - roughBytes(row), 2 * 13 * 99);
    assert.equal(roughBytes([1, null, true]), 32 + 3 * 16);
  });
});
