import type { Request } from 'express';
import type { User } from '../auth/capabilities.js';
import type { Config } from '../core/config.js';
import { Urls } from '../core/urls.js';
import type { Repositories } from '../repositories/registry.js';
import type { WebhookRow } from '../repositories/webhook-rows.js';

/**
 * What a webhook is sent (docs/webhooks.md "Messages"): one message per change of the feed, built by
 * the feed itself (records/change-feed.ts), so `data` is exactly the change `GET /changes` gives the
 * webhook's viewer, record included.
 */

export interface Message {
  /** `webhook-id`: `msg_{webhook}_{position in base 36}_{history or 0}`, the same on every attempt. */
  id: string;
  /** `event.updated`, `venue.deleted`, … */
  type: string;
  /** The JSON sent and signed. */
  body: string;
  /** The change's feed position and cursor. */
  position: number;
  cursor: string;
  /** When the change was made (UTC, `YYYY-MM-DD HH:MM:SS`). */
  changedUtc: string;
}

/**
 * Who the webhook reads the feed as: nobody (an anonymous caller) for `public`; for `owner` the
 * administrator who created it, or nobody once that user no longer exists (a webhook never sees more
 * than its owner could).
 */
export async function viewerOf(repositories: Repositories, webhook: Pick<WebhookRow, 'visibility' | 'owner_id'>): Promise<User | undefined> {
  if (webhook.visibility !== 'owner') return undefined;
  return repositories.users.findById(webhook.owner_id);
}

/**
 * The message id: unique per webhook and change, and per feed history, since a restore starts a new
 * history whose positions may repeat earlier ones with other content (docs/durability.md "The change feed after a restore");
 * the history is the one the change was made in (repositories/changes.ts `historyAt`).
 */
export function messageId(webhookId: number, position: number, history: string): string {
  return `msg_${webhookId}_${position.toString(36)}_${history || '0'}`;
}

/** `2026-11-27 10:15:00` → `2026-11-27T10:15:00.000Z`. */
export function isoOfUtc(utc: string): string {
  return new Date(`${utc.replace(' ', 'T')}Z`).toISOString();
}

/**
 * The absolute URLs in messages, which no request gives a host for: PUBLIC_URL (set it behind any
 * public address: docs/production.md "Public address"), else the first of ALLOWED_HOSTS, else this machine's port.
 */
export function deliveryUrls(config: Config): Urls {
  const allowed = config.allowedHosts?.[0];
  const host = allowed ? `${allowed.host}${allowed.port === undefined ? '' : `:${allowed.port}`}` : `localhost:${config.port}`;
  // Urls reads only the scheme and the Host of a request.
  const request = { protocol: 'http', get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined) };
  return new Urls(config, request as unknown as Request);
}
