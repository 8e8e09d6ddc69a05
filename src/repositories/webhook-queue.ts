import type { Knex } from 'knex';
import { inStateTransaction } from '../db/transactions.js';
import { deliveryRowOf, webhookRowOf, type WebhookDeliveryRow, type WebhookRow, type WebhookStatus } from './webhook-rows.js';

/**
 * The SQL of delivering webhooks (docs/webhooks.md "Guarantees"): leases, the attempts and the state
 * they move, expiry, and the pruning of the delivery log. The webhooks are managed by
 * repositories/webhooks.ts. Every write runs in `inStateTransaction`: delivery state is shown by no
 * cached reply and no change feed, so it neither writes the change log nor bumps the data version.
 *
 * A process holds a webhook by its lease (`lease_holder`, `lease_until_ms`), and every write that
 * follows an attempt is guarded by the lease and by the position the message was read from: when
 * another process has taken the webhook over meanwhile (this one stalled past its lease), or the
 * position moved, the write changes nothing and the attempt's result is dropped.
 */

/** Statuses that deliver; `paused`, `disabled` and `expired` wait for an administrator. */
export const DELIVERING: readonly WebhookStatus[] = ['active', 'failing'];

/** Which webhook, held by whom, delivered from which position: what every write after an attempt checks. */
export interface Held {
  id: number;
  holder: string;
  position: number;
}

/** A delivery log row before it is written (its id comes from the insert). */
export type NewDelivery = Omit<WebhookDeliveryRow, 'id'>;

/** A failed attempt: `attempts` failures at this message; retried at `nextAttemptMs` while `failing`, or `disabled`. */
export interface Failure {
  attempts: number;
  nextAttemptMs: number;
  status: 'failing' | 'disabled';
  reason: string;
}

/**
 * What a turn of attempts leaves in the webhook's row: acknowledged messages move the position to the
 * last of them and forget the failures; a failure after them sets the retries.
 */
interface TurnOutcome {
  delivered?: number;
  failure?: Failure;
}

/** A webhook's turn: its attempts, in order, and what they leave. */
export interface Turn {
  held: Held;
  deliveries: NewDelivery[];
  outcome: TurnOutcome;
}

export class WebhookQueueRepository {
  constructor(private readonly db: Knex) {}

  /**
   * Up to `limit` webhooks that have something to deliver now and that `holder` may take: delivering
   * statuses, due (`next_attempt_ms`), behind the committed position `upTo`, and free (lease lapsed)
   * or already held by `holder`, and not among `excluding` (those it is delivering now). Those with
   * the fewest failures at their next message first (a receiver that keeps failing never goes before
   * a healthy one), then the oldest due, then the furthest behind, so that a few busy webhooks do not
   * keep the others waiting.
   */
  async due(holder: string, nowMs: number, upTo: number, limit: number, excluding: readonly number[] = []): Promise<WebhookRow[]> {
    const rows = await this.db('webhooks')
      .whereIn('status', DELIVERING)
      .whereNotIn('id', excluding)
      .where('next_attempt_ms', '<=', nowMs)
      .where('position', '<', upTo)
      .where((free) => free.where('lease_until_ms', '<', nowMs).orWhere('lease_holder', holder))
      .orderBy([{ column: 'attempts' }, { column: 'next_attempt_ms' }, { column: 'position' }, { column: 'id' }])
      .limit(limit);
    return rows.map(webhookRowOf);
  }

  /**
   * Takes (or keeps) the lease of one webhook until `untilMs` when it has lapsed or is `holder`'s
   * already; returns the webhook as held, undefined when another process holds it.
   */
  async claim(id: number, holder: string, nowMs: number, untilMs: number): Promise<WebhookRow | undefined> {
    return inStateTransaction(this.db, async (trx) => {
      const taken = await trx('webhooks')
        .where('id', id)
        .where((free) => free.where('lease_until_ms', '<', nowMs).orWhere('lease_holder', holder))
        .update({ lease_holder: holder, lease_until_ms: untilMs });
      if (Number(taken) === 0) return undefined;
      const row = await trx('webhooks').where('id', id).first();
      return row ? webhookRowOf(row) : undefined;
    });
  }

  /** The webhook as it is now, when `holder`'s lease on it is still valid at `nowMs`. */
  async heldBy(id: number, holder: string, nowMs: number): Promise<WebhookRow | undefined> {
    const row = await this.db('webhooks').where('id', id).where('lease_holder', holder).where('lease_until_ms', '>=', nowMs).first();
    return row ? webhookRowOf(row) : undefined;
  }

  /** Extends `holder`'s leases of these webhooks to `untilMs`; returns the ids still held. */
  async renew(holder: string, ids: readonly number[], untilMs: number): Promise<number[]> {
    if (ids.length === 0) return [];
    return inStateTransaction(this.db, async (trx) => {
      await trx('webhooks').whereIn('id', ids).where('lease_holder', holder).update({ lease_until_ms: untilMs });
      const rows = await trx('webhooks').whereIn('id', ids).where('lease_holder', holder).select('id');
      return rows.map((row) => Number(row.id));
    });
  }

  /** Gives up every lease `holder` has (a process stopping), so others take them over at once. */
  async release(holder: string): Promise<void> {
    await inStateTransaction(this.db, (trx) => trx('webhooks').where('lease_holder', holder).update({ lease_holder: null, lease_until_ms: 0 }));
  }

