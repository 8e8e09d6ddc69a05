import type { Knex } from 'knex';
import { engineOf } from './engine.js';
import { everyMigrationIn } from './migrate.js';
import { ASKED_ONCE } from './statement-retries.js';

/** What the database says to a readiness probe. */
type Readiness = 'ready' | 'migrations pending';

/**
 * Asks the database whether it serves and every migration has run, within `budgetMs`, in one
 * statement (the names of the migrations run: it answers only when the database does). It never
 * holds a pooled connection past its answer (issue #29: on a Galera node that was joining, the probe's
 * statements kept retrying for 10 s after it had answered, each holding one of the 10 connections):
 *
 * - the statement is marked asked once (db/statement-retries.ts): a refusal is the answer;
 * - a connection that only comes free after the budget is given back at once, unused;
 * - on MySQL a statement still running near the budget is cancelled by knex (`KILL QUERY` from a
 *   connection of its own), so that its connection is normally back before the answer; one still
 *   busy at the answer is given back marked unusable (knex's own mark), and the pool destroys it.
 *   SQLite's statements run synchronously: none can still be running when the budget ends.
 *
 * Rejects with the database's error, or a timeout error once the budget is spent.
 */
export async function askReadiness(db: Knex, budgetMs: number): Promise<Readiness> {
  const deadline = Date.now() + budgetMs;
  const acquiring = db.client.acquireConnection() as Promise<unknown>;
  let connection: unknown;
  try {
    connection = await beforeDeadline(acquiring, deadline);
  } catch (err) {
    // Still waiting for a free connection at the budget: hand it back as soon as it comes.
    acquiring.then(
      (late) => db.client.releaseConnection(late),
      () => undefined,
    );
    throw err;
  }
  let ended = true;
  try {
    let query = db('knex_migrations').select('name').connection(connection).queryContext(ASKED_ONCE);
    // Cancelled a little before the budget ends, so that the connection is normally back in the pool
    // before the 503 is sent.
    if (engineOf(db) === 'mysql') query = query.timeout(Math.max(1, deadline - Date.now() - CANCEL_MARGIN_MS), { cancel: true });
    // One promise (a knex builder runs its statement again at each `then`).
    const rows = Promise.resolve(query as unknown as PromiseLike<Array<{ name: string }>>);
    ended = false;
    void rows.then(
      () => (ended = true),
      () => (ended = true),
    );
    const names = await beforeDeadline(rows, deadline);
    return everyMigrationIn(names.map((row) => row.name)) ? 'ready' : 'migrations pending';
  } catch (err) {
    // A database never migrated has no bookkeeping table yet: pending, not unreachable.
    if (isMissingTable(err)) return 'migrations pending';
    throw err;
  } finally {
    // A statement still running at the answer (its cancel could not reach the server, a stalled
    // network): its connection is given back marked unusable, so the pool destroys it instead of
    // handing it out, and the slot is free at once.
    if (!ended) (connection as { __knex__disposed?: unknown }).__knex__disposed = new Error('readiness statement outlived its probe');
    await db.client.releaseConnection(connection);
  }
}

/** How long before the budget ends a MySQL probe statement is cancelled, in milliseconds. */
const CANCEL_MARGIN_MS = 200;

/** The promise's outcome, or a timeout error once the deadline has passed. */
function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database check timed out')), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isMissingTable(err: unknown): boolean {
  const { errno, message = '' } = (err ?? {}) as { errno?: number; message?: string };
  return errno === 1146 || /no such table/.test(message);
}
