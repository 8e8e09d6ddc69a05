import type { Knex } from 'knex';

/**
 * Slugs this process is writing in transactions that have not ended yet, per scope (a table and
 * type). Concurrent creates with one title in one process then try different candidates instead of
 * all trying the same one: on MySQL a second insert of an uncommitted slug waits for the first
 * transaction to end before it fails, so same-title creates would otherwise queue behind each other
 * one whole transaction per candidate (and time out waiting for a pooled connection). This is only
 * a way to avoid waiting: the unique index still decides, across processes too.
 */
const claims = new Set<string>();

function keyOf(scope: string, slug: string): string {
  return `${scope}\u0000${slug}`;
}

/** Whether a transaction of this process is writing `slug` in `scope`. */
export function isClaimed(scope: string, slug: string): boolean {
  return claims.has(keyOf(scope, slug));
}

/** Claims `slug` in `scope`; returns the release function (safe to call more than once). */
export function claim(scope: string, slug: string): () => void {
  const key = keyOf(scope, slug);
  claims.add(key);
  return () => claims.delete(key);
}

/**
 * Keeps a claim until the transaction `db` ends (commit or rollback), when the row is either
 * visible to everyone or gone; outside a transaction the write is already committed.
 */
export function releaseWhenDone(db: Knex, release: () => void): void {
  const trx = db as Knex.Transaction;
  if (trx.isTransaction && trx.executionPromise && !trx.isCompleted()) trx.executionPromise.then(release, release);
  else release();
}
