import assert from 'node:assert/strict';
import { IdempotencyRepository } from '../../../src/repositories/idempotency.js';
import { database } from './fixtures.js';

/**
 * The idempotency keys' statements (docs/contract.md §10): only the holder of a claim's token may
 * take it over, complete it or release it, and each touches its own row only.
 */
describe('idempotency keys: the repository', () => {
  const NOW = 1_800_000_000_000;
  const LATER = NOW + 86_400_000;
  const ANSWER = { status: 201, headers: { Location: '/x' }, body: { id: 1 } };

  it('stores a claim as running, and a take-over of a finished key as running again, without its answer', async () => {
    const db = await database();
    const repo = new IdempotencyRepository(db);
    const held = await repo.claim(1, 'k', 'f', NOW, LATER);
    assert.ok(held);
    assert.equal((await db('idempotency_keys').where('id', held.id).first()).state, 'running');
    assert.equal(await db.transaction((trx) => new IdempotencyRepository(trx).complete(held, ANSWER)), true);
    const done = await repo.find(1, 'k');
    assert.equal(done?.state, 'done');
    assert.deepEqual(done?.answer, ANSWER);
    const taken = await repo.takeOver(done!, 'g', LATER, LATER + 1);
    assert.ok(taken);
    const row = await db('idempotency_keys').where('id', held.id).first();
    assert.equal(row.state, 'running');
    assert.equal(row.fingerprint, 'g');
    assert.equal(row.body, null);
  });

  it('refuses a take-over, a completion and a release by a token that no longer holds the key', async () => {
    const db = await database();
    const repo = new IdempotencyRepository(db);
    const first = await repo.claim(1, 'k', 'f', NOW, LATER);
    assert.ok(first);
    const stale = (await repo.find(1, 'k'))!;
    const second = await repo.takeOver(stale, 'f', LATER, LATER + 1);
    assert.ok(second);
    assert.notEqual(second.token, first.token);
    // The first holder's token and the row as it was read before the take-over are stale now.
    assert.equal(await repo.takeOver(stale, 'f', LATER, LATER + 1), undefined);
    assert.equal(await db.transaction((trx) => new IdempotencyRepository(trx).complete(first, ANSWER)), false);
    await repo.release(first);
    assert.equal((await repo.find(1, 'k'))?.token, second.token);
  });

  it('releases only the key it holds', async () => {
    const db = await database();
    const repo = new IdempotencyRepository(db);
    const mine = await repo.claim(1, 'mine', 'f', NOW, LATER);
    const other = await repo.claim(1, 'other', 'f', NOW, LATER);
    const theirs = await repo.claim(2, 'mine', 'f', NOW, LATER);
    assert.ok(mine && other && theirs);
    await repo.release(mine);
    assert.equal(await repo.find(1, 'mine'), undefined);
    assert.ok(await repo.find(1, 'other'));
    assert.ok(await repo.find(2, 'mine'));
  });

  it('answers undefined to a claim of a key held already, and fails on any other error', async () => {
    const db = await database();
    const repo = new IdempotencyRepository(db);
    assert.ok(await repo.claim(1, 'k', 'f', NOW, LATER));
    assert.equal(await repo.claim(1, 'k', 'f', NOW, LATER), undefined);
    // A NOT NULL column left empty is no unique violation: the error is the caller's to see.
    await assert.rejects(repo.claim(1, 'n', null as unknown as string, NOW, LATER));
  });
});
