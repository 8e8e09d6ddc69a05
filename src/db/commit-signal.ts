import type { Knex } from 'knex';

/**
 * Who in this process wants to know at once that a write committed on a database handle: the cache
 * purger (cache/purger.ts) wakes on it instead of waiting for its next poll of the change feed. Other
 * processes' writes are not signalled here; their listeners find them by polling the feed.
 */

const listenersOf = new WeakMap<Knex, Set<() => void>>();

/** Calls `listener` after every commit of inTransaction on `db`; returns what stops it. */
export function onCommitted(db: Knex, listener: () => void): () => void {
  let listeners = listenersOf.get(db);
  if (!listeners) listenersOf.set(db, (listeners = new Set()));
  const own = listeners;
  own.add(listener);
  return () => own.delete(listener);
}

/** Tells the listeners of `db` that a write committed (db/transactions.ts, after the commit). */
export function signalCommitted(db: Knex): void {
  const listeners = listenersOf.get(db);
  if (!listeners) return;
  // A listener's failure is its own: the write has committed and its caller gets its answer.
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // See above.
    }
  }
}
