import crypto from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import { invalidParam, RestError } from '../../core/errors.js';
import { inWriteTransaction, type Repositories } from '../../repositories/registry.js';
import type { HeldKey, IdempotencyKeyRow, StoredAnswer } from '../../repositories/idempotency.js';
import { entityTag } from './conditional.js';
import type { OperationContext, Reply } from './operation.js';

/**
 * Idempotent creates (docs/contract.md §10): a create sent with `Idempotency-Key` is run once per
 * (user, key) for 24 hours; a repeat with the same request gets the first answer again, with
 * `Idempotent-Replayed: true`.
 *
 * 1. The key is claimed before anything else runs, by one insert the unique (user, key) index makes
 *    atomic: of concurrent requests with one key exactly one claims it.
 * 2. The others read the row: another request under the key (method, path and normalised body
 *    differ) is 422 `rest_idempotency_key_reused`; a finished one is replayed; one still running is
 *    409 `rest_idempotency_key_in_use` (retry later).
 * 3. The create stores its answer (status, headers, body) in its own transaction (`createRecord`), so
 *    a created record always has its stored answer, and a crash before the commit leaves neither.
 * 4. An error answer stores nothing: the key is released (nothing was created), so it may be sent
 *    again, also with a corrected body. A claim whose request died without an answer (the process
 *    stopped) is taken over once its lease (the request timeout plus a minute) has passed.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a finished key answers with its stored answer. */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** At most this many expired keys are deleted at a time, at most once a minute per process. */
const PURGE_BATCH = 100;
const PURGE_EVERY_MS = 60_000;
let lastPurge = -Infinity;

/** 1 to 255 visible ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What identifies the request a key was first used for: method, path and the normalised body. */
function fingerprintOf(ctx: OperationContext): string {
  return crypto
    .createHash('sha256')
    .update(canonicalJson([ctx.req.method, ctx.req.path, ctx.body]))
    .digest('hex');
}

function replay(answer: StoredAnswer): Reply {
  return { status: answer.status, body: answer.body as Reply['body'], headers: { ...answer.headers, [REPLAYED_HEADER]: 'true' } };
}

/**
 * Runs `handle` (the whole operation) under the request's `Idempotency-Key` when the operation takes
 * one and the header is sent; otherwise just runs it. `keyed` is the operations whose parameters in
 * the document include the header (every create), found once at start-up
 * (`operationsWithHeader` in openapi/document.ts).
 */
export async function withIdempotencyKey(ctx: OperationContext, keyed: ReadonlySet<string>, handle: () => Promise<Reply>): Promise<Reply> {
  const key = ctx.req.get(IDEMPOTENCY_HEADER);
  if (key === undefined || !keyed.has(ctx.operationId) || !ctx.user) return handle();
  // The document's pattern refuses such keys first; this keeps the rule where it is relied on.
  if (!KEY_PATTERN.test(key)) throw invalidParam(IDEMPOTENCY_HEADER, `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters.`);
  const repo = ctx.repositories.idempotency;
  const userId = ctx.user.id;
  const fingerprint = fingerprintOf(ctx);
  const now = ctx.now().getTime();
  const expiresAt = now + KEY_LIFETIME_MS;
  const lease = (ctx.config.requestTimeoutSeconds + 60) * 1000;
  // Stryker disable next-line all: when the clean-up runs changes no answer (an expired key is taken over either way); the clean-up is tested on the repository.
  if (now - lastPurge >= PURGE_EVERY_MS) {
    lastPurge = now;
    await repo.purgeExpired(now, PURGE_BATCH);
  }

  let held: HeldKey | undefined;
  // A row that vanishes or changes between the failed insert and the read is read again.
  for (let attempt = 0; !held; attempt++) {
    if (attempt >= 5) throw inUse();
    held = await repo.claim(userId, key, fingerprint, now, expiresAt);
    if (held) break;
    const row: IdempotencyKeyRow | undefined = await repo.find(userId, key);
    if (!row) continue;
    if (row.expiresAt <= now) {
      held = await repo.takeOver(row, fingerprint, now, expiresAt);
      continue;
    }
    if (row.fingerprint !== fingerprint) {
      throw new RestError(
        422,
        'rest_idempotency_key_reused',
        `This ${IDEMPOTENCY_HEADER} was used for another request (another method, path or body). Use a new key for a new request.`,
      );
    }
    if (row.answer) return replay(row.answer);
    if (now - row.claimedAt < lease) throw inUse();
    held = await repo.takeOver(row, fingerprint, now, expiresAt);
  }

  const claim = held;
  ctx.idempotency = {
    async complete(repositories, reply) {
      const headers = { ...(reply.headers ?? {}) };
      if (reply.version) headers.ETag = reply.etag ??= entityTag(reply.version, JSON.stringify(reply.body));
      if (!(await repositories.idempotency.complete(claim, { status: reply.status, headers, body: reply.body }))) throw inUse();
    },
  };
  try {
    return await handle();
  } catch (err) {
    await repo.release(claim).catch(() => {
      // The key stays claimed until its lease passes; the error is what the client needs to see.
    });
    throw err;
  }
}

function inUse(): RestError {
  return new RestError(409, 'rest_idempotency_key_in_use', `A request with this ${IDEMPOTENCY_HEADER} is still being processed. Retry it shortly.`, {}, { 'Retry-After': '1' });
}

/**
 * A create's write and its answer: the record is created in one transaction, and its answer is built
 * after. When the request holds an idempotency key, the answer is built inside that transaction and
 * stored with the key before the commit (docs/contract.md §10). `locks`: the write's locks (db/write-locks.ts).
 */
export async function createRecord<R extends Reply>(
  ctx: OperationContext,
  create: (repositories: Repositories) => Promise<number>,
  answer: (repositories: Repositories, id: number) => Promise<R>,
  locks: readonly string[] = [],
): Promise<R> {
  const claim = ctx.idempotency;
  if (!claim) return answer(ctx.repositories, await inWriteTransaction(ctx.db, create, locks));
  return inWriteTransaction(
    ctx.db,
    async (repositories) => {
      const reply = await answer(repositories, await create(repositories));
      await claim.complete(repositories, reply);
      return reply;
    },
    locks,
  );
}
