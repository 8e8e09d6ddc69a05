import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../db/errors.js';
import { requireTransaction } from '../db/transactions.js';

/** A create's answer as stored under its idempotency key (docs/contract.md §10). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A key held by one request: only the holder of the token may complete or release it. */
export interface HeldKey {
  id: number;
  token: string;
}

/** A row of `idempotency_keys`. */
export interface IdempotencyKeyRow extends HeldKey {
  fingerprint: string;
  state: 'running' | 'done';
  claimedAt: number;
  expiresAt: number;
  answer?: StoredAnswer;
}

function toRow(row: Record<string, unknown>): IdempotencyKeyRow {
  const done = row.state === 'done';
  return {
    id: Number(row.id),
    token: String(row.token),
    fingerprint: String(row.fingerprint),
    state: done ? 'done' : 'running',
    claimedAt: Number(row.claimed_at),
    expiresAt: Number(row.expires_at),
    answer: done ? { status: Number(row.status), headers: JSON.parse(String(row.headers)), body: JSON.parse(String(row.body)) } : undefined,
  };
}

/**
 * The idempotency keys of creates (docs/contract.md §10). Claiming, taking over and releasing a key
 * are single statements, each atomic on its own and committed at once so that concurrent requests
 * see the claim (bookkeeping, not content: no data version to bump). Completing a key, which stores
 * the answer, runs inside the create's own transaction (`requireTransaction`), so the record and
 * its stored answer commit together or not at all.
 */
export class IdempotencyRepository {
  constructor(private readonly db: Knex) {}

  /** Claims a key with one insert; undefined when the (user, key) pair exists already (the unique key decides). */
  async claim(userId: number, key: string, fingerprint: string, now: number, expiresAt: number): Promise<HeldKey | undefined> {
    const token = crypto.randomUUID();
    try {
      const [id] = await this.db('idempotency_keys').insert({
        user_id: userId,
        idempotency_key: key,
        fingerprint,
        token,
        state: 'running',
        claimed_at: now,
        expires_at: expiresAt,
      });
      return { id: Number(id), token };
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  async find(userId: number, key: string): Promise<IdempotencyKeyRow | undefined> {
    const row = await this.db('idempotency_keys').where({ user_id: userId, idempotency_key: key }).first();
    return row ? toRow(row) : undefined;
  }

  /**
   * Takes over a key that expired or whose request was abandoned, if nobody else changed it since it
   * was read (its token): one conditional update.
   */
  async takeOver(row: IdempotencyKeyRow, fingerprint: string, now: number, expiresAt: number): Promise<HeldKey | undefined> {
    const token = crypto.randomUUID();
    const changed = await this.db('idempotency_keys')
      .where({ id: row.id, token: row.token })
      .update({ token, fingerprint, state: 'running', claimed_at: now, expires_at: expiresAt, status: null, headers: null, body: null });
    return changed === 1 ? { id: row.id, token } : undefined;
  }

  /** Stores the answer, in the create's transaction; false when the key is no longer held (taken over). */
  async complete(held: HeldKey, answer: StoredAnswer): Promise<boolean> {
    const changed = await requireTransaction(this.db)('idempotency_keys')
      .where({ id: held.id, token: held.token })
      .update({ state: 'done', status: answer.status, headers: JSON.stringify(answer.headers), body: JSON.stringify(answer.body) });
    return changed === 1;
  }

  /** Gives a key back after its request failed (nothing was created): the key may be used again. */
  async release(held: HeldKey): Promise<void> {
    await this.db('idempotency_keys').where({ id: held.id, token: held.token }).delete();
  }

  /** Deletes up to `limit` expired keys (two statements: MySQL takes no LIMIT in an IN subquery); returns how many. */
  async purgeExpired(now: number, limit: number): Promise<number> {
    const ids = await this.db('idempotency_keys').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).pluck('id');
    return this.db('idempotency_keys').whereIn('id', ids).where('expires_at', '<=', now).delete();
  }
}
