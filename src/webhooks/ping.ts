import type { Knex } from 'knex';
import type { WebhookSettings } from '../core/config.js';
import type { WebhookDeliveryRow, WebhookRow } from '../repositories/webhook-rows.js';

/**
 * A signed `webhook.ping` message sent now, recorded in the delivery log (docs/webhooks.md). A stub:
 * the delivery engine (signing, sending, the log) replaces it.
 */
export async function sendPing(db: Knex, settings: WebhookSettings, webhook: WebhookRow, now: Date): Promise<WebhookDeliveryRow> {
  void db;
  void settings;
  void webhook;
  void now;
  throw new Error('sendPing: not built yet');
}
