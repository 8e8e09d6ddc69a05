import type { Knex } from 'knex';
import { engineOf } from '../db/engine.js';
import { inStateTransaction, requireTransaction } from '../db/transactions.js';
import { noteRecordChange } from './posts.js';
import { storedList, withNumbers } from './driver-rows.js';

/**
 * Subscriptions and their runs (db/migrations/20261203000100_create_subscriptions.ts,
 * docs/importing.md "Subscribing to a calendar"): what administrators manage, and what the scheduler
 * (importing/scheduler.ts) needs: the due list, leases (one process runs a subscription at a time, as
 * webhooks have: repositories/webhook-queue.ts), the outcome of a run, the run log. Subscriptions are
 * in no change feed and no cached reply: their writes run in `inStateTransaction`. The records a
 * subscription imports are ordinary records, written by the import engine.
 */

export type SubscriptionType = 'ical' | 'tec-site';

export interface SubscriptionRow {
  id: number;
  url: string;
  type: SubscriptionType;
  refresh_minutes: number;
  /** Category ids given to every imported event. */
  categories: number[];
  /** The status imported events get; null: the source's. */
  status: string | null;
  owner_id: number;
  etag: string | null;
  last_modified: string | null;
  next_run_ms: number;
  failures: number;
  last_run_utc: string | null;
  last_error: string | null;
  lease_holder: string | null;
  lease_until_ms: number;
  created_utc: string;
  modified_utc: string;
}

export interface SubscriptionRunRow {
  id: number;
  subscription_id: number;
  cause: 'schedule' | 'refresh';
  started_utc: string;
  duration_ms: number;
  http_status: number | null;
  outcome: 'applied' | 'not-modified' | 'failed';
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
  failed: number;
  errors: string[];
}

type NewRun = Omit<SubscriptionRunRow, 'id'>;

/** What PATCH may change; undefined: unchanged. */
export interface SubscriptionChanges {
  url?: string;
  type?: SubscriptionType;
  refresh_minutes?: number;
  categories?: number[];
  status?: string | null;
}

/** `next_run_ms` of a subscription whose run was asked for while a process held it (see `requestRun`). */
const REQUESTED = -1;

/** The runs kept per subscription (older ones are deleted as new ones are written). */
const RUNS_KEPT = 100;

function subscriptionRowOf(raw: Record<string, unknown>): SubscriptionRow {
  const row = withNumbers<SubscriptionRow>(raw, ['id', 'refresh_minutes', 'owner_id', 'next_run_ms', 'failures', 'lease_until_ms']);
  return { ...row, categories: storedList(raw.categories).map(Number).filter(Number.isSafeInteger) };
}

function runRowOf(raw: Record<string, unknown>): SubscriptionRunRow {
  const row = withNumbers<SubscriptionRunRow>(raw, ['id', 'subscription_id', 'duration_ms', 'http_status', 'created', 'updated', 'unchanged', 'removed', 'failed']);
  return { ...row, errors: storedList(raw.errors).map(String) };
}

export class SubscriptionRepository {
  constructor(private readonly db: Knex) {}

  async create(input: {
    url: string;
    type: SubscriptionType;
    refreshMinutes: number;
    categories: number[];
    status: string | null;
    ownerId: number;
    nowUtc: string;
  }): Promise<number> {
    const trx = requireTransaction(this.db);
    const [id] = await trx('subscriptions').insert({
      url: input.url,
      type: input.type,
      refresh_minutes: input.refreshMinutes,
      categories: JSON.stringify(input.categories),
      status: input.status,
      owner_id: input.ownerId,
      etag: null,
      last_modified: null,
      // Due at once: the first run fetches the source.
      next_run_ms: 0,
      failures: 0,
      last_run_utc: null,
      last_error: null,
      lease_holder: null,
      lease_until_ms: 0,
      created_utc: input.nowUtc,
      modified_utc: input.nowUtc,
    });
    return Number(id);
  }

  /** How many subscriptions there are, read inside a create's transaction (locked on MySQL, as webhooks count). */
  async countForCreate(): Promise<number> {
    const trx = requireTransaction(this.db);
    const query = trx('subscriptions').count({ n: '*' });
    const [row] = await (engineOf(trx) === 'mysql' ? query.forUpdate() : query);
    return Number(row.n);
  }

