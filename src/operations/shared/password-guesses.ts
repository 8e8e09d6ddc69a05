import type { Request } from 'express';
import type { Config } from '../../core/config.js';
import { clientAddress, WindowCounter } from './auth-failures.js';
import type { PasswordAttempt, ReadRequest } from '../../policies/posts.js';
import type { OperationContext, OperationId, QueryOf } from './operation.js';
import { RestError } from '../../core/errors.js';

/**
 * Slows down guessing a record's password (`?password=` on a single GET of a password-protected
 * event, venue or organizer), as failed logins are slowed down: every wrong password counts against
 * its client (IP address) and record; once a client has failed `PASSWORD_FAILURE_LIMIT` times on
 * one record within the window, each of its password attempts on that record, the right one
 * included, gets 429 `rest_too_many_requests` with `Retry-After` until the window ends. Reads
 * without a password, and callers who may edit the record (they need none), are never counted or
 * refused. Per process, like the login counter.
 */
export class PasswordGuesses {
  private readonly failures: WindowCounter;

  constructor(
    private readonly limit: number,
    windowMs: number,
  ) {
    this.failures = new WindowCounter(windowMs);
  }

  /** The guard of one password attempt by the request's client on a record. */
  attempt(req: Request, recordId: number): PasswordAttempt {
    const key = `${clientAddress(req.ip)} ${recordId}`;
    return {
      allow: () => {
        const now = Date.now();
        const window = this.failures.get(key, now);
        const seconds = window && window.count >= this.limit ? Math.max(1, Math.ceil((window.resetAt - now) / 1000)) : undefined;
        if (seconds !== undefined) {
          throw new RestError(429, 'rest_too_many_requests', 'Too many wrong passwords for this record. Try again later.', {}, { 'Retry-After': String(seconds) });
        }
      },
      failed: () => this.failures.add(key, Date.now()),
    };
  }
}

const perApp = new WeakMap<object, PasswordGuesses>();

/** The counter of the request's app (one per createApp, sized by PASSWORD_FAILURE_LIMIT and _WINDOW). */
export function passwordAttempt(req: Request, config: Config, recordId: number): PasswordAttempt {
  let guesses = perApp.get(req.app);
  if (!guesses) perApp.set(req.app, (guesses = new PasswordGuesses(config.passwordFailureLimit, config.passwordFailureWindowSeconds * 1000)));
  return guesses.attempt(req, recordId);
}

/** `parse` of single reads: the query, with the guard of password attempts on the record it names. */
export function singleReadInput<Op extends OperationId>(ctx: OperationContext<Op>): QueryOf<Op> & ReadRequest {
  return { ...ctx.query, passwordAttempt: (recordId: number) => passwordAttempt(ctx.req, ctx.config, recordId) };
}
