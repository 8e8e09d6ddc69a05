import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { createLogger } from '../core/logger.js';
import { startWebhookDelivery } from '../webhooks/worker.js';

/**
 * `cli webhooks deliver` (docs/webhooks.md "Delivery at scale"): a process that only delivers
 * webhooks, beside services started with WEBHOOK_DELIVERY=off (or beside any others: the leases share
 * the webhooks out). It is not told of the services' commits, so it looks for changes every POLL_MS.
 * It runs until SIGTERM or SIGINT, then finishes its attempts in flight and gives its leases up.
 */

export const WEBHOOKS_DELIVER_USAGE = `  webhooks deliver                                   deliver webhooks until stopped (SIGTERM), beside services with WEBHOOK_DELIVERY=off`;

const POLL_MS = 100;

export async function webhooksDeliverCommand(db: Knex, config: Config): Promise<number> {
  const logger = createLogger(config.logLevel).child({ component: 'webhooks' });
  const delivery = startWebhookDelivery({ db, config, logger, pollMs: POLL_MS });
  logger.info('delivering webhooks until SIGTERM or SIGINT');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await delivery.stop();
  logger.info('stopped delivering webhooks');
  return 0;
}
