import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * Delivery metrics (docs/webhooks.md "Metrics"), registered on the registry `/metrics` serves
 * (http/metrics.ts; main.ts hands the same registry to both), so under node:cluster they are added up
 * with the rest.
 */
export interface WebhookMetrics {
  /** One attempt at a message: `delivered` (2xx), `rejected` (another status) or `unreachable` (no answer). */
  attempt(result: AttemptLabel, seconds: number): void;
  /**
   * Where a webhook this process delivers stands: `oldestMs`, when its oldest undelivered change was
   * made, or undefined when it is caught up. The lag is that change's age at each scrape, so it grows
   * while a webhook waits for its next retry.
   */
  behind(webhookId: number, oldestMs: number | undefined): void;
  /** This process no longer delivers the webhook: its lag is another's to report. */
  forget(webhookId: number): void;
}

type AttemptLabel = 'delivered' | 'rejected' | 'unreachable';

export function webhookMetrics(registry: Registry): WebhookMetrics {
  const registers = [registry];
  const delivered = new Counter({ name: 'webhook_messages_delivered_total', help: 'Webhook messages acknowledged by their receiver.', registers });
  const failed = new Counter({ name: 'webhook_messages_failed_total', help: 'Webhook attempts that failed (another status than 2xx, or no answer).', registers });
  const attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook attempts, by result: delivered, rejected (a status other than 2xx), unreachable (no answer).',
    labelNames: ['result'],
    registers,
  });
  const duration = new Histogram({
    name: 'webhook_delivery_seconds',
    help: 'Time from connecting to a webhook receiver to the end of its answer (or the failure).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const oldest = new Map<number, number | undefined>();
  // One process delivers a webhook at a time: across cluster workers the largest value is the webhook's (the others report none).
  new Gauge({
    name: 'webhook_lag_seconds',
    help: 'Age of the oldest change not yet delivered, per webhook this process delivers (0: caught up).',
    labelNames: ['webhook'],
    aggregator: 'max',
    registers,
    collect() {
      const now = Date.now();
      this.reset();
      for (const [id, since] of oldest) this.set({ webhook: String(id) }, since === undefined ? 0 : Math.max(0, (now - since) / 1000));
    },
  });
  return {
    attempt(result, seconds) {
      attempts.inc({ result });
      duration.observe(seconds);
      if (result === 'delivered') delivered.inc();
      else failed.inc();
    },
    behind(webhookId, oldestMs) {
      oldest.set(webhookId, oldestMs);
    },
    forget(webhookId) {
      oldest.delete(webhookId);
    },
  };
}
