import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { formatUtc } from '../dates/storage.js';
import { WebhookQueueRepository } from '../repositories/webhook-queue.js';
import type { WebhookDeliveryRow, WebhookRow } from '../repositories/webhook-rows.js';
import { sendMessage, type SendSettings } from './sender.js';
import { signingSecrets } from './signing.js';

/**
 * `POST /webhooks/{id}/ping` (docs/webhooks.md "Subscribing"): a signed `webhook.ping` message sent
 * now, whatever the webhook's status, through the same sender and checks as every message, and
 * recorded in its delivery log. It moves neither the cursor nor the retries.
 */
export async function sendPing(db: Knex, settings: SendSettings, webhook: WebhookRow, now: Date): Promise<WebhookDeliveryRow> {
  // A ping is its own message: an id no change's message has (those are msg_{webhook}_{position}_{history}).
  const messageId = `msg_${webhook.id}_ping_${crypto.randomBytes(8).toString('hex')}`;
  const body = JSON.stringify({ type: 'webhook.ping', timestamp: now.toISOString(), data: { webhook_id: webhook.id } });
  const result = await sendMessage(webhook.url, { messageId, body, secrets: signingSecrets(webhook, now) }, settings);
  return new WebhookQueueRepository(db).insertDelivery({
    webhook_id: webhook.id,
    message_id: messageId,
    cursor: null,
    position: null,
    type: 'webhook.ping',
    attempt: 1,
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
    attempted_utc: formatUtc(now),
    attempted_ms: now.getTime(),
    next_attempt_utc: null,
  });
}
