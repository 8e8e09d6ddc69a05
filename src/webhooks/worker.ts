import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config, WebhookSettings } from '../core/config.js';
import type { Urls } from '../core/urls.js';
import { formatUtc } from '../dates/storage.js';
import { cursorExpired } from '../records/change-feed.js';
import { Repositories } from '../repositories/registry.js';
import { DELIVERING, WebhookQueueRepository, type AttemptOutcome, type Held } from '../repositories/webhook-queue.js';
import type { WebhookRow } from '../repositories/webhook-rows.js';
import type { Resolver } from './destinations.js';
import type { WebhookMetrics } from './metrics.js';
import { deliveryUrls, isoOfUtc, nextMessage, type Message } from './messages.js';
import { sendMessage, type AttemptResult } from './sender.js';
import { signingSecrets } from './signing.js';

/**
 * The delivery loop of one process (docs/webhooks.md "Guarantees", "Retries and ordering"). Every
 * ~500 ms it looks for webhooks with something to deliver (delivering status, due, behind the feed,
 * lease free or its own), takes their leases, and sends each one message: the first change after its
 * position, as records/change-feed.ts gives it to the webhook's viewer. One message per webhook at a
 * time, in feed order, and at most WEBHOOK_CONCURRENCY in flight per process; a webhook that just
 * delivered goes on at once. All network I/O is asynchronous and each round does bounded work, so
 * requests never wait for deliveries.
 */

export interface DeliveryOptions {
  db: Knex;
  config: Config;
  logger: Logger;
  metrics?: WebhookMetrics;
  /** Pause between rounds (500 ms). */
  pollMs?: number;
  /** How the sender's check resolves names before connecting (tests only; webhooks/sender.ts). */
  resolve?: Resolver;
}

export interface WebhookDelivery {
  /** Stops looking for work, waits for the attempts in flight (bounded by WEBHOOK_TIMEOUT), gives the leases up. */
  stop(): Promise<void>;
  /**
   * What a process's death leaves behind, for tests: the rounds and renewals stop, results still in
   * flight are never recorded, and the leases stay until they lapse.
   */
  abandon(): void;
}

const POLL_MS = 500;
/** The delivery log keeps 30 days; older rows go in batches of 1,000, one batch a round. */
const LOG_DAYS = 30;
const PRUNE_BATCH = 1000;
const PRUNE_EVERY_MS = 10 * 60_000;
/** Repeated failures of the loop itself (database away) are logged at most this often. */
const WARN_EVERY_MS = 30_000;

const EXPIRED_REASON =
  "The change feed no longer holds the changes after this webhook's cursor (tombstones older than CHANGES_RETENTION_DAYS were purged). Read the lists again and create a new webhook.";

export function startWebhookDelivery(options: DeliveryOptions): WebhookDelivery {
  const loop = new DeliveryLoop(options);
  loop.start();
  return { stop: () => loop.stop(), abandon: () => loop.abandon() };
}

