/** Driver errors told apart in one place, so both engines lead to the same response. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * A row names a row that does not exist (a foreign key): on a write, a record the body named was
 * deleted by another request after the body was checked.
 */
export function isMissingReference(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
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

/**
 * The statement did nothing and may simply run again in a moment (docs/contract.md §18):
 * - 1213, a deadlock, which is also how a Galera node reports a write that lost certification to a
 *   concurrent write through another node;
 * - 1205, a lock wait timeout, which is also how MariaDB reports a read whose `wsrep_sync_wait`
 *   failed (no lock is involved: the node could not learn the cluster's latest commit, typically while
 *   the group changes its members after a node died);
 * - 1047, a Galera node that is not ready (see isDatabaseNotReady);
 * - 1180 at COMMIT with the provider's status "Not connected to Primary Component": the node was cut
 *   off from the primary component for a moment, could not replicate the write set, and rolled the
 *   transaction back;
 * - SQLITE_BUSY from a SQLite file another process wrote (isSqliteBusy).
 */
export function isPassingRefusal(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { errno, sqlMessage = '', code = '' } = err as { errno?: number; sqlMessage?: string; code?: string };
  return errno === 1213 || errno === 1205 || errno === 1047 || (errno === 1180 && NOT_PRIMARY.test(sqlMessage)) || isSqliteBusy(code);
}

/**
 * SQLite: another process wrote the same file first (a `cli` command, a second service during a
 * deploy, a restore check). A transaction that began by reading cannot become a writer once another
 * connection has written since: SQLite answers SQLITE_BUSY (or SQLITE_BUSY_SNAPSHOT) at once, without
 * waiting out busy_timeout, and the transaction must start again to see the newer data.
 */
function isSqliteBusy(code: string): boolean {
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT';
}

/** The Galera provider's status of a node outside the primary component, as MariaDB quotes it. */
const NOT_PRIMARY = /Not connected to Primary Component/i;

/**
 * The database cannot serve now but will (unreachable, not ready, or still refusing after the
 * retries of a passing refusal): a 503 with Retry-After, not a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return isConnectionError(err) || isDatabaseNotReady(err) || isPassingRefusal(err);
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

/**
 * A write found no row to change, or a write's answer no row to read back: a concurrent delete
 * committed between this request's read of the record and its write (or its answer). Thrown inside
 * the transaction it rolls the write back (nothing is noted in the change log for a record that is
 * gone); the caller gets the 404 of a record that does not exist (http/error-middleware.ts).
 */
export class RecordGone extends Error {
  constructor(
    /** `term`, or the post's type (`event`, `venue`, `organizer`). */
    readonly type: string,
    readonly id: number,
  ) {
    super(`${type} ${id} is gone: deleted by a concurrent request`);
  }
}
