import assert from 'node:assert/strict';
import { RestError } from '../../src/core/errors.js';
import type { OperationContext, Reply } from '../../src/operations/shared/operation.js';
import { withIdempotencyKey } from '../../src/operations/shared/idempotency.js';
import type { IdempotencyKeyRow, IdempotencyRepository } from '../../src/repositories/idempotency.js';

/**
 * The key's claim loop (docs/contract.md §10) under races no single-process test can schedule: a row
 * that vanishes between the failed insert and the read, every time. A stub repository plays the race.
 */
describe('withIdempotencyKey: the claim loop', () => {
  const KEYED: ReadonlySet<string> = new Set(['createTag']);
  const context = (idempotency: Partial<IdempotencyRepository>): OperationContext =>
    ({
      operationId: 'createTag',
      req: { get: (name: string) => (name === 'Idempotency-Key' ? 'racing' : undefined), method: 'POST', path: '/tags' },
      user: { id: 7 },
      body: { name: 'Race' },
      now: () => new Date('2026-11-23T12:00:00Z'),
      config: { requestTimeoutSeconds: 30 },
      repositories: { idempotency: { purgeExpired: async () => 0, ...idempotency } },
    }) as unknown as OperationContext;

  it('refuses a key that is not 1 to 255 visible ASCII characters with 400, before claiming it (the document refuses it first)', async () => {
    for (const key of ['two words', 'x'.repeat(256), 'é']) {
      let claimed = false;
      const ctx = context({
        claim: async () => {
          claimed = true;
          return undefined;
        },
      });
      (ctx.req as unknown as { get: () => string }).get = () => key;
      await assert.rejects(
        withIdempotencyKey(ctx, KEYED, async () => ({ status: 201, body: '' })),
        (err: unknown) => err instanceof RestError && err.status === 400 && JSON.stringify(err.data).includes('Idempotency-Key must be 1 to 255 visible ASCII characters.'),
        key,
      );
      assert.equal(claimed, false, key);
    }
  });

  it('gives up with 409 rest_idempotency_key_in_use after five claims whose row vanished each time', async () => {
    let claims = 0;
    let handled = false;
    const ctx = context({
      claim: async () => {
        claims++;
        return undefined;
      },
      find: async () => undefined,
    });
    const handle = async (): Promise<Reply> => {
      handled = true;
      return { status: 201, body: '' };
    };
    await assert.rejects(withIdempotencyKey(ctx, KEYED, handle), (err: unknown) => err instanceof RestError && err.status === 409 && err.code === 'rest_idempotency_key_in_use');
    assert.equal(claims, 5);
    assert.equal(handled, false);
  });

  it('claims again when a take-over of an expired key loses to another request (one of the five attempts)', async () => {
    let finds = 0;
    let takeOvers = 0;
    const expired = { id: 1, token: 'old', fingerprint: 'other', state: 'running', claimedAt: 0, expiresAt: 0 } as IdempotencyKeyRow;
    const ctx = context({
      claim: async () => undefined,
      find: async () => {
        finds++;
        return finds === 1 ? expired : undefined;
      },
      takeOver: async () => {
        takeOvers++;
        return undefined;
      },
    });
    await assert.rejects(
      withIdempotencyKey(ctx, KEYED, async () => ({ status: 201, body: '' })),
      (err: unknown) => err instanceof RestError && err.status === 409,
    );
    assert.equal(takeOvers, 1);
    assert.equal(finds, 5, 'a lost take-over counts as an attempt');
  });
});
