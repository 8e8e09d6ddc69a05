import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../core/config.js';
import { formatUtc } from '../dates/storage.js';
import { SubscriptionRepository, type SubscriptionRow, type SubscriptionRunRow } from '../repositories/subscriptions.js';
import { releaseSubscription, runSubscription, type RunResult } from './subscription-run.js';

/**
 * The subscriptions' schedule (docs/importing.md "Subscribing to a calendar"). Every process of the
 * service looks every SUBSCRIPTION_POLL_SECONDS for subscriptions that are due and free, takes their
 * leases (one process runs a subscription at a time, as webhooks' deliveries: webhooks/worker.ts),
 * and runs at most SUBSCRIPTION_CONCURRENCY at once, each in the background, so a slow or failing
 * source holds one slot and never the others. A run's outcome sets the next: `refresh_minutes` after
 * a run that read the source, a growing pause after a failure (`backoffMs`).
 *
 * `POST /subscriptions/{id}/refresh` runs one now through `refreshNow`, in the process that answers.
 */

/** How long a lease lasts without renewal; renewed every third of it while a run goes on. */
const SUBSCRIPTION_LEASE_MS = 60_000;
/** The longest pause after failures in a row (a subscription refreshed less often waits its own interval). */
export const MAX_BACKOFF_MS = 24 * 3_600_000;

/**
 * When a subscription runs again after `failures` failures in a row (0: the last run read the source):
 * its interval, doubled for each failure (2×, 4×, 8×, …), at most MAX_BACKOFF_MS (or its interval, when longer).
 */
export function backoffMs(refreshMinutes: number, failures: number): number {
  const interval = refreshMinutes * 60_000;
  if (failures <= 0) return interval;
  return Math.max(interval, Math.min(interval * 2 ** Math.min(failures, 20), MAX_BACKOFF_MS));
}

/**
 * This process's subscription runs: its lease holder's name and the runs under way, by subscription
 * id. One per service (main.ts), shared by the schedule and the refresh requests (http/app.ts), so a
 * refresh of a subscription the schedule is running here joins that run instead of starting another.
 */
