import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../core/config.js';
import { RoundSchedule } from '../core/rounds.js';
import { CHANGE_TYPES } from '../db/change-log.js';
import { onCommitted } from '../db/commit-signal.js';
import { NAMESPACE } from '../openapi/document.js';
import { cursorExpired } from '../records/change-feed.js';
import { ChangeFeedCache } from '../repositories/changes.js';
import { Repositories } from '../repositories/registry.js';
import { banPattern, type UrlLayout } from './ban-pattern.js';
import { sendBan, type BanResult } from './ban-request.js';
import type { PurgeMetrics } from './metrics.js';
import { purgeScope } from './purge-scope.js';

/**
 * The cache purger of one process (PURGE_URL; docs/caching.md "Making writes visible at once"). It
 * follows the change feed from the committed position at start-up, as the webhook delivery loop does
 * (webhooks/worker.ts): it reads the changes committed after its position (ChangeRepository.page, up
 * to the committed position), and sends the cache one BAN per batch whose regex covers every URL
 * those changes can alter. Its position moves only once the cache has acknowledged the BAN, so a
 * cache that is down, answers 5xx or times out gets the same batch again later, after a growing
 * pause, and nothing is lost. It wakes at once after a write of this process (db/commit-signal.ts)
 * and reads the feed every second otherwise, which is how other processes' writes reach it: every
 * process of a cluster follows the shared feed, so each write is banned by each process (a BAN
 * twice is harmless). Requests never wait for it.
 */

export interface PurgerOptions {
  db: Knex;
  config: Pick<Config, 'publicUrl' | 'basePath'> & { purgeUrl: string };
  logger: Logger;
  metrics?: PurgeMetrics;
  /** Pause between reads of the feed when nothing wakes the purger (1 s). */
  pollMs?: number;
  /** Pause between a write of this process and the read of the feed it wakes (WAKE_MS). */
  wakeMs?: number;
  /** Longest wait for the cache's answer (2 s). */
  timeoutMs?: number;
  /** Pause after the first failure, doubled after each further one (1 s), and its ceiling (30 s). */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface CachePurger {
  /** Resolves once the start-up position is read: writes committed from then on are this purger's to ban. */
  ready: Promise<void>;
  /** Stops reading the feed and waits for the round under way (a BAN in flight is bounded by the timeout). */
  stop(): Promise<void>;
}

/** Changes per BAN at most: a batch's regex stays short, and a long backlog goes in several. */
const BATCH = 200;
/**
 * A write of this process is looked for this long after its commit, so that the writes of a burst
 * share one BAN (what a BAN costs a write: `npm run bench -- --probe purge`).
 */
const WAKE_MS = 50;
/** Repeated failures are logged at most this often (the first one at once). */
const WARN_EVERY_MS = 30_000;

export function startCachePurger(options: PurgerOptions): CachePurger {
  const loop = new PurgeLoop(options);
  loop.start();
  return { ready: loop.ready, stop: () => loop.stop() };
}

/** PUBLIC_URL's path prefix, BASE_PATH and the namespace: where the cache holds the service's URLs. */
export function urlLayout(config: Pick<Config, 'publicUrl' | 'basePath'>): UrlLayout {
  const prefix = config.publicUrl === undefined ? '' : new URL(config.publicUrl).pathname.replace(/\/+$/, '');
  return { prefix, basePath: config.basePath, namespace: NAMESPACE };
}

/** A BAN not yet acknowledged, and the position the feed moves to once it is. */
interface Batch {
  pattern: string;
  upTo: number;
  changes: number;
}

class PurgeLoop {
  private readonly logger: Logger;
  private readonly layout: UrlLayout;
  private readonly pollMs: number;
  private readonly wakeMs: number;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  /** The feed's position acknowledged by the cache; undefined until read at start-up. */
  private position: number | undefined;
  private pending: Batch | undefined;
  private failures = 0;
  private lastWarnMs = 0;
  private stopping = false;
  private readonly rounds: RoundSchedule;
  private unsubscribe: () => void = () => undefined;
  private started: () => void = () => undefined;
  readonly ready = new Promise<void>((resolve) => (this.started = resolve));

  /** The change feed's key and position this purger reads between rounds (repositories/changes.ts). */
  private readonly feedCache: ChangeFeedCache;

