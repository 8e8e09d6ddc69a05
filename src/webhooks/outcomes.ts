import { formatUtc } from '../dates/storage.js';
import type { Failure, NewDelivery } from '../repositories/webhook-queue.js';
import type { Message } from './messages.js';
import type { AttemptResult } from './sender.js';

/** What an attempt leaves (webhooks/worker.ts): its delivery log row, and after a failure the retries. */

/** The receiver of a URL: scheme, host and port. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The delivery log row of one attempt. */
export function deliveryOf(webhookId: number, message: Message, attempt: number, result: AttemptResult, started: Date, failure: Failure | undefined): NewDelivery {
  return {
    webhook_id: webhookId,
    message_id: message.id,
    cursor: message.cursor,
    position: message.position,
    type: message.type,
    attempt,
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
    attempted_utc: formatUtc(started),
    attempted_ms: started.getTime(),
    next_attempt_utc: !result.ok && failure?.status === 'failing' ? formatUtc(new Date(failure.nextAttemptMs)) : null,
  };
}

/**
 * What failed attempt number `attempt` at a message leaves: on failure n, `failing` with the next attempt
 * after the n-th pause of WEBHOOK_RETRY_DELAYS lengthened by up to 20 % (so that receivers coming back
 * are not all hit at once), or `disabled` once the pauses are used up.
 */
export function failureOf(result: AttemptResult, attempt: number, delaysSeconds: readonly number[], nowMs: number): Failure {
  const reason = result.error ?? `the receiver answered ${result.statusCode}`;
  if (attempt > delaysSeconds.length) return { attempts: attempt, nextAttemptMs: 0, status: 'disabled', reason };
  const pause = delaysSeconds[attempt - 1] * 1000 * (1 + Math.random() * 0.2);
  return { attempts: attempt, nextAttemptMs: nowMs + Math.round(pause), status: 'failing', reason };
}
