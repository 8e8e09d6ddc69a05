import { withNumbers } from './driver-rows.js';

/**
 * The rows of `webhooks` and `webhook_deliveries` (db/migrations/20261201000100_create_webhooks.ts,
 * docs/webhooks.md), shared by the repository that manages webhooks (repositories/webhooks.ts) and
 * the one that delivers them (repositories/webhook-queue.ts).
 */

export type WebhookStatus = 'active' | 'paused' | 'failing' | 'disabled' | 'expired';

export type WebhookVisibility = 'public' | 'owner';

export interface WebhookRow {
  id: number;
  url: string;
  /** Comma-separated change types (db/change-log.ts ChangeType). */
  types: string;
  visibility: WebhookVisibility;
  owner_id: number;
  description: string;
  status: WebhookStatus;
  /** UTC, `YYYY-MM-DD HH:MM:SS`. */
  status_changed_utc: string;
  status_reason: string | null;
  secret: string;
  previous_secret: string | null;
  /** Milliseconds since the epoch; 0 when there is no previous secret. */
  previous_secret_until_ms: number;
  /** The feed position (changes.seq) of the last change acknowledged or skipped. */
  position: number;
  /** Failed attempts at the message after `position`. */
  attempts: number;
  /** When the next attempt is due, milliseconds since the epoch (0: now). */
  next_attempt_ms: number;
  lease_holder: string | null;
  lease_until_ms: number;
  created_utc: string;
  modified_utc: string;
}

export interface WebhookDeliveryRow {
  id: number;
  webhook_id: number;
  message_id: string;
  cursor: string | null;
  position: number | null;
  /** The message's type: `event.updated`, `tag.deleted`, `webhook.ping`. */
  type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_utc: string;
  attempted_ms: number;
  next_attempt_utc: string | null;
}

export function webhookRowOf(raw: Record<string, unknown>): WebhookRow {
  return withNumbers<WebhookRow>(raw, ['id', 'owner_id', 'previous_secret_until_ms', 'position', 'attempts', 'next_attempt_ms', 'lease_until_ms']);
}

export function deliveryRowOf(raw: Record<string, unknown>): WebhookDeliveryRow {
  return withNumbers<WebhookDeliveryRow>(raw, ['id', 'webhook_id', 'position', 'attempt', 'status_code', 'duration_ms', 'attempted_ms']);
}
