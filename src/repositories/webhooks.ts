import type { Knex } from 'knex';
import { engineOf } from '../db/engine.js';
import { requireTransaction } from '../db/transactions.js';
import { deliveryRowOf, webhookRowOf, type WebhookDeliveryRow, type WebhookRow, type WebhookStatus, type WebhookVisibility } from './webhook-rows.js';

/** How long messages carry the previous secret's signature too after a rotation (docs/webhooks.md "Subscribing"). */
const PREVIOUS_SECRET_MS = 24 * 3_600_000;

/** A new webhook's row, as the service decided it. */
interface NewWebhook {
  url: string;
  /** Comma-separated change types. */
  types: string;
  visibility: WebhookVisibility;
  ownerId: number;
  description: string;
  secret: string;
  /** The feed position it starts after. */
  position: number;
  /** UTC, `YYYY-MM-DD HH:MM:SS`. */
  nowUtc: string;
}

/** What PATCH may change (docs/webhooks.md "Subscribing"); undefined: unchanged. */
interface WebhookChanges {
  url?: string;
  types?: string;
  description?: string;
  status?: Extract<WebhookStatus, 'active' | 'paused'>;
}

/** Why an update was not made: the webhook is gone, or expired and asked to become active. */
type UpdateRefusal = 'missing' | 'expired';

/**
 * The webhooks as administrators manage them (docs/webhooks.md): create, read, change, delete,
 * rotate the secret, and read the delivery log. Their delivery (leases, attempts, the cursor) is
 * repositories/webhook-queue.ts. Writes run in `inStateTransaction` (db/transactions.ts): webhooks
 * are not in the change feed and no cached reply shows them, so no write here notes a change.
 */
export class WebhookRepository {
  constructor(private readonly db: Knex) {}

  async create(webhook: NewWebhook): Promise<number> {
    const trx = requireTransaction(this.db);
    const [id] = await trx('webhooks').insert({
      url: webhook.url,
      types: webhook.types,
      visibility: webhook.visibility,
      owner_id: webhook.ownerId,
      description: webhook.description,
      status: 'active',
      status_changed_utc: webhook.nowUtc,
      status_reason: null,
      secret: webhook.secret,
      previous_secret: null,
      previous_secret_until_ms: 0,
      position: webhook.position,
      attempts: 0,
      next_attempt_ms: 0,
      lease_holder: null,
      lease_until_ms: 0,
      created_utc: webhook.nowUtc,
      modified_utc: webhook.nowUtc,
    });
    return Number(id);
  }

  async findById(id: number): Promise<WebhookRow | undefined> {
    const row = await this.db('webhooks').where('id', id).first();
    return row ? webhookRowOf(row) : undefined;
  }

  /** Every webhook, oldest first (ids grow with creation). */
  /**
   * How many webhooks there are, read inside a create's transaction. On MySQL the read locks what it
   * counts, so two creates at once count one after the other and the cap holds (on SQLite writes
   * are serial anyway).
   */
  async countForCreate(): Promise<number> {
    const trx = requireTransaction(this.db);
    const query = trx('webhooks').count({ n: '*' });
    const [row] = await (engineOf(trx) === 'mysql' ? query.forUpdate() : query);
    return Number(row.n);
  }

  async list(): Promise<WebhookRow[]> {
    return (await this.db('webhooks').orderBy('id').select()).map(webhookRowOf);
  }

  /**
   * Changes a webhook, its row locked so that the status it is judged on is the one it replaces. A new
   * status records when it changed and clears the reason; becoming `active` again starts the retry
   * schedule afresh (delivery resumes from the cursor now, the failed message first). An `expired`
   * webhook cannot become active: nothing after its cursor can be delivered exactly.
   */
  async update(id: number, changes: WebhookChanges, nowUtc: string): Promise<UpdateRefusal | undefined> {
    const trx = requireTransaction(this.db);
    const raw = await trx('webhooks').where('id', id).forUpdate().first('status');
    if (!raw) return 'missing';
    const current = raw.status as WebhookStatus;
    const row: Record<string, unknown> = { modified_utc: nowUtc };
    if (changes.url !== undefined) row.url = changes.url;
    if (changes.types !== undefined) row.types = changes.types;
    if (changes.description !== undefined) row.description = changes.description;
    if (changes.status !== undefined && changes.status !== current) {
      if (current === 'expired') return 'expired';
      Object.assign(row, { status: changes.status, status_changed_utc: nowUtc, status_reason: null });
      if (changes.status === 'active') Object.assign(row, { attempts: 0, next_attempt_ms: 0 });
    }
    await trx('webhooks').where('id', id).update(row);
    return undefined;
  }

  /** Deletes a webhook and its delivery log; false when it did not exist. */
  async delete(id: number): Promise<boolean> {
    const trx = requireTransaction(this.db);
    await trx('webhook_deliveries').where('webhook_id', id).delete();
    return (await trx('webhooks').where('id', id).delete()) > 0;
  }

  /** Replaces the secret; the old one still signs messages for PREVIOUS_SECRET_MS. False when the webhook did not exist. */
  async rotateSecret(id: number, secret: string, nowMs: number, nowUtc: string): Promise<boolean> {
    const trx = requireTransaction(this.db);
    const raw = await trx('webhooks').where('id', id).forUpdate().first('secret');
    if (!raw) return false;
    await trx('webhooks')
      .where('id', id)
      .update({ secret, previous_secret: raw.secret, previous_secret_until_ms: nowMs + PREVIOUS_SECRET_MS, modified_utc: nowUtc });
    return true;
  }

  /** One page of a webhook's delivery log, newest first, and the number of attempts it holds. */
  async deliveries(webhookId: number, page: { offset: number; limit: number }): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
    const [{ n }] = await this.db('webhook_deliveries').where('webhook_id', webhookId).count({ n: '*' });
    const rows = await this.db('webhook_deliveries').where('webhook_id', webhookId).orderBy('id', 'desc').offset(page.offset).limit(page.limit).select();
    return { rows: rows.map(deliveryRowOf), total: Number(n) };
  }
}
