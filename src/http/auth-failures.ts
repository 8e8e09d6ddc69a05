import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { RestError } from './errors.js';

/**
 * Slows down credential guessing. Every request that authentication refuses (401
 * `rest_invalid_credentials`) counts against its client (IP address); once a client has failed
 * `AUTH_FAILURE_LIMIT` times within the window, its requests that carry credentials get 429 until
 * the window ends. Only real failures count, so concurrent requests with good credentials and
 * requests without credentials are never refused.
 */
export class AuthFailureLimiter {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Refuses a client that used up its failures; runs before authentication. */
  readonly guard: RequestHandler = (req, _res, next) => {
    if (!req.headers.authorization) return next();
    const entry = this.current(req.ip ?? '');
    if (entry && entry.count >= this.limit) {
      const seconds = Math.max(1, Math.ceil((entry.resetAt - Date.now()) / 1000));
      return next(new RestError(429, 'rest_too_many_requests', 'Too many failed authentication attempts. Try again later.', {}, { 'Retry-After': String(seconds) }));
    }
    next();
  };

  /** Records one refused authentication of the client. */
  recordFailure(client: string): void {
    const entry = this.current(client);
    if (entry) entry.count++;
    else this.failures.set(client, { count: 1, resetAt: Date.now() + this.windowMs });
    // Forget expired clients now and then, so the map cannot grow without bound.
    if (this.failures.size > 10_000) for (const [key, value] of this.failures) if (value.resetAt <= Date.now()) this.failures.delete(key);
  }

  private current(client: string): { count: number; resetAt: number } | undefined {
    const entry = this.failures.get(client);
    if (entry && entry.resetAt <= Date.now()) {
      this.failures.delete(client);
      return undefined;
    }
    return entry;
  }
}

export function authFailureLimiter(config: Config): AuthFailureLimiter {
  return new AuthFailureLimiter(config.authFailureLimit, config.authFailureWindowSeconds * 1000);
}
