import crypto from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config, WebhookSettings } from '../core/config.js';
import { onCommitted } from '../db/commit-signal.js';
import { formatUtc } from '../dates/storage.js';
import { cursorExpired } from '../records/change-feed.js';
import { ChangeFeedCache, type FeedState } from '../repositories/changes.js';
import { Repositories } from '../repositories/registry.js';
import { DELIVERING, WebhookQueueRepository, type Failure, type Held, type NewDelivery } from '../repositories/webhook-queue.js';
import type { WebhookRow } from '../repositories/webhook-rows.js';
import type { Resolver } from '../core/outbound.js';
import { MessageBuilder } from './builds.js';
import { ReceiverConnections } from './connections.js';
import type { WebhookMetrics } from './metrics.js';
import { deliveryUrls, isoOfUtc, type Message } from './messages.js';
import { TurnRecorder } from './recorder.js';
import { RoundSchedule } from '../core/rounds.js';
import { deliveryOf, failureOf, originOf } from './outcomes.js';
import { checkedWithin, sendMessage, type AttemptResult } from './sender.js';
import { signingSecrets } from './signing.js';

/**
 * The delivery loop of one process (docs/webhooks.md "Guarantees", "Retries and ordering", "Delivery
 * at scale"). It wakes at every commit of this process (its rounds at least ROUND_GAP_MS apart) and
 * at least every ~500 ms, looks for webhooks with something to deliver (delivering status, due,
 * behind the feed, lease free or its own), takes their leases and gives each a turn: up to
 * TURN_MESSAGES of its next changes, sent one at a time in feed order over a kept connection, then
 * recorded with the other turns that ended meanwhile in one transaction (webhooks/recorder.ts). A
 * change is built once for every webhook that sees it alike (webhooks/builds.ts).
 *
 * Fairness: a webhook has one turn at a time, and while it reads and builds its messages the turn
 * holds one of WEBHOOK_CONCURRENCY slots (the database and processor work); its sending holds none,
 * so waiting on a receiver costs a socket, never another webhook's time, and at most one message per
 * webhook is in flight. An attempt unanswered after SLOW_MS ends its turn and marks the webhook and its
 * receiver slow; a webhook whose last attempt failed or was slow, or whose receiver was slow for
 * another webhook within a minute, goes after the healthy ones and may hold at most half the slots
 * together with the others like it. Failing webhooks back off by the retry schedule.
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
  /** Calls its argument after each commit of the service; returns what stops that. Default: the commits on `db` (db/commit-signal.ts). */
  onCommit?: (listener: () => void) => () => void;
}

interface DeliveryCounts {
  rounds: number;
  built: number;
  shared: number;
  transactions: number;
  turns: number;
}

export interface WebhookDelivery {
  /** Stops looking for work, waits for the attempts in flight (bounded by WEBHOOK_TIMEOUT), gives the leases up. */
  stop(): Promise<void>;
  /**
   * What a process's death leaves behind, for tests: the rounds and renewals stop, results still in
   * flight are never recorded, and the leases stay until they lapse.
   */
  abandon(): void;
  /** Rounds begun, changes built and shared, transactions and turns recorded (the benchmark, tests). */
  counts(): DeliveryCounts;
}

const POLL_MS = 500;
/** A commit wakes the loop within this: the commits of those milliseconds share a round. */
const WAKE_MS = 10;
/**
 * Rounds begin at least this far apart, whatever wakes them (or the poll's period, if shorter): each
 * reads the committed position, on MySQL under the feed row's exclusive lock, which holds writers
 * back, then the feed state and the due webhooks. Under load the commits of this long share those
 * reads; after a quiet spell a commit is looked at within WAKE_MS (docs/performance.md "Webhook figures").
 */
const ROUND_GAP_MS = 250;
/** Messages one turn of a webhook sends at most, and for how long it goes on sending. */
const TURN_MESSAGES = 20;
const TURN_MS = 1_000;
/** An attempt unanswered this long ends its turn and marks its webhook and receiver slow (at most half WEBHOOK_TIMEOUT). */
const SLOW_MS = 250;
/** How long the other webhooks of a receiver that was slow count as suspect (unless it answers one fast). */
const SUSPECT_ORIGIN_MS = 60_000;
/** Delivery log rows pruned per statement; a webhook's log is pruned once a tenth of WEBHOOK_LOG_MAX was added. */
const PRUNE_BATCH = 1000;
const PRUNE_EVERY_MS = 10 * 60_000;
/** Repeated failures of the loop itself (database away) are logged at most this often. */
const WARN_EVERY_MS = 30_000;

