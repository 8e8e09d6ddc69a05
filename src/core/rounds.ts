/**
 * When a loop that follows the change feed runs its rounds (the webhook delivery loop,
 * webhooks/worker.ts; the cache purger, cache/purger.ts): one at a time, never overlapping (a round
 * asked for during one follows it), each at least `gapMs` after the last began, whatever asks for it.
 *
 * A commit asks for a round after a short delay, so the commits of that delay share one. The gap
 * bounds the rounds under a stream of commits: a webhook round reads the committed position, which on
 * MySQL holds writers back for a moment (db/committed-position.ts; docs/webhooks.md "Delivery at
 * scale"). After a round, the next comes when the round says (a backlog at once, a failing receiver
 * after a pause), otherwise after `againMs` if one was asked for during it, or after `idleMs` (the poll
 * that finds other processes' commits).
 */
export class RoundSchedule {
  /** Rounds begun (the benchmark, tests). */
  started = 0;
  /** The round under way, or a settled promise: what stopping waits for. */
  current: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Infinity;
  private lastStartMs = -Infinity;
  private running = false;
  private askedDuringRound = false;
  private stopped = false;

  constructor(
    private readonly options: {
      /** The least time between the starts of two rounds (0: none). */
      gapMs: number;
      /** After a round that named no delay: the next within `againMs` if one was asked for during it, otherwise within `idleMs`. */
      againMs: number;
      idleMs: number;
      /** The round itself; it handles its own failures, and may name the delay before the next. */
      run: () => Promise<number | void>;
    },
  ) {}

  /** A round within `delayMs`, or later if the gap says so (an earlier one already set stays). */
  ask(delayMs: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.askedDuringRound = true;
      return;
    }
    const now = Date.now();
    const at = Math.max(now + delayMs, this.lastStartMs + this.options.gapMs);
    if (at >= this.dueAt) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => {
      this.dueAt = Infinity;
      this.current = this.round();
    }, at - now);
    this.timer.unref();
  }

  /** No round begins after this; the one under way (`current`) goes on. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async round(): Promise<void> {
    this.running = true;
    this.askedDuringRound = false;
    this.lastStartMs = Date.now();
    this.started++;
    let next: number | void = undefined;
    try {
      next = await this.options.run();
    } finally {
      this.running = false;
      this.ask(next ?? (this.askedDuringRound ? this.options.againMs : this.options.idleMs));
    }
  }
}
