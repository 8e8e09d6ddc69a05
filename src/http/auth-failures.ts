import { rateLimit } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { RestError } from './errors.js';

/**
 * Slows down credential guessing: a client (by IP address) whose requests carrying credentials
 * failed authentication `AUTH_FAILURE_LIMIT` times in the window gets 429 until the window ends.
 * Requests without credentials and successful ones never count, so nobody else is affected.
 */
export function limitAuthFailures(config: Config): RequestHandler {
  return rateLimit({
    windowMs: config.authFailureWindowSeconds * 1000,
    limit: config.authFailureLimit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skip: (req) => !req.headers.authorization,
    requestWasSuccessful: (_req, res) => res.statusCode !== 401,
    skipSuccessfulRequests: true,
    handler: (_req, _res, next, options) => {
      next(new RestError(429, 'rest_too_many_requests', 'Too many failed authentication attempts. Try again later.', {}, { 'Retry-After': String(Math.ceil(options.windowMs / 1000)) }));
    },
  });
}