  constructor(private readonly options: PurgerOptions) {
    this.feedCache = new ChangeFeedCache(options.db);
    this.logger = options.logger.child({ component: 'cache-purge' });
    this.layout = urlLayout(options.config);
    this.pollMs = options.pollMs ?? 1000;
    this.wakeMs = options.wakeMs ?? WAKE_MS;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.retryMs = options.retryMs ?? 1000;
    this.maxRetryMs = options.maxRetryMs ?? 30_000;
    // No gap between rounds: a round's read of the position is the cheap remembered one.
    this.rounds = new RoundSchedule({ gapMs: 0, againMs: this.wakeMs, idleMs: this.pollMs, run: () => this.tick() });
  }

  start(): void {
    // A write of this process: look shortly (the writes of the next WAKE_MS share one BAN), unless
    // the cache is failing (then the pause decides).
    this.unsubscribe = onCommitted(this.options.db, () => {
      if (this.failures === 0) this.rounds.ask(this.wakeMs);
    });
    this.rounds.ask(0);
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.unsubscribe();
    this.rounds.stop();
    await this.rounds.current;
    // One last round for the writes that committed since (the requests finished before this is
    // called, main.ts), unless the cache is failing: then the cache's max-age bounds them.
    if (this.failures === 0 && this.position !== undefined) await this.round(true).catch((err: unknown) => this.logger.warn({ err }, 'the last cache purge failed'));
  }

  /** A round, and the delay before the next: a backlog goes on at once, a failing cache waits a growing pause. */
  private async tick(): Promise<number | void> {
    try {
      const progressed = await this.round();
      if (this.failures > 0) return Math.min(this.maxRetryMs, this.retryMs * 2 ** (this.failures - 1));
      if (progressed) return 0;
    } catch (err) {
      // The database failed (away, or the pool closing): the position is unchanged, the next round reads again.
      this.warn({ err }, 'reading the change feed for the cache purge failed; the next round tries again');
      return this.pollMs;
    }
    // Otherwise the schedule's rule: soon if a write committed during the round, else the poll.
  }

  /** One step: read the next batch (unless one waits for the cache), send its BAN. True when the cache acknowledged one. */
  private async round(last = false): Promise<boolean> {
    const changes = new Repositories(this.options.db, { changeFeed: this.feedCache }).changes;
    if (this.position === undefined) {
      // Writes committed before the start are the cache's max-age to bound: followed from here on.
      this.position = await changes.position();
      this.started();
      return false;
    }
    this.pending ??= await this.nextBatch(this.position);
    if (!this.pending) return false;
    if (this.stopping && !last) return false;
    const result = await sendBan(this.options.config.purgeUrl, this.pending.pattern, this.timeoutMs);
    this.record(this.pending, result);
    if (!result.ok) return false;
    this.position = this.pending.upTo;
    this.pending = undefined;
    return true;
  }

  /** The changes committed after `after` as one BAN, or undefined when there are none. */
  private async nextBatch(after: number): Promise<Batch | undefined> {
    const repositories = new Repositories(this.options.db, { changeFeed: this.feedCache });
    // The position last read while no write has committed since: one cheap read per poll when idle.
    const upTo = await repositories.changes.cachedPosition();
    if (upTo <= after) return undefined;
    // Tombstones after the position were purged (the cache was unreachable longer than
    // CHANGES_RETENTION_DAYS): which records went is no longer known, so everything goes.
    if (cursorExpired(after, await repositories.changes.state())) {
      const all = { events: 'all', venues: 'all', organizers: 'all', categories: 'all', tags: 'all' } as const;
      return { pattern: banPattern(all, this.layout), upTo, changes: 0 };
    }
    const rows = await repositories.changes.page(after, upTo, CHANGE_TYPES, BATCH + 1);
    const batch = rows.slice(0, BATCH);
    // A full batch ends at its last change; a shorter one covers everything up to the position read.
    const end = rows.length > BATCH ? batch[batch.length - 1].seq : upTo;
    if (batch.length === 0) {
      this.position = end;
      return undefined;
    }
    return { pattern: banPattern(await purgeScope(repositories, batch), this.layout), upTo: end, changes: batch.length };
  }

  private record(batch: Batch, result: BanResult): void {
    this.options.metrics?.ban(result.ok);
    if (result.ok) {
      if (this.failures > 0) this.logger.info({ failures: this.failures, changes: batch.changes }, 'the cache acknowledged the purge again');
      this.failures = 0;
      this.logger.debug({ changes: batch.changes, position: batch.upTo }, 'cache purged');
      return;
    }
    this.failures++;
    this.warn(
      { statusCode: result.statusCode, error: result.error, failures: this.failures, changes: batch.changes },
      'the cache did not acknowledge a purge; it is sent again after a pause',
    );
  }

  private warn(fields: object, message: string): void {
    const now = Date.now();
    if (this.failures > 1 && now - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = now;
    this.logger.warn(fields, message);
  }
}
