import assert from 'node:assert/strict';
import { isConnectionError, isDatabaseNotReady, isDatabaseUnavailable, isPassingRefusal } from '../../src/db/errors.js';

describe('database errors told apart', () => {
  it('counts a lost or closed connection as a connection error, with or without a code', () => {
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    // What knex reports when the ROLLBACK after a lost statement meets the closed connection.
    const rollback = new Error("ROLLBACK - Can't add new command when connection is in closed state");
    const written = new Error("Can't write in closed state");
    const fatalWithoutCode = Object.assign(new Error('Unexpected packet while no commands in the queue'), { fatal: true });
    for (const err of [lost, rollback, written, fatalWithoutCode]) assert.equal(isConnectionError(err), true, err.message);
  });

  it('does not count errors of the statement itself', () => {
    const duplicate = Object.assign(new Error("Duplicate entry 'x' for key 'slug'"), { code: 'ER_DUP_ENTRY', errno: 1062, fatal: false });
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    const syntax = Object.assign(new Error('You have an error in your SQL syntax'), { code: 'ER_PARSE_ERROR' });
    for (const err of [duplicate, deadlock, syntax, new Error('boom'), undefined, null, 'text']) assert.equal(isConnectionError(err), false, String(err));
  });

  it('counts a Galera node that is not ready and a server shutting down as not ready, and nothing else', () => {
    const notReady = Object.assign(new Error('WSREP has not yet prepared node for application use'), { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 });
    const shutdown = Object.assign(new Error('Server shutdown in progress'), { code: 'ER_SERVER_SHUTDOWN', errno: 1053 });
    for (const err of [notReady, shutdown]) assert.equal(isDatabaseNotReady(err), true, err.message);
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    for (const err of [deadlock, refused, new Error('boom'), undefined, null, 'text']) assert.equal(isDatabaseNotReady(err), false, String(err));
  });

  it('counts deadlocks, lock and sync-wait timeouts, a node not ready and a commit cut off from the primary component as passing refusals, answered 503 once they outlast their retries', () => {
    const refusals = [
      Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213, sqlMessage: 'Deadlock found when trying to get lock' }),
      Object.assign(new Error('Lock wait timeout exceeded'), { errno: 1205, sqlMessage: 'Lock wait timeout exceeded; try restarting transaction' }),
      Object.assign(new Error('WSREP has not yet prepared node for application use'), { errno: 1047 }),
      Object.assign(new Error('COMMIT failed'), {
        errno: 1180,
        sqlMessage: 'Error while appending streaming replication fragment(provider status: Not connected to Primary Component)',
      }),
    ];
    for (const err of refusals) {
      assert.equal(isPassingRefusal(err), true, err.message);
      assert.equal(isDatabaseUnavailable(err), true, err.message);
    }
    // Another failure during COMMIT may have written something: not run again, not a 503.
    const otherCommitError = Object.assign(new Error('Got error 5 during COMMIT'), { errno: 1180, sqlMessage: 'Got error 5 "Input/output error" during COMMIT' });
    const duplicate = Object.assign(new Error('Duplicate entry'), { errno: 1062, code: 'ER_DUP_ENTRY' });
    for (const err of [otherCommitError, duplicate, new Error('boom'), undefined, null, 'text']) {
      assert.equal(isPassingRefusal(err), false, String(err));
      assert.equal(isDatabaseUnavailable(err), false, String(err));
    }
  });
});
