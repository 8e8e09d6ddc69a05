/** Driver errors told apart in one place, so both engines lead to the same response. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A unique violation on an index that includes `column` (the driver names the key or the columns). */
export function isUniqueViolationOn(err: unknown, column: string): boolean {
  const text = String((err as { sqlMessage?: string }).sqlMessage ?? (err as Error).message ?? '');
  return isUniqueViolation(err) && text.includes(column);
}

/**
 * The database cannot be reached (refused, timed out, gone away, pool exhausted), or the connection
 * a statement ran on died. mysql2 marks every error that closed its connection `fatal`; a statement
 * sent on a connection that already died (typically the ROLLBACK after a write lost its connection
 * inside a transaction, which knex then reports instead of the first error) fails with a plain Error
 * that carries no code, only its message.
 */
export function isConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code = '', name = '', message = '', fatal } = err as { code?: string; name?: string; message?: string; fatal?: unknown };
  return (
    ['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ECONNRESET', 'EPIPE'].includes(code) ||
    name === 'KnexTimeoutError' ||
    fatal === true ||
    CLOSED_CONNECTION.test(String(message))
  );
}

/** mysql2's messages for a statement given to a connection that has already closed. */
const CLOSED_CONNECTION = /Can't (add new command when connection is|write) in closed state/;

/**
 * The server answers but cannot serve statements yet: a Galera node that is joining, resyncing or
 * cut off from the primary component refuses every statement with 1047 ("WSREP has not yet prepared
 * node for application use"), and a server on its way down answers 1053 (shutdown in progress).
 * Both pass by themselves, like a lost connection; neither is a fault of the request.
 */
export function isDatabaseNotReady(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, errno } = err as { code?: string; errno?: number };
  return code === 'ER_UNKNOWN_COM_ERROR' || errno === 1047 || code === 'ER_SERVER_SHUTDOWN' || errno === 1053;
}

/** The database cannot serve now but will (unreachable, or reachable and not ready): a 503, not a 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return isConnectionError(err) || isDatabaseNotReady(err);
}

/** A value longer than its column (MySQL in strict mode); the column name, when the driver gives it. */
export function tooLongColumn(err: unknown): string | undefined {
  if ((err as { code?: string }).code !== 'ER_DATA_TOO_LONG') return undefined;
  return /column '([^']+)'/.exec(String((err as { sqlMessage?: string }).sqlMessage ?? ''))?.[1] ?? 'value';
}

/**
 * A conditional write found the record at another version than the one the caller's `If-Match`
 * named (docs/contract.md §10): thrown by the repositories' write statements, which compare the
 * version in the statement itself, so the transaction rolls back and nothing changes.
 */
export class StaleVersion extends Error {
  constructor(readonly id: number) {
    super(`record ${id} is not at the expected version`);
  }
}