  async findById(id: number): Promise<SubscriptionRow | undefined> {
    const row = await this.db('subscriptions').where('id', id).first();
    return row ? subscriptionRowOf(row) : undefined;
  }

  /** Every subscription, oldest first. */
  async list(): Promise<SubscriptionRow[]> {
    return (await this.db('subscriptions').orderBy('id').select()).map(subscriptionRowOf);
  }

  /**
   * Changes a subscription. A new URL or type forgets the validators (the next answer is read whole)
   * and makes it due now, as a new refresh interval does from its last run.
   */
  async update(id: number, changes: SubscriptionChanges, nowUtc: string): Promise<boolean> {
    const trx = requireTransaction(this.db);
    const row: Record<string, unknown> = { modified_utc: nowUtc };
    if (changes.url !== undefined) row.url = changes.url;
    if (changes.type !== undefined) row.type = changes.type;
    if (changes.refresh_minutes !== undefined) row.refresh_minutes = changes.refresh_minutes;
    if (changes.categories !== undefined) row.categories = JSON.stringify(changes.categories);
    if (changes.status !== undefined) row.status = changes.status;
    if (changes.url !== undefined || changes.type !== undefined) Object.assign(row, { etag: null, last_modified: null, next_run_ms: REQUESTED, failures: 0 });
    return Number(await trx('subscriptions').where('id', id).update(row)) > 0;
  }

  /** Deletes a subscription and its runs; false when it did not exist. */
  async delete(id: number): Promise<boolean> {
    const trx = requireTransaction(this.db);
    await trx('subscription_runs').where('subscription_id', id).delete();
    return Number(await trx('subscriptions').where('id', id).delete()) > 0;
  }

  /**
   * Makes a subscription due now (POST /subscriptions/{id}/refresh when another process holds it):
   * `next_run_ms` REQUESTED, which the holder's `finishRun` keeps as due (0) instead of writing its
   * own next run, and which a claim turns into 0 (a run that starts after the request answers it).
   */
  async requestRun(id: number): Promise<boolean> {
    return inStateTransaction(this.db, async (trx) => Number(await trx('subscriptions').where('id', id).update({ next_run_ms: REQUESTED })) > 0);
  }

  /** Up to `limit` subscriptions due at `nowMs` that `holder` may take (lease lapsed or its own), the longest due first. */
  async due(holder: string, nowMs: number, limit: number): Promise<SubscriptionRow[]> {
    const rows = await this.db('subscriptions')
      .where('next_run_ms', '<=', nowMs)
      .where((free) => free.where('lease_until_ms', '<', nowMs).orWhere('lease_holder', holder))
      .orderBy([{ column: 'next_run_ms' }, { column: 'id' }])
      .limit(limit);
    return rows.map(subscriptionRowOf);
  }

  /** Takes the lease of one subscription until `untilMs` when it is free or `holder`'s; the row as held, or undefined. */
  async claim(id: number, holder: string, nowMs: number, untilMs: number): Promise<SubscriptionRow | undefined> {
    return inStateTransaction(this.db, async (trx) => {
      const taken = await trx('subscriptions')
        .where('id', id)
        .where((free) => free.where('lease_until_ms', '<', nowMs).orWhere('lease_holder', holder))
        .update({ lease_holder: holder, lease_until_ms: untilMs, next_run_ms: trx.raw('CASE WHEN next_run_ms = ? THEN 0 ELSE next_run_ms END', [REQUESTED]) });
      if (Number(taken) === 0) return undefined;
      const row = await trx('subscriptions').where('id', id).first();
      return row ? subscriptionRowOf(row) : undefined;
    });
  }

  /** Extends `holder`'s leases of these subscriptions. */
  async renew(holder: string, ids: readonly number[], untilMs: number): Promise<void> {
    if (ids.length === 0) return;
    await inStateTransaction(this.db, (trx) => trx('subscriptions').whereIn('id', ids).where('lease_holder', holder).update({ lease_until_ms: untilMs }));
  }

  /** Gives up `holder`'s lease of one subscription (taken, then found not due after all). */
  async letGo(id: number, holder: string): Promise<void> {
    await inStateTransaction(this.db, (trx) => trx('subscriptions').where('id', id).where('lease_holder', holder).update({ lease_holder: null, lease_until_ms: 0 }));
  }