  /**
   * Records turns of several webhooks in one transaction (docs/webhooks.md "Delivery at scale"): each
   * turn's delivery log rows and what they leave in its webhook, guarded by its `held`. A webhook an
   * administrator paused (or that expired) meanwhile keeps its status; acknowledged messages still
   * move its position. Returns, per turn, false when its guard failed (nothing of it written).
   */
  async recordTurns(turns: readonly Turn[], nowUtc: string): Promise<boolean[]> {
    return inStateTransaction(this.db, async (trx) => {
      const written: boolean[] = [];
      const rows: NewDelivery[] = [];
      for (const { held, deliveries, outcome } of turns) {
        const current = await guarded(trx, held).forUpdate().first('status');
        written.push(current !== undefined);
        if (!current) continue;
        rows.push(...deliveries);
        await trx('webhooks')
          .where('id', held.id)
          .update(changesOf(outcome, current.status, nowUtc));
      }
      // One statement for every row (in chunks, below any engine's limit on parameters).
      for (let start = 0; start < rows.length; start += 200) await trx('webhook_deliveries').insert(rows.slice(start, start + 200));
      return written;
    });
  }

  /**
   * Moves the position past changes of types the webhook does not receive (up to `to`, where the
   * next change of its types, if any, lies after), in one statement whatever their number.
   */
  async skip(held: Held, to: number): Promise<boolean> {
    return inStateTransaction(this.db, async (trx) => Number(await guarded(trx, held).update({ position: to })) > 0);
  }

  /** The webhook's cursor fell out of the feed's retention: `expired`, for good. */
  async expire(held: Held, reason: string, nowUtc: string): Promise<boolean> {
    return inStateTransaction(
      this.db,
      async (trx) =>
        Number(await guarded(trx, held).whereIn('status', DELIVERING).update({ status: 'expired', status_reason: reason, status_changed_utc: nowUtc, next_attempt_ms: 0 })) > 0,
    );
  }

  /** Writes a delivery log row on its own (a ping, which moves no position); returns it with its id. */
  async insertDelivery(delivery: NewDelivery): Promise<WebhookDeliveryRow> {
    return inStateTransaction(this.db, async (trx) => {
      const [inserted] = await trx('webhook_deliveries').insert(delivery);
      // SQLite and MySQL both give the new id as the insert's result.
      const row = await trx('webhook_deliveries').where('id', Number(inserted)).first();
      return deliveryRowOf(row);
    });
  }

  /**
   * Deletes up to `batch` of the webhook's delivery log rows beyond its newest `keep`, oldest first;
   * returns how many. The edge is found on the (webhook, id) index, whatever the log holds.
   */
  async pruneBeyond(webhookId: number, keep: number, batch: number): Promise<number> {
    return inStateTransaction(this.db, async (trx) => {
      const edge = await trx('webhook_deliveries').where('webhook_id', webhookId).orderBy('id', 'desc').offset(keep).first('id');
      if (!edge) return 0;
      const ids = (await trx('webhook_deliveries').where('webhook_id', webhookId).where('id', '<=', edge.id).orderBy('id').limit(batch).select('id')).map((row) => Number(row.id));
      return ids.length === 0 ? 0 : Number(await trx('webhook_deliveries').whereIn('id', ids).delete());
    });
  }

  /** The ids of every webhook (at most 100), for the pruning of their logs. */
  async ids(): Promise<number[]> {
    return (await this.db('webhooks').select('id')).map((row) => Number(row.id));
  }

  /** Deletes up to `batch` delivery log rows attempted before `beforeMs`, oldest first; returns how many. */
  async prune(beforeMs: number, batch: number): Promise<number> {
    return inStateTransaction(this.db, async (trx) => {
      const ids = (await trx('webhook_deliveries').where('attempted_ms', '<', beforeMs).orderBy('attempted_ms').limit(batch).select('id')).map((row) => Number(row.id));
      if (ids.length === 0) return 0;
      return Number(await trx('webhook_deliveries').whereIn('id', ids).delete());
    });
  }
}

/** The columns a turn changes in its webhook's row, whose status is `status`. */
function changesOf(outcome: TurnOutcome, status: WebhookStatus, nowUtc: string): Record<string, unknown> {
  const delivering = DELIVERING.includes(status);
  const changes: Record<string, unknown> = {};
  if (outcome.delivered !== undefined) {
    Object.assign(changes, { position: outcome.delivered, attempts: 0, next_attempt_ms: 0 });
    if (delivering) Object.assign(changes, { status: 'active', status_reason: null });
  }
  const { failure } = outcome;
  if (failure) {
    Object.assign(changes, { attempts: failure.attempts, next_attempt_ms: failure.nextAttemptMs });
    if (delivering) Object.assign(changes, { status: failure.status, status_reason: failure.reason });
  }
  if (changes.status !== undefined && changes.status !== status) changes.status_changed_utc = nowUtc;
  return changes;
}

/** The webhook's row while `held` still holds: same lease holder, same position. */
function guarded(trx: Knex.Transaction, held: Held): Knex.QueryBuilder {
  return trx('webhooks').where('id', held.id).where('lease_holder', held.holder).where('position', held.position);
}
