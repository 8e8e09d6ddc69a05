import assert from 'node:assert/strict';
import { Slots } from '../../src/core/slots.js';

/** At most so many pieces of work at once (src/core/slots.ts), as the change feed builds its pages. */
describe('slots: at most so many pieces of work at once, the rest in the order they asked', () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('runs at most `size` at once, starts the waiting ones in arrival order, and frees a slot when work fails', async () => {
    const slots = new Slots(2);
    const started: string[] = [];
    const finish = new Map<string, (fail?: boolean) => void>();
    const work = (name: string) =>
      slots.run(() => {
        started.push(name);
        return new Promise<string>((resolve, reject) => finish.set(name, (fail) => (fail ? reject(new Error(name)) : resolve(name))));
      });
    const results = ['a', 'b', 'c', 'd'].map((name) => work(name));
    await turn();
    assert.deepEqual(started, ['a', 'b']);
    finish.get('b')!(true);
    await assert.rejects(results[1], /b/);
    await turn();
    assert.deepEqual(started, ['a', 'b', 'c']);
    finish.get('a')!();
    assert.equal(await results[0], 'a');
    await turn();
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
    finish.get('c')!();
    finish.get('d')!();
    assert.deepEqual(await Promise.all(results.slice(2)), ['c', 'd']);
    // All slots are free again: two new pieces start at once.
    const later = [work('e'), work('f')];
    await turn();
    assert.deepEqual(started.slice(4), ['e', 'f']);
    finish.get('e')!();
    finish.get('f')!();
    await Promise.all(later);
  });
});