  /** Gives up every lease `holder` has (a process stopping). */
  async release(holder: string): Promise<void> {
    await inStateTransaction(this.db, (trx) => trx('subscriptions').where('lease_holder', holder).update({ lease_holder: null, lease_until_ms: 0 }));
  }

  /**
   * Records a run and what it leaves in the subscription (the validators, the next run, the failures
   * in a row, the lease given up), in one transaction guarded by the lease: when another process took
   * the subscription over meanwhile (or it was deleted), nothing is written. Older runs beyond
   * RUNS_KEPT go. Returns the run's id, or undefined when the guard failed.
   */
  async finishRun(
    held: { id: number; holder: string },
    run: NewRun,
    state: { etag?: string | null; lastModified?: string | null; nextRunMs: number; failures: number; lastError: string | null },
  ): Promise<number | undefined> {
    return inStateTransaction(this.db, async (trx) => {
      const current = await trx('subscriptions').where('id', held.id).where('lease_holder', held.holder).forUpdate().first('id');
      if (!current) return undefined;
      const [id] = await trx('subscription_runs').insert({ ...run, errors: JSON.stringify(run.errors) });
      const changes: Record<string, unknown> = {
        // A run asked for meanwhile (requestRun) stays due.
        next_run_ms: trx.raw('CASE WHEN next_run_ms = ? THEN 0 ELSE ? END', [REQUESTED, state.nextRunMs]),
        failures: state.failures,
        last_error: state.lastError,
        last_run_utc: run.started_utc,
        lease_holder: null,
        lease_until_ms: 0,
      };
      if (state.etag !== undefined) changes.etag = state.etag;
      if (state.lastModified !== undefined) changes.last_modified = state.lastModified;
      await trx('subscriptions').where('id', held.id).update(changes);
      const old = await trx('subscription_runs').where('subscription_id', held.id).orderBy('id', 'desc').offset(RUNS_KEPT).limit(1000).pluck('id');
      if (old.length) await trx('subscription_runs').whereIn('id', old).delete();
      return Number(id);
    });
  }

  /** One page of a subscription's runs, newest first, and how many it has. */
  async runs(subscriptionId: number, page: { offset: number; limit: number }): Promise<{ rows: SubscriptionRunRow[]; total: number }> {
    const [{ n }] = await this.db('subscription_runs').where('subscription_id', subscriptionId).count({ n: '*' });
    const rows = await this.db('subscription_runs').where('subscription_id', subscriptionId).orderBy('id', 'desc').offset(page.offset).limit(page.limit).select();
    return { rows: rows.map(runRowOf), total: Number(n) };
  }

  /**
   * Up to `limit` events a subscription manages lose their `managed_by` (the subscription is being
   * deleted): a change of each record (new version, noted for the change feed). Returns how many.
   */
  async releaseEvents(subscriptionId: number, limit: number): Promise<number> {
    const trx = requireTransaction(this.db);
    const ids = (await trx('events').where('managed_subscription', subscriptionId).orderBy('post_id').limit(limit).pluck('post_id')).map(Number);
    if (ids.length === 0) return 0;
    await trx('events').whereIn('post_id', ids).update({ managed_subscription: null, managed_source_id: null });
    await trx('posts')
      .whereIn('id', ids)
      .update({ version: trx.raw('version + 1') });
    for (const id of ids) noteRecordChange(trx, 'event', id);
    return ids.length;
  }

  /**
   * Marks an event, and the occurrences of the series it starts, as managed by a subscription (in the
   * transaction that writes it; later occurrences copy it from the first event).
   */
  async manageEvent(eventId: number, subscriptionId: number, sourceId: string): Promise<void> {
    await requireTransaction(this.db)('events')
      .where((which) => which.where('post_id', eventId).orWhere('series_id', eventId))
      .update({ managed_subscription: subscriptionId, managed_source_id: sourceId });
  }

  /** Forgets the import bookkeeping of a source (its records stay, as ordinary records). */
  async forgetSource(sourceKey: string): Promise<void> {
    const trx = requireTransaction(this.db);
    await trx('import_origins').where('source_key', sourceKey).delete();
    await trx('import_sources').where('source_key', sourceKey).delete();
  }
}
