import type { Knex } from 'knex';

/**
 * Who in this process wants to know at once that a write committed on a database handle: the cache
 * purger (cache/purger.ts) and the webhook deliveries wake on it instead of waiting for their next
 * poll of the change feed. The signal is an event of the handle itself (a Knex handle is an event
 * emitter), so it lives and ends with the handle and no table of handles is kept. Other processes'
 * writes are not signalled here; their listeners find them by polling the feed.
 */

const COMMITTED = 'tec:committed';

/** Calls `listener` after every commit of inTransaction on `db`; returns what stops it. */
export function onCommitted(db: Knex, listener: () => void): () => void {
  // A listener's failure is its own: the write has committed and its caller gets its answer.
  const guarded = (): void => {
    try {
      listener();
    } catch {
      // See above.
    }
  };
  db.on(COMMITTED, guarded);
  return () => void db.off(COMMITTED, guarded);
}

/** Tells the listeners of `db` that a write committed (db/transactions.ts, after the commit). */
export function signalCommitted(db: Knex): void {
  db.emit(COMMITTED);
}
