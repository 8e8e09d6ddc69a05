import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import { askReadiness } from '../db/readiness.js';

/** `GET /healthz`: the process is alive and serving. */
export const healthz: RequestHandler = (_req, res) => {
  res.set('Cache-Control', 'no-store').json({ status: 'ok' });
};

/** How long `/readyz` waits for the database before it answers 503, in milliseconds. */
export const READINESS_BUDGET_MS = 2000;

/**
 * `GET /readyz`: the database answers (within 2 s) and every migration has run; 503 otherwise, so a
 * load balancer stops sending traffic until it recovers. The probe's statement is asked once and
 * holds no connection past the answer (db/readiness.ts).
 */
export function readyz(db: Knex): RequestHandler {
  return async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    try {
      if ((await askReadiness(db, READINESS_BUDGET_MS)) === 'migrations pending') {
        res.status(503).json({ status: 'unavailable', reason: 'migrations pending' });
        return;
      }
      res.json({ status: 'ready' });
    } catch {
      res.status(503).set('Retry-After', '5').json({ status: 'unavailable', reason: 'database unreachable' });
    }
  };
}