export class SubscriptionRuns {
  readonly holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`.slice(0, 200);
  readonly running = new Map<number, Promise<SubscriptionRunRow | undefined>>();
}

interface RunSettings {
  db: Knex;
  config: Config;
  runs: SubscriptionRuns;
  logger?: Logger;
  now?: () => number;
}

/**
 * Runs a subscription this process has claimed, renewing its lease meanwhile, and records the run;
 * the run's row, or undefined when the lease was lost (another process's result stands).
 */
async function runHeld(settings: RunSettings, sub: SubscriptionRow, cause: SubscriptionRunRow['cause']): Promise<SubscriptionRunRow | undefined> {
  const { db, config } = settings;
  const now = settings.now ?? Date.now;
  const repository = new SubscriptionRepository(db);
  const { holder } = settings.runs;
  const renewal = setInterval(() => {
    repository.renew(holder, [sub.id], now() + SUBSCRIPTION_LEASE_MS).catch((err: unknown) => settings.logger?.warn({ err }, 'renewing a subscription lease failed'));
  }, SUBSCRIPTION_LEASE_MS / 3);
  renewal.unref();
  const startedMs = now();
  let result: RunResult;
  try {
    result = await runSubscription(db, config, sub);
  } catch (err) {
    // The database (not the source) failed: told as a failed run, tried again after the back-off.
    settings.logger?.warn({ err, subscription: sub.id }, 'a subscription run failed');
    result = {
      httpStatus: null,
      outcome: 'failed',
      counts: { created: 0, updated: 0, unchanged: 0, removed: 0, failed: 0 },
      errors: [`the run failed: ${(err as Error).message}`.slice(0, 500)],
    };
  } finally {
    clearInterval(renewal);
  }
  const failures = result.outcome === 'failed' ? sub.failures + 1 : 0;
  const finishedMs = now();
  const run = {
    subscription_id: sub.id,
    cause,
    started_utc: formatUtc(new Date(startedMs)),
    duration_ms: Math.max(0, finishedMs - startedMs),
    http_status: result.httpStatus,
    outcome: result.outcome,
    ...result.counts,
    errors: result.errors,
  };
  const id = await repository.finishRun({ id: sub.id, holder }, run, {
    etag: result.etag,
    lastModified: result.lastModified,
    nextRunMs: finishedMs + backoffMs(sub.refresh_minutes, failures),
    failures,
    lastError: result.outcome === 'failed' ? (result.errors[0] ?? null) : null,
  });
  if (result.outcome === 'failed') settings.logger?.info({ subscription: sub.id, failures, error: result.errors[0] }, 'subscription run failed; backing off');
  // Deleted while it ran: what the run wrote is released as the delete released the rest.
  if (id === undefined && !(await repository.findById(sub.id))) await releaseSubscription(db, sub.id);
  return id === undefined ? undefined : { id, ...run };
}

/** Claims and runs one subscription in the background of this process (once: a run already under way here is returned). */
function start(settings: RunSettings, sub: SubscriptionRow, cause: SubscriptionRunRow['cause']): Promise<SubscriptionRunRow | undefined> | undefined {
  const runs = settings.runs.running;
  const under = runs.get(sub.id);
  if (under) return under;
  const task = runHeld(settings, sub, cause).finally(() => runs.delete(sub.id));
  runs.set(sub.id, task);
  return task;
}

/** What a refresh request did: ran it (`run`), or left it to the process that holds it, due now (`queued`). */
type RefreshOutcome = { kind: 'ran'; run: Promise<SubscriptionRunRow | undefined> } | { kind: 'queued' } | { kind: 'missing' };

/** POST /subscriptions/{id}/refresh: the subscription's lease taken and a run started here, or it is made due now for its holder. */
export async function refreshNow(settings: RunSettings, id: number): Promise<RefreshOutcome> {
  const own = settings.runs.running.get(id);
  if (own) return { kind: 'ran', run: own };
  const repository = new SubscriptionRepository(settings.db);
  const nowMs = (settings.now ?? Date.now)();
  const sub = await repository.claim(id, settings.runs.holder, nowMs, nowMs + SUBSCRIPTION_LEASE_MS);
  if (sub) return { kind: 'ran', run: start(settings, sub, 'refresh') as Promise<SubscriptionRunRow | undefined> };
  return (await repository.requestRun(id)) ? { kind: 'queued' } : { kind: 'missing' };
}

interface SchedulerOptions extends RunSettings {
  logger: Logger;
  /** Pause between looks for due subscriptions (SUBSCRIPTION_POLL_SECONDS). */
  pollMs?: number;
}

interface SubscriptionScheduler {
  /** One look for due subscriptions, resolved when the runs it started have finished (tests). */
  tick(): Promise<void>;
  /** Stops looking, waits for the runs under way (up to `waitMs`), gives the leases up. */
  stop(waitMs?: number): Promise<void>;
}

export function startSubscriptionScheduler(options: SchedulerOptions, autostart = true): SubscriptionScheduler {
  const { db, config, logger } = options;
  const { holder, running: runs } = options.runs;
  const now = options.now ?? Date.now;
  const repository = new SubscriptionRepository(db);
  const pollMs = options.pollMs ?? config.subscriptions.pollSeconds * 1000;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let lastWarnMs = 0;

  const round = async (): Promise<Array<Promise<unknown>>> => {
    const free = config.subscriptions.concurrency - runs.size;
    if (free <= 0 || stopping) return [];
    const started: Array<Promise<unknown>> = [];
    const nowMs = now();
    for (const row of await repository.due(holder, nowMs, free + runs.size)) {
      if (stopping || runs.size >= config.subscriptions.concurrency) break;
      if (runs.has(row.id)) continue;
      const held = await repository.claim(row.id, holder, nowMs, nowMs + SUBSCRIPTION_LEASE_MS);
      if (!held) continue;
      // Another process ran it between the list and the claim: not due any more.
      if (held.next_run_ms > nowMs) {
        await repository.letGo(held.id, holder);
        continue;
      }
      const task = start(options, held, 'schedule');
      if (task) started.push(task.catch((err: unknown) => logger.warn({ err, subscription: row.id }, 'recording a subscription run failed')));
    }
    return started;
  };

  const loop = (): void => {
    if (stopping) return;
    timer = setTimeout(() => {
      round()
        .catch((err: unknown) => {
          if (now() - lastWarnMs > 30_000) logger.warn({ err }, 'looking for due subscriptions failed; the next look tries again');
          lastWarnMs = now();
        })
        .finally(loop);
    }, pollMs);
    timer.unref();
  };
  if (autostart) {
    // The first look soon after the start (within a second), then every pollMs.
    timer = setTimeout(
      () =>
        void round()
          .catch(() => undefined)
          .finally(loop),
      Math.min(1000, pollMs),
    );
    timer.unref();
  }

  return {
    async tick() {
      await Promise.all(await round());
    },
    async stop(waitMs = 10_000) {
      stopping = true;
      clearTimeout(timer);
      const bound = new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref());
      await Promise.race([Promise.allSettled([...runs.values()]), bound]);
      await repository.release(holder).catch((err: unknown) => logger.warn({ err }, 'releasing subscription leases failed; they lapse by themselves'));
    },
  };
}
