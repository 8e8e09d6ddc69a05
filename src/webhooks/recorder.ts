import { formatUtc } from '../dates/storage.js';
import type { Turn, WebhookQueueRepository } from '../repositories/webhook-queue.js';

/**
 * The delivery log written in batches (docs/webhooks.md "Delivery at scale"): the turns of every
 * webhook that finish while a batch is being written wait for it, then go together in the next, in
 * one transaction (a group commit). Under load one commit records the attempts of many webhooks; a
 * lone turn is written at once. Each turn's writes are guarded by its lease and position as before
 * (repositories/webhook-queue.ts), so a batch changes nothing about what one turn may write.
 */

/** Turns written in one transaction at most. */
const MAX_TURNS = 100;

interface Waiting {
  turn: Turn;
  resolve: (written: boolean) => void;
  reject: (err: unknown) => void;
}

export class TurnRecorder {
  private waiting: Waiting[] = [];
  private writing = false;
  /** Transactions written and turns recorded (the benchmark reads them). */
  readonly counts = { transactions: 0, turns: 0 };

  constructor(private readonly queue: WebhookQueueRepository) {}

  /** Records `turn` with the others waiting; true when written, false when its guard failed (another process holds the webhook). */
  record(turn: Turn): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ turn, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.writing || this.waiting.length === 0) return;
    this.writing = true;
    // After the current turn of the event loop: turns finishing together share the transaction.
    setImmediate(() => void this.write());
  }

  private async write(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_TURNS);
    try {
      const written = await this.queue.recordTurns(
        batch.map((entry) => entry.turn),
        formatUtc(new Date()),
      );
      this.counts.transactions++;
      this.counts.turns += batch.length;
      batch.forEach((entry, i) => entry.resolve(written[i]));
    } catch (err) {
      // Nothing of the batch was written: each turn's messages are sent again, under the same ids.
      for (const entry of batch) entry.reject(err);
    } finally {
      this.writing = false;
      this.next();
    }
  }
}
