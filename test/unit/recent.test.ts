import assert from 'node:assert/strict';
import { Recent } from '../../src/services/related-rows.js';

/** The bounded map behind the rows event records embed (services/related-rows.ts): least recently used goes first. */
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
