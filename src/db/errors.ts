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

/** The database cannot be reached (refused, timed out, gone away, pool exhausted). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  const name = (err as { name?: string }).name ?? '';
  return (
    ['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ECONNRESET'].includes(code) ||
    name === 'KnexTimeoutError'
  );
}

/** A value longer than its column (MySQL in strict mode); the column name, when the driver gives it. */
export function tooLongColumn(err: unknown): string | undefined {
  if ((err as { code?: string }).code !== 'ER_DATA_TOO_LONG') return undefined;
  return /column '([^']+)'/.exec(String((err as { sqlMessage?: string }).sqlMessage ?? ''))?.[1] ?? 'value';
}
