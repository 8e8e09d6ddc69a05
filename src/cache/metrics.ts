import { Counter, type Registry } from 'prom-client';

/** The cache purger's metrics (docs/caching.md "Making writes visible at once"), on the registry `/metrics` serves. */
export interface PurgeMetrics {
  /** One BAN sent: acknowledged by the cache, or not (to be sent again). */
  ban(acknowledged: boolean): void;
}

export function purgeMetrics(registry: Registry): PurgeMetrics {
  const bans = new Counter({
    name: 'cache_purges_total',
    help: 'BAN requests sent to the cache (PURGE_URL), by result: acknowledged (2xx) or failed (another status, or no answer; sent again).',
    labelNames: ['result'],
    registers: [registry],
  });
  return { ban: (acknowledged) => bans.inc({ result: acknowledged ? 'acknowledged' : 'failed' }) };
}
