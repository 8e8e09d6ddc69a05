import type { Knex } from 'knex';
import { isPassingRefusal } from './errors.js';
import { pauseBefore } from './transactions.js';

/**
 * How long a statement outside a transaction is tried again after a passing refusal, in
 * milliseconds. A Galera cluster that lost a node refuses statements while its members agree on the
 * new group (docs/contract.md §18), and a node cut off for a moment was back 5.0–6.0 s after requests
 * sent meanwhile (test/cluster/failure.test.ts); a refusal that lasts longer than this is answered 503
 * with Retry-After (db/errors.ts, isDatabaseUnavailable). Well below REQUEST_TIMEOUT (30 s).
 */
export const STATEMENT_RETRY_WINDOW_MS = 10_000;

/**
 * Runs every statement sent outside a transaction again, after the same growing random pause as a
 * write transaction (db/transactions.ts), when the database refused it in a way that passes by itself
 * (db/errors.ts, isPassingRefusal): the reads that authenticate a caller or find a term before a write
 * opens its transaction, and every read of a GET. A refused statement did nothing, so running it again
 * is safe. Statements inside a transaction are not retried one by one, because the refusal rolled the
 * whole transaction back; inTransaction runs the whole transaction again instead. knex builds a
 * transaction's client from the client's class (not from this instance), so a transaction never sees
 * the wrapper installed here; test/integration/db/statement-retries.test.ts holds knex to that.
 * A statement marked ASKED_ONCE is sent once.
 */
export function retryPassingRefusals(client: Knex.Client, windowMs = STATEMENT_RETRY_WINDOW_MS): void {
  const runOnce = client.query.bind(client) as (connection: unknown, statement: unknown) => Promise<unknown>;
  client.query = async (connection: unknown, statement: unknown) => {
    if (askedOnce(statement)) return runOnce(connection, statement);
    const started = Date.now();
    let refusal: unknown;
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await runOnce(connection, statement);
        // Worth a line: a cluster that regroups shows up here first (docs/mysql-and-cluster.md "How it behaves on a cluster").
        if (refusal) client.logger.warn?.(`${REFUSED_THEN_RAN} after ${attempt - 1} refusal(s), the last: ${describe(refusal)}`);
        return result;
      } catch (err) {
        const pause = pauseBefore(attempt);
        // Stryker disable next-line EqualityOperator: `>` or `>=` differ only when the clock lands exactly on the window's end.
        if (!isPassingRefusal(err) || Date.now() - started + pause > windowMs) throw err;
        refusal = err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
}

/**
 * The query context (knex's `queryContext`) of a statement that is sent once whatever the answer:
 * a refusal is itself the answer its caller wants, and running it again would outlive the caller
 * (the readiness probe, db/readiness.ts, answers 503 at 2 s).
 */
export const ASKED_ONCE = Object.freeze({ askedOnce: true });

function askedOnce(statement: unknown): boolean {
  const context = (statement as { queryContext?: { askedOnce?: unknown } } | null)?.queryContext;
  return context?.askedOnce === true;
}

/** How the log line of a statement that ran after refusals begins (the cluster tests count them). */
export const REFUSED_THEN_RAN = 'statement ran again';

/** A passing refusal is the server's own error: it always has a number and a message. */
function describe(err: unknown): string {
  const { errno, sqlMessage } = err as { errno: number; sqlMessage: string };
  return `${errno} ${sqlMessage}`;
}
