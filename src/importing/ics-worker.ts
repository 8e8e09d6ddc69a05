import { parentPort, workerData } from 'node:worker_threads';
import type { ImportRecord, SkippedRecord } from './records.js';
import { calendarRecords, IcsError, parseCalendar } from './ics.js';

/**
 * The worker thread of an iCalendar import (importing/ics-off-loop.ts): parses the text and maps its
 * events here, off the service's event loop (parsing the largest file takes about a second), and
 * posts the records back in small batches, each cheap to receive, at most IN_FLIGHT batches ahead of
 * what the import has taken (it sends `more` for each batch it took), so the service's heap holds
 * a few batches, not the whole calendar.
 */

/** What the worker posts, in this order: `parsed` or `refused`, then `records` batches, then `done` (or `failed`). */
export type WorkerMessage =
  | { type: 'parsed' }
  | { type: 'refused'; message: string; tooLarge: boolean }
  | { type: 'records'; records: Array<ImportRecord | SkippedRecord> }
  | { type: 'done' }
  | { type: 'failed'; message: string };

/** Records per message: about 100 KB of them at most. */
const BATCH = 50;
/** Batches posted and not yet taken, at most. */
const IN_FLIGHT = 2;

let credits = IN_FLIGHT;
let granted: (() => void) | undefined;
parentPort!.on('message', () => {
  credits++;
  granted?.();
});

/** Waits until the import has taken enough batches to send another. */
async function credit(): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (granted = resolve));
  granted = undefined;
  credits--;
}

const { text, siteTimezone } = workerData as { text: string; siteTimezone: string };
const post = (message: WorkerMessage) => parentPort!.postMessage(message);

async function run(): Promise<void> {
  let calendar;
  try {
    calendar = parseCalendar(text);
  } catch (err) {
    if (err instanceof IcsError) return post({ type: 'refused', message: err.message, tooLarge: err.tooLarge });
    throw err;
  }
  post({ type: 'parsed' });
  let batch: Array<ImportRecord | SkippedRecord> = [];
  for await (const record of calendarRecords(calendar, siteTimezone)) {
    batch.push(record);
    if (batch.length >= BATCH) {
      await credit();
      post({ type: 'records', records: batch });
      batch = [];
    }
  }
  if (batch.length) {
    await credit();
    post({ type: 'records', records: batch });
  }
  // The import ends this thread once it has read everything (or stopped).
  post({ type: 'done' });
}

run().catch((err: Error) => post({ type: 'failed', message: err.message }));