const EXPIRED_REASON =
  "The change feed no longer holds the changes after this webhook's cursor (tombstones older than CHANGES_RETENTION_DAYS were purged). Read the lists again and create a new webhook.";

export function startWebhookDelivery(options: DeliveryOptions): WebhookDelivery {
  const loop = new DeliveryLoop(options);
  loop.start();
  return { stop: () => loop.stop(), abandon: () => loop.abandon(), counts: () => loop.counts() };
}

class DeliveryLoop {
  private readonly logger: Logger;
  private readonly settings: WebhookSettings & { allowedNetworks: readonly string[] };
  private readonly leaseMs: number;
  private readonly rounds: RoundSchedule;
  private readonly slowMs: number;
  /** Unique per start, so two loops of one process (tests) are two holders. */
  private readonly holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`.slice(0, 200);
  private readonly queue: WebhookQueueRepository;
  private readonly builder: MessageBuilder;
  private readonly recorder: TurnRecorder;
  private readonly connections = new ReceiverConnections();
  /** Webhooks whose turn is under way, and those of them holding a slot. */
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly slotted = new Set<number>();
  /** The webhooks the last round found due and not yet given a turn, with its committed position and feed state. */
  private waiting: WebhookRow[] = [];
  private upTo = 0;
  private state: FeedState | undefined;
  /** Webhooks whose last attempt took longer than SLOW_MS, and those whose turn began with the last failed or slow. */
  private readonly slow = new Set<number>();
  private readonly suspects = new Set<number>();
  /** Receivers (scheme, host and port) that left an attempt unanswered past SLOW_MS, until when their other webhooks count as suspect too. */
  private readonly slowOrigins = new Map<string, number>();
  /** Webhooks whose lag this process reports. */
  private readonly lagging = new Set<number>();
  /** Delivery log rows this process added per webhook since its log was last pruned. */
  private readonly logged = new Map<number, number>();
  private stopping = false;
  private abandoned = false;
  private nextPruneMs = 0;
  private lastWarnMs = 0;
  private renewal: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** The change feed's key and position the rounds read (repositories/changes.ts). */
  private readonly feedCache: ChangeFeedCache;

  constructor(private readonly options: DeliveryOptions) {
    this.feedCache = new ChangeFeedCache(options.db);
    this.logger = options.logger.child({ component: 'webhooks' });
    this.settings = { ...options.config.webhooks, allowedNetworks: options.config.outbound.allowedNetworks }; // the outbound rule (core/outbound.ts)
    this.leaseMs = this.settings.leaseSeconds * 1000;
    const pollMs = options.pollMs ?? POLL_MS;
    this.rounds = new RoundSchedule({ gapMs: Math.min(ROUND_GAP_MS, pollMs), againMs: WAKE_MS, idleMs: pollMs, run: () => this.round() });
    this.slowMs = Math.min(SLOW_MS, (this.settings.timeoutSeconds * 1000) / 2);
    this.queue = new WebhookQueueRepository(options.db);
    this.builder = new MessageBuilder(deliveryUrls(options.config));
    this.recorder = new TurnRecorder(this.queue);
  }

  counts(): DeliveryCounts {
    return { rounds: this.rounds.started, ...this.builder.counts, ...this.recorder.counts };
  }

  start(): void {
    // Leases of the webhooks in flight are renewed well before they lapse: an attempt may take up to
    // WEBHOOK_TIMEOUT, longer than a short lease.
    this.renewal = setInterval(() => {
      if (this.inFlight.size === 0) return;
      this.queue.renew(this.holder, [...this.inFlight.keys()], Date.now() + this.leaseMs).catch((err: unknown) => this.warn(err, 'renewing webhook leases failed'));
    }, this.leaseMs / 3);
    this.renewal.unref();
    const subscribe = this.options.onCommit ?? ((listener: () => void) => onCommitted(this.options.db, listener));
    this.unsubscribe = subscribe(() => this.rounds.ask(WAKE_MS));
    this.rounds.ask(0);
  }

  async stop(): Promise<void> {
    if (this.stopping && !this.abandoned) return;
    this.halt();
    const bound = new Promise<void>((resolve) => setTimeout(resolve, this.settings.timeoutSeconds * 1000 + 5000).unref());
    await Promise.race([this.rounds.current.then(() => Promise.allSettled([...this.inFlight.values()])), bound]);
    await this.queue.release(this.holder).catch((err: unknown) => this.logger.warn({ err }, 'releasing webhook leases failed; they lapse after WEBHOOK_LEASE_SECONDS'));
    this.connections.close();
    for (const id of this.lagging) this.forget(id);
  }

  abandon(): void {
    this.abandoned = true;
    this.halt();
    this.connections.close();
  }

  private halt(): void {
    this.stopping = true;
    this.unsubscribe?.();
    this.rounds.stop();
    clearInterval(this.renewal);
  }

  private warn(err: unknown, message: string): void {
    const now = Date.now();
    if (now - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = now;
    this.logger.warn({ err }, message);
  }

  private async round(): Promise<void> {
    try {
      await this.roundOfWork();
    } catch (err) {
      this.warn(err, 'webhook delivery round failed; the next round tries again');
    }
  }

  private async roundOfWork(): Promise<void> {
    await this.prune(Date.now());
    if (this.stopping || (this.slotted.size >= this.settings.concurrency && this.waiting.length > 0)) return;
    const repositories = new Repositories(this.options.db, { changeFeed: this.feedCache });
    // One read of the committed position for every webhook of the round: changes past it wait for the next.
    this.upTo = await repositories.changes.cachedPosition();
    this.state = await repositories.changes.state();
    this.waiting = await this.queue.due(this.holder, Date.now(), this.upTo, 100, [...this.inFlight.keys()]);
    this.fill();
  }

  /**
   * Gives the free slots to the webhooks the last round found due, in its order (a webhook whose turn
   * ended with more to send goes to the back): no database read between turns, however many webhooks.
   */
  private fill(): void {
    const now = Date.now();
    const halfSlots = Math.max(1, Math.floor(this.settings.concurrency / 2));
    let suspects = [...this.slotted].filter((id) => this.suspects.has(id)).length;
    const skipped: WebhookRow[] = [];
    while (this.waiting.length > 0 && !this.stopping && this.slotted.size < this.settings.concurrency) {
      const row = this.waiting.shift()!;
      if (this.inFlight.has(row.id)) continue;
      const suspect = row.attempts > 0 || this.slow.has(row.id) || (this.slowOrigins.get(originOf(row.url)) ?? 0) > now;
      if (suspect && suspects >= halfSlots) {
        skipped.push(row);
        continue;
      }
      if (suspect) {
        suspects++;
        this.suspects.add(row.id);
      }
      this.begin(row);
    }
    this.waiting.unshift(...skipped);
  }

  /** The delivery log's bounds: every webhook's now and then (rows of other processes too), and at once a webhook this process added a tenth of WEBHOOK_LOG_MAX to. */
  private async prune(now: number): Promise<void> {
    const { logMaxRows, logDays } = this.settings;
    const every = Math.max(10, Math.ceil(logMaxRows / 10));
    let ids = [...this.logged].filter(([, added]) => added >= every).map(([id]) => id);
    if (now >= this.nextPruneMs) {
      const pruned = await this.queue.prune(now - logDays * 86_400_000, PRUNE_BATCH);
      this.nextPruneMs = pruned === PRUNE_BATCH ? now : now + PRUNE_EVERY_MS;
      ids = await this.queue.ids();
    }
    for (const id of ids) {
      this.logged.delete(id);
      await this.queue.pruneBeyond(id, logMaxRows, PRUNE_BATCH);
    }
  }

  private begin(row: WebhookRow): void {
    this.slotted.add(row.id);
    const done = () => {
      this.inFlight.delete(row.id);
      this.slotted.delete(row.id);
      this.suspects.delete(row.id);
    };
    const task = this.turn(row, this.upTo, this.state).then(
      (more) => {
        done();
        // A webhook with more to send goes on after the others waiting; the next round finds the rest.
        if (more) this.waiting.push(row);
        this.fill();
        this.rounds.ask(WAKE_MS);
      },
      (err: unknown) => {
        done();
        this.warn(err, 'a webhook delivery failed on the database; its messages are sent again');
      },
    );
    this.inFlight.set(row.id, task);
  }

  /** One turn of one webhook: expire it, skip changes of other types, or send its next messages. True when it delivered and has more to send. */
  private async turn(row: WebhookRow, upTo: number, state: FeedState | undefined): Promise<boolean> {
    const webhook = await this.hold(row);
    if (!webhook) return false;
    const held: Held = { id: webhook.id, holder: this.holder, position: webhook.position };
    if (state && cursorExpired(webhook.position, state)) {
      if (await this.queue.expire(held, EXPIRED_REASON, formatUtc(new Date())))
        this.logger.info({ webhook: webhook.id }, 'webhook expired: the feed no longer holds the changes after its cursor');
      this.forget(webhook.id);
      return false;
    }
    const next = await this.builder.next(new Repositories(this.options.db, { changeFeed: this.feedCache }), webhook, { upTo, history: state?.history ?? '' }, TURN_MESSAGES);
    if (next.kind === 'caught-up') {
      this.behind(webhook.id, undefined);
      if (next.skipTo > webhook.position) await this.queue.skip(held, next.skipTo);
      return false;
    }
    this.behind(webhook.id, Date.parse(isoOfUtc(next.messages[0].changedUtc)));
    // The URL is checked once for the turn (a refusal, or a name slow to resolve, is left to the attempt).
    const checked = await checkedWithin(webhook.url, { ...this.settings, resolve: this.options.resolve }, this.slowMs);
    // Sending holds no slot: waiting on a receiver costs a socket, not another webhook's turn.
    if (this.slotted.delete(webhook.id)) this.fill();
    const deliveries: NewDelivery[] = [];
    let delivered: number | undefined;
    let failure: Failure | undefined;
    const began = performance.now();
    for (const message of next.messages) {
      // Failures so far at this message: a webhook set back to `active` (after `disabled`) starts a new series of retries.
      const failures = delivered === undefined && webhook.status === 'failing' ? webhook.attempts : 0;
      const { result, started } = await this.attempt(webhook, message, checked);
      if (this.abandoned) return false;
      if (result.ok) delivered = message.position;
      else failure = failureOf(result, failures + 1, this.settings.retryDelaysSeconds, started.getTime() + result.durationMs);
      deliveries.push(deliveryOf(webhook.id, message, failures + 1, result, started, failure));
      if (failure || result.durationMs >= this.slowMs || this.stopping || performance.now() - began > TURN_MS) break;
    }
    const more = next.hasMore || deliveries.length < next.messages.length;
    // Every message of the turn delivered and none of its types up to the committed position: the
    // position moves past the other types' changes read beyond them now, in the turn's own
    // transaction, rather than in a transaction of its own at the next round (on MySQL each commit
    // is a sync of the server's log that the requests' commits wait behind).
    if (!more && !failure && delivered !== undefined) delivered = Math.max(delivered, next.skipTo);
    // Another process took the webhook over meanwhile: its results stand, these are dropped.
    if (!(await this.recorder.record({ held, deliveries, outcome: { delivered, failure } }))) return false;
    this.logged.set(webhook.id, (this.logged.get(webhook.id) ?? 0) + deliveries.length);
    if (failure) {
      // A disabled webhook waits for an administrator, not for this process.
      if (failure.status === 'disabled') this.forget(webhook.id);
      const last = deliveries[deliveries.length - 1];
      this.logger.info(
        { webhook: webhook.id, message: last.message_id, status: failure.status, statusCode: last.status_code, error: last.error },
        `webhook attempt failed; ${failure.status}`,
      );
      return false;
    }
    if (!more) this.behind(webhook.id, undefined);
    return more;
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

  /** One attempt; one still unanswered after SLOW_MS marks its webhook and its receiver slow (suspect for the slots). */
  private async attempt(webhook: WebhookRow, message: Message, checked: URL | undefined): Promise<{ result: AttemptResult; started: Date }> {
    const started = new Date();
    const outgoing = { messageId: message.id, body: message.body, secrets: signingSecrets(webhook, started) };
    const slowTimer = setTimeout(() => {
      this.slow.add(webhook.id);
      this.markOrigin(webhook.url, Date.now() + SUSPECT_ORIGIN_MS);
    }, this.slowMs);
    const result = await sendMessage(webhook.url, outgoing, { ...this.settings, resolve: this.options.resolve, connections: this.connections }, checked);
    clearTimeout(slowTimer);
    if (result.ok && result.durationMs < this.slowMs) {
      this.slow.delete(webhook.id);
      this.markOrigin(webhook.url, 0);
    }
    if (!this.abandoned) this.options.metrics?.attempt(result.ok ? 'delivered' : result.statusCode === null ? 'unreachable' : 'rejected', result.durationMs / 1000);
    return { result, started };
  }

  private markOrigin(url: string, untilMs: number): void {
    const origin = originOf(url);
    if (untilMs > 0) this.slowOrigins.set(origin, untilMs);
    else this.slowOrigins.delete(origin);
    if (this.slowOrigins.size > 1000) this.slowOrigins.clear(); // never reached: at most 100 webhooks
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
