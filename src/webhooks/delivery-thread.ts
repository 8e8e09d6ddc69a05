import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../core/logger.js';
import type { ThreadCommand, ThreadData, ThreadReport } from './thread.js';
import { startWebhookDelivery } from './worker.js';
import { openDeliveryDatabase } from './delivery-database.js';

/**
 * The delivery thread's entry (webhooks/thread.ts): the delivery loop on a database connection of its
 * own, woken by the commits the service's thread tells it of, reporting its metrics back.
 */

/**
 * The thread's scheduling priority (Linux nice values are per thread): when the machine's processors
 * are all busy, the threads answering requests go first and delivery takes what is left, so sending
 * messages does not take throughput from the API (docs/webhooks.md "Delivery at scale").
 */
const DELIVERY_NICE = 10;

const { config, metrics } = workerData as ThreadData;
const port = parentPort!;
const tell = (report: ThreadReport) => port.postMessage(report);
const logger = createLogger(config.logLevel).child({ thread: 'webhooks' });
try {
  // Only this thread: setpriority on "the calling process" changes the calling thread on Linux.
  os.setPriority(DELIVERY_NICE);
} catch (err) {
  // Not permitted (some containers) or not supported: delivery goes on at the service's priority.
  logger.warn({ err }, `the webhook delivery thread could not lower its priority to nice ${DELIVERY_NICE}; it delivers at the service's priority`);
}
const { db } = openDeliveryDatabase(config);
const listeners = new Set<() => void>();

const delivery = startWebhookDelivery({
  db,
  config,
  logger,
  metrics: metrics
    ? {
        attempt: (result, seconds) => tell({ kind: 'attempt', result, seconds }),
        behind: (webhookId, oldestMs) => tell({ kind: 'behind', webhookId, oldestMs }),
        forget: (webhookId) => tell({ kind: 'forget', webhookId }),
      }
    : undefined,
  onCommit: (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
});

port.on('message', (command: ThreadCommand) => {
  if (command.kind === 'commit') for (const listener of listeners) listener();
  else
    void delivery
      .stop()
      .catch((err: unknown) => logger.warn({ err }, 'stopping webhook deliveries failed'))
      .then(() => db.destroy())
      .finally(() => tell({ kind: 'stopped' }));
});
