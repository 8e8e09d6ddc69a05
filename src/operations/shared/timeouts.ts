import type { RequestHandler, Response } from 'express';
import { RestError } from '../../core/errors.js';

/**
 * REQUEST_TIMEOUT: a request still unanswered after `seconds` gets 503 `rest_request_timeout` with
 * `Retry-After`, so a slow or stuck database never leaves clients (or a load balancer) waiting
 * without an answer. The work itself is not cancelled: a write that finishes later still commits
 * whole or not at all (one transaction), and its late answer is dropped.
 */
export function requestTimeout(seconds: number): RequestHandler {
  return (req, res, next) => {
    const expire = () => {
      if (res.headersSent) return;
      req.log.warn({ timeoutSeconds: seconds }, 'request timed out');
      const error = new RestError(503, 'rest_request_timeout', 'The request took too long. Try again shortly.', {}, { 'Retry-After': '5' });
      res.set(error.headers).status(error.status).json(error.toBody());
      // The handler's own answer may still come: drop it rather than fail on headers already sent.
      const ignore = () => res;
      Object.assign(res, { status: ignore, set: ignore, append: ignore, json: ignore, send: ignore });
    };
    let timer = setTimeout(expire, seconds * 1000);
    // A request that waits on purpose (GET /changes with `wait`) gets its wait on top of the timeout.
    res.locals[EXTEND as unknown as string] = (extraSeconds: number) => {
      clearTimeout(timer);
      timer = setTimeout(expire, (seconds + extraSeconds) * 1000);
    };
    // Stop the clock when the response is done or the client has gone.
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    next();
  };
}

const EXTEND = Symbol('extendRequestTimeout');

/** Restarts the request's timeout clock with `extraSeconds` more than REQUEST_TIMEOUT (a long poll's wait). */
export function extendRequestTimeout(res: Response, extraSeconds: number): void {
  const extend = res.locals[EXTEND as unknown as string] as ((extra: number) => void) | undefined;
  extend?.(extraSeconds);
}