class DeliveryLoop {
  private readonly logger: Logger;
  private readonly settings: WebhookSettings;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** Unique per start, so two loops of one process (tests) are two holders. */
  private readonly holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`.slice(0, 200);
  private readonly queue: WebhookQueueRepository;
  private readonly urls: Urls;
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Webhooks whose lag this process reports. */
  private readonly lagging = new Set<number>();
  private stopping = false;
  private abandoned = false;
  private ticking = false;
  /** The round under way, which stop() lets finish before the leases are given up. */
  private current: Promise<void> = Promise.resolve();
  private again = false;
  private nextPruneMs = 0;
  private lastWarnMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly options: DeliveryOptions) {
    this.logger = options.logger.child({ component: 'webhooks' });
    this.settings = options.config.webhooks;
    this.leaseMs = this.settings.leaseSeconds * 1000;
    this.pollMs = options.pollMs ?? POLL_MS;
    this.queue = new WebhookQueueRepository(options.db);
    this.urls = deliveryUrls(options.config);
  }

  start(): void {
    // Leases of the webhooks in flight are renewed well before they lapse: an attempt may take up to
    // WEBHOOK_TIMEOUT, longer than a short lease.
    this.renewal = setInterval(() => {
      if (this.inFlight.size === 0) return;
      this.queue.renew(this.holder, [...this.inFlight.keys()], Date.now() + this.leaseMs).catch((err: unknown) => this.warn(err, 'renewing webhook leases failed'));
    }, this.leaseMs / 3);
    this.renewal.unref();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    if (this.stopping && !this.abandoned) return;
    this.halt();
    const bound = new Promise<void>((resolve) => setTimeout(resolve, this.settings.timeoutSeconds * 1000 + 5000).unref());
    await Promise.race([this.current.then(() => Promise.allSettled([...this.inFlight.values()])), bound]);
    await this.queue.release(this.holder).catch((err: unknown) => this.logger.warn({ err }, 'releasing webhook leases failed; they lapse after WEBHOOK_LEASE_SECONDS'));
    for (const id of this.lagging) this.forget(id);
  }

  abandon(): void {
    this.abandoned = true;
    this.halt();
  }

  private halt(): void {
    this.stopping = true;
    clearTimeout(this.timer);
    clearInterval(this.renewal);
  }

  private warn(err: unknown, message: string): void {
    const now = Date.now();
    if (now - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = now;
    this.logger.warn({ err }, message);
  }

  /** The next round after `delayMs`; rounds never overlap (a round asked for during one follows it at once). */
  private schedule(delayMs: number): void {
    if (this.stopping) return;
    if (this.ticking) {
      this.again ||= delayMs === 0;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => (this.current = this.tick()), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    this.again = false;
    try {
      await this.round();
    } catch (err) {
      this.warn(err, 'webhook delivery round failed; the next round tries again');
    } finally {
      this.ticking = false;
      this.schedule(this.again ? 0 : this.pollMs);
    }
  }

  private async round(): Promise<void> {
    const now = Date.now();
    if (now >= this.nextPruneMs) {
      const pruned = await this.queue.prune(now - LOG_DAYS * 86_400_000, PRUNE_BATCH);
      this.nextPruneMs = pruned === PRUNE_BATCH ? now : now + PRUNE_EVERY_MS;
    }
    const free = this.settings.concurrency - this.inFlight.size;
    if (free <= 0 || this.stopping) return;
    // One read of the committed position for every webhook of the round: changes past it wait for the next.
    const upTo = await new Repositories(this.options.db).changes.rememberedPosition();
    for (const row of await this.queue.due(this.holder, now, upTo, free + this.inFlight.size)) {
      if (this.stopping || this.inFlight.size >= this.settings.concurrency) break;
      if (!this.inFlight.has(row.id)) this.begin(row, upTo);
    }
  }

  private begin(row: WebhookRow, upTo: number): void {
    const task = this.deliverOne(row, upTo).then(
      (progressed) => {
        this.inFlight.delete(row.id);
        // The next message of a webhook that delivered goes out now, not at the next round.
        if (progressed) this.schedule(0);
      },
      (err: unknown) => {
        this.inFlight.delete(row.id);
        this.warn(err, 'a webhook delivery failed on the database; its message is sent again');
      },
    );
    this.inFlight.set(row.id, task);
  }

  /** One step of one webhook: expire it, skip changes of other types, or send its next message. True when a message was acknowledged. */
  private async deliverOne(row: WebhookRow, upTo: number): Promise<boolean> {
    const webhook = await this.hold(row);
    if (!webhook) return false;
    const held: Held = { id: webhook.id, holder: this.holder, position: webhook.position };
    const repositories = new Repositories(this.options.db);
    if (cursorExpired(webhook.position, await repositories.changes.state())) {
      if (await this.queue.expire(held, EXPIRED_REASON, formatUtc(new Date())))
        this.logger.info({ webhook: webhook.id }, 'webhook expired: the feed no longer holds the changes after its cursor');
      this.forget(webhook.id);
      return false;
    }
    const next = await nextMessage(repositories, webhook, this.urls, upTo);
    if (next.kind === 'caught-up') {
      this.behind(webhook.id, undefined);
      if (next.skipTo > webhook.position) await this.queue.skip(held, next.skipTo);
      return false;
    }
    this.behind(webhook.id, Date.parse(isoOfUtc(next.message.changedUtc)));
    return this.attempt(webhook, held, next.message, next.hasMore);
  }

  /** The webhook with this process's lease on it, or undefined when another holds it or it stopped being due. */
  private async hold(row: WebhookRow): Promise<WebhookRow | undefined> {
    const now = Date.now();
    // A lease of ours with more than half its time left needs no write, but the row is read again:
    // the round's list may predate a delivery that finished meanwhile, and its position would send the
    // message just acknowledged a second time.
    const webhook =
      row.lease_holder === this.holder && row.lease_until_ms - now > this.leaseMs / 2
        ? await this.queue.heldBy(row.id, this.holder, now)
        : await this.queue.claim(row.id, this.holder, now, now + this.leaseMs);
    if (!webhook || !DELIVERING.includes(webhook.status) || webhook.next_attempt_ms > now) return undefined;
    return webhook;
  }

  private async attempt(webhook: WebhookRow, held: Held, message: Message, hasMore: boolean): Promise<boolean> {
    const started = new Date();
    const outgoing = { messageId: message.id, body: message.body, secrets: signingSecrets(webhook, started) };
    const result = await sendMessage(webhook.url, outgoing, { ...this.settings, resolve: this.options.resolve });
    // A dead process records nothing (tests: abandon()).
    if (this.abandoned) return false;
    this.options.metrics?.attempt(result.ok ? 'delivered' : result.statusCode === null ? 'unreachable' : 'rejected', result.durationMs / 1000);
    // Failures so far at this message: a webhook set back to `active` (after `disabled`) starts a new series of retries.
    const failures = webhook.status === 'failing' ? webhook.attempts : 0;
    const outcome: AttemptOutcome = result.ok
      ? { kind: 'delivered', position: message.position }
      : failureOf(result, failures + 1, this.settings.retryDelaysSeconds, started.getTime() + result.durationMs);
    const delivery = {
      webhook_id: webhook.id,
      message_id: message.id,
      cursor: message.cursor,
      position: message.position,
      type: message.type,
      attempt: failures + 1,
      status_code: result.statusCode,
      error: result.error,
      duration_ms: result.durationMs,
      attempted_utc: formatUtc(started),
      attempted_ms: started.getTime(),
      next_attempt_utc: outcome.kind === 'failed' && outcome.status === 'failing' ? formatUtc(new Date(outcome.nextAttemptMs)) : null,
    };
    // Another process took the webhook over meanwhile: its result stands, this one is dropped.
    if (!(await this.queue.recordAttempt(held, delivery, outcome, formatUtc(new Date())))) return false;
    if (outcome.kind === 'failed') {
      // A disabled webhook waits for an administrator, not for this process.
      if (outcome.status === 'disabled') this.forget(webhook.id);
      this.logger.info(
        { webhook: webhook.id, message: message.id, status: outcome.status, statusCode: result.statusCode, error: result.error },
        `webhook attempt failed; ${outcome.status}`,
      );
      return false;
    }
    if (!hasMore) this.behind(webhook.id, undefined);
    return true;
  }

  private behind(id: number, oldestMs: number | undefined): void {
    this.lagging.add(id);
    this.options.metrics?.behind(id, oldestMs);
  }

  private forget(id: number): void {
    this.lagging.delete(id);
    this.options.metrics?.forget(id);
  }
}

/**
 * What failed attempt number `attempt` at a message leaves: on failure n, `failing` with the next attempt
 * after the n-th pause of WEBHOOK_RETRY_DELAYS lengthened by up to 20 % (so that receivers coming back
 * are not all hit at once), or `disabled` once the pauses are used up.
 */
export function failureOf(result: AttemptResult, attempt: number, delaysSeconds: readonly number[], nowMs: number): AttemptOutcome {
  const reason = result.error ?? `the receiver answered ${result.statusCode}`;
  if (attempt > delaysSeconds.length) return { kind: 'failed', attempts: attempt, nextAttemptMs: 0, status: 'disabled', reason };
  const pause = delaysSeconds[attempt - 1] * 1000 * (1 + Math.random() * 0.2);
  return { kind: 'failed', attempts: attempt, nextAttemptMs: nowMs + Math.round(pause), status: 'failing', reason };
}
