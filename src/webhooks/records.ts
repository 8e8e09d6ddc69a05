import type { components } from '../../generated/openapi.js';
import { CHANGE_TYPES, type ChangeType } from '../db/change-log.js';
import { formatUtc } from '../dates/storage.js';
import { encodeCursor } from '../records/change-feed.js';
import type { CursorKey } from '../repositories/changes.js';
import type { WebhookDeliveryRow, WebhookRow } from '../repositories/webhook-rows.js';

/** Webhooks and their delivery log as the API shows them (docs/webhooks.md), from their rows. */

export type Webhook = components['schemas']['Webhook'];
type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];

/**
 * The webhook's record, without its secret. `cursor` is its position as the feed's cursor (signed
 * like every cursor, records/change-feed.ts), so a client can compare it with the lists'
 * `X-TEC-Change-Cursor` or follow `GET /changes` from it; `next_attempt` shows only while retries are
 * under way.
 */
export function webhookRecord(row: WebhookRow, key: CursorKey): Webhook {
  return {
    id: row.id,
    url: row.url,
    types: typesOf(row.types),
    visibility: row.visibility,
    description: row.description,
    status: row.status,
    status_changed: row.status_changed_utc,
    status_reason: row.status_reason,
    created: row.created_utc,
    cursor: encodeCursor(key, row.position),
    failed_attempts: row.attempts,
    next_attempt: row.status === 'failing' ? formatUtc(new Date(row.next_attempt_ms)) : null,
  };
}

/** The record with its secret: only the answers of a create and of a rotation. */
export function webhookWithSecret(row: WebhookRow, key: CursorKey): WebhookWithSecret {
  return { ...webhookRecord(row, key), secret: row.secret };
}

/** The stored list of types (comma-separated) in the API's order; unknown names are left out. */
export function typesOf(stored: string): ChangeType[] {
  const names = stored.split(',');
  return CHANGE_TYPES.filter((type) => names.includes(type));
}

/** The stored list of types: each once, in the order of CHANGE_TYPES, whatever order they came in. */
export function storedTypes(types: readonly string[]): string {
  return CHANGE_TYPES.filter((type) => types.includes(type)).join(',');
}

const ACTIONS = ['updated', 'deleted'] as const;

/**
 * One attempt of the delivery log. The row keeps the message's type (`event.updated`, `webhook.ping`);
 * the change's record type and action are read from it, and are null for a message that carries no
 * change (a ping).
 */
export function deliveryRecord(row: WebhookDeliveryRow): WebhookDelivery {
  const [prefix, suffix] = row.type.split('.');
  const type = CHANGE_TYPES.find((name) => name === prefix);
  const action = ACTIONS.find((name) => name === suffix);
  const ofChange = type !== undefined && action !== undefined;
  return {
    id: row.id,
    message_id: row.message_id,
    cursor: row.cursor,
    type: ofChange ? type : null,
    action: ofChange ? action : null,
    message_type: row.type,
    attempt: row.attempt,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    attempted: row.attempted_utc,
    next_attempt: row.next_attempt_utc,
  };
}
