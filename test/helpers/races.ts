import type { Knex } from 'knex';
import { engineOf } from '../../src/db/engine.js';

type Statement = string | { sql: string };
type Send = (connection: unknown, statement: Statement) => Promise<unknown>;
type Acquire = () => Promise<unknown>;

const BEGIN = /^(begin|start transaction)/i;
const END = /^(commit|rollback)/i;

/**
 * Runs two writes so that the second checks what it checks before the first's write is visible, and
 * the first runs its transaction after that check, every time: the race a check-then-write must
 * survive (src/db/write-locks.ts). The first write's transaction is held before it starts (before it
 * takes a connection) and let go:
 *
 * - on MySQL, as soon as the second write, inside its own transaction, sends its first statement: the
 *   two transactions then run at once, as two requests do on two connections (a write lock makes one
 *   wait in the database until the other commits);
 * - on SQLite, whose one connection runs one transaction at a time, when the second has answered
 *   (there only a check made outside the transaction can race).
 *
 * The hooks sit on the Knex client the app shares with the test (a transaction's client inherits
 * the prototype's `query`).
 */
export async function raceTwo<A, B>(db: Knex, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  const mysql = engineOf(db) === 'mysql';
  const client = db.client as { acquireConnection: Acquire };
  const prototype = Object.getPrototypeOf(db.client) as { query: Send };
  const ownQuery = Object.prototype.hasOwnProperty.call(prototype, 'query');
  const query = prototype.query;
  const acquire = client.acquireConnection;
  const ownAcquire = Object.prototype.hasOwnProperty.call(client, 'acquireConnection');
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let held = false;
  let secondStarted = false;
  const inTransaction = new Set<unknown>();
  client.acquireConnection = async function (this: unknown) {
    // The first transaction's connection (Knex's Transaction asks for it before its BEGIN).
    if (!held && !secondStarted && new Error().stack?.includes('execution/transaction.js')) {
      held = true;
      await released;
    }
    return acquire.call(this);
  };
  prototype.query = async function (this: unknown, connection: unknown, statement: Statement) {
    const sql = typeof statement === 'string' ? statement : statement.sql;
    if (mysql && secondStarted && inTransaction.has(connection)) letGo();
    if (BEGIN.test(sql)) inTransaction.add(connection);
    if (END.test(sql)) inTransaction.delete(connection);
    return query.call(this, connection, statement);
  };
  try {
    let firstSettled = false;
    const firstDone = Promise.resolve()
      .then(first)
      .finally(() => (firstSettled = true));
    // The second starts once the first is held (or has answered without a transaction).
    while (!held && !firstSettled) await new Promise((resolve) => setImmediate(resolve));
    secondStarted = true;
    const secondDone = Promise.resolve().then(second).finally(letGo);
    return await Promise.all([firstDone, secondDone]);
  } finally {
    letGo();
    if (ownAcquire) client.acquireConnection = acquire;
    else delete (client as { acquireConnection?: Acquire }).acquireConnection;
    if (ownQuery) prototype.query = query;
    else delete (prototype as { query?: Send }).query;
  }
}
