import assert from 'node:assert/strict';
import { PasswordGuessRepository } from '../../../src/repositories/password-guesses.js';
import { openTestDatabase } from '../../helpers/database.js';

/** The shared guess counter's statements, on the run's engine (repositories/password-guesses.ts). */
describe('the record-password guess counter (repositories/password-guesses.ts)', () => {
  const WINDOW = 60_000;
  const T0 = 1_800_000_000_000;
  let guesses: PasswordGuessRepository;

  beforeEach(async () => {
    guesses = new PasswordGuessRepository((await openTestDatabase()).db);
  });

  it('counts wrong guesses per record and client in one window, and starts a new window once it has ended', async () => {
    const counts = [];
    for (let n = 0; n < 3; n++) counts.push((await guesses.countFailure(7, '192.0.2.1', T0 + n * 1000, WINDOW)).failures);
    assert.deepEqual(counts, [1, 2, 3]);
    assert.deepEqual(await guesses.window(7, '192.0.2.1', T0 + 5000), { failures: 3, windowEnds: T0 + WINDOW });
    // Other clients and records are counted apart.
    assert.equal((await guesses.countFailure(7, '192.0.2.2', T0, WINDOW)).failures, 1);
    assert.equal((await guesses.countFailure(8, '192.0.2.1', T0, WINDOW)).failures, 1);
    // The window ends at the first failure plus the window, not later failures.
    assert.equal(await guesses.window(7, '192.0.2.1', T0 + WINDOW), undefined);
    const fresh = await guesses.countFailure(7, '192.0.2.1', T0 + WINDOW, WINDOW);
    assert.equal(fresh.failures, 1);
    assert.deepEqual(await guesses.window(7, '192.0.2.1', T0 + WINDOW), { failures: 1, windowEnds: T0 + 2 * WINDOW });
  });

  it('gives concurrent guesses distinct counts', async () => {
    const counts = await Promise.all(Array.from({ length: 20 }, () => guesses.countFailure(9, '2001:db8::/64', T0, WINDOW)));
    assert.deepEqual(
      counts.map((c) => c.failures).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('prunes only ended windows, at most a batch at a time, oldest first', async () => {
    const { db } = await openTestDatabase();
    const left = async () => (await db('password_guesses').orderBy('record_id').pluck('record_id')).map(Number);
    for (let n = 0; n < 5; n++) await guesses.countFailure(n + 1, '192.0.2.1', T0 + n, WINDOW);
    const now = T0 + WINDOW + 2; // the first three windows have ended
    assert.equal(await guesses.prune(now, 2), 2);
    assert.deepEqual(await left(), [3, 4, 5]);
    assert.equal(await guesses.prune(now, 2), 1);
    assert.equal(await guesses.prune(now, 2), 0);
    assert.deepEqual(await left(), [4, 5], 'the running windows stay');
  });
});
