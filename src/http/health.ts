import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import { migrationsCurrent } from '../db/migrate.js';

/** `GET /healthz`: the process is alive and serving. */
export const healthz: RequestHandler = (_req, res) => {
  res.set('Cache-Control', 'no-store').json({ status: 'ok' });
};

/**
 * `GET /readyz`: the database answers (within 2 s) and every migration has run; 503 otherwise, so a
 * load balancer stops sending traffic until it recovers.
 */
export function readyz(db: Knex): RequestHandler {
  return async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    try {
      const check = Promise.all([db.raw('select 1'), migrationsCurrent(db)]);
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('database check timed out')), 2000).unref());
      const [, current] = await Promise.race([check, timeout]);
      if (!current) {
        res.status(503).json({ status: 'unavailable', reason: 'migrations pending' });
        return;
      }
      res.json({ status: 'ready' });
    } catch {
      res.status(503).set('Retry-After', '5').json({ status: 'unavailable', reason: 'database unreachable' });
    }
  };
}
