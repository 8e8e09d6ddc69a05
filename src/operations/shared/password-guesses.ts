import type { Config } from '../../core/config.js';
import { RestError } from '../../core/errors.js';
import type { PasswordAttempt, ReadRequest } from '../../policies/posts.js';
import type { PasswordGuessRepository } from '../../repositories/password-guesses.js';
import { clientAddress } from './auth-failures.js';
import type { OperationContext, OperationId, QueryOf } from './operation.js';

/** How often, at most, one process deletes ended windows (on a wrong guess), in milliseconds. */
const PRUNE_EVERY_MS = 60_000;
/** Rows deleted at most per clean-up; a full batch makes the next wrong guess clean up again. */
const PRUNE_BATCH = 500;
let lastPrune = 0;

/**
 * Slows down guessing a record's password (`?password=` on a single GET of a password-protected
 * event, venue or organizer), as failed logins are slowed down: every wrong password counts against
 * its client (IP address) and record; once a client has failed `PASSWORD_FAILURE_LIMIT` times on
 * one record within the window (which starts at its first failure), each of its password attempts on
 * that record, the right one included, gets 429 `rest_too_many_requests` with `Retry-After` until the
 * window ends. Reads without a password, and callers who may edit the record (they need none), are
 * never counted or refused.
 *
 * The count lives in the database (repositories/password-guesses.ts), shared by every process of it
 * (`WORKERS`, several servers on one MySQL or cluster), so the limit is the setting's whatever the
 * number of processes. One statement per attempt: a right password reads the client's window, a
 * wrong one counts itself and learns the count in the same statement (on MySQL, a refused one reads
 * its window's end for `Retry-After`).
 */
async function countPasswordAttempt(
  guesses: PasswordGuessRepository,
  settings: { limit: number; windowMs: number },
  client: string,
  recordId: number,
  right: boolean,
  now: number,
): Promise<void> {
  if (right) {
    const window = await guesses.window(recordId, client, now);
    if (window && window.failures >= settings.limit) throw tooManyGuesses(window.windowEnds!, now);
    return;
  }
  const counted = await guesses.countFailure(recordId, client, now, settings.windowMs);
  if (now - lastPrune >= PRUNE_EVERY_MS) {
    lastPrune = now;
    if ((await guesses.prune(now, PRUNE_BATCH)) === PRUNE_BATCH) lastPrune = 0;
  }
  // The guess that used up the limit is still a plain wrong password (403); the ones after it are 429.
  if (counted.failures <= settings.limit) return;
  const windowEnds = counted.windowEnds ?? (await guesses.window(recordId, client, now))?.windowEnds ?? now;
  throw tooManyGuesses(windowEnds, now);
}

function tooManyGuesses(windowEnds: number, now: number): RestError {
  const seconds = Math.max(1, Math.ceil((windowEnds - now) / 1000));
  return new RestError(429, 'rest_too_many_requests', 'Too many wrong passwords for this record. Try again later.', {}, { 'Retry-After': String(seconds) });
}

/** The guard of password attempts by the request's client (PASSWORD_FAILURE_LIMIT per PASSWORD_FAILURE_WINDOW). */
function passwordAttempt(ctx: OperationContext<OperationId>, config: Config): PasswordAttempt {
  const settings = { limit: config.passwordFailureLimit, windowMs: config.passwordFailureWindowSeconds * 1000 };
  // The client's address is worked out only for a read that sends a password (nearly none do).
  return (recordId, right) => countPasswordAttempt(ctx.repositories.passwordGuesses, settings, clientAddress(ctx.req.ip), recordId, right, ctx.now().getTime());
}

/** `parse` of single reads: the query, with the guard of password attempts on the record it names. */
export function singleReadInput<Op extends OperationId>(ctx: OperationContext<Op>): QueryOf<Op> & ReadRequest {
  return { ...ctx.query, passwordAttempt: passwordAttempt(ctx as unknown as OperationContext<OperationId>, ctx.config) };
}
