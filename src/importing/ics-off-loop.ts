import { Worker } from 'node:worker_threads';
import type { ImportSource } from './engine.js';
import { IcsError, type IcsSourceOptions } from './ics.js';
import type { ImportRecord, SkippedRecord } from './records.js';
import type { WorkerMessage } from './ics-worker.js';

/**
 * An iCalendar text as an import source, parsed and mapped in a worker thread (importing/ics-worker.ts)
 * so that no turn of the service's event loop holds it (docs/limits.md "iCalendar imports"). The
 * source is ready once the whole text has parsed: a text that is no calendar, or breaks a bound, is
 * refused (IcsError) before a record is written. At most MAX_PARSERS texts are parsed at once per
 * process; more wait their turn.
 */

/** Worker threads parsing at once, per process (each holds up to about 100 MB while it parses). */
const MAX_PARSERS = 2;

let running = 0;
const waiting: Array<() => void> = [];

async function parserSlot(): Promise<() => void> {
  if (running >= MAX_PARSERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running--;
    waiting.shift()?.();
  };
}

/** The worker's module beside this one: `.ts` when run from the sources (through tsx, which the worker then loads too), `.js` when built. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(`./ics-worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);

/** The worker: its module, or from the sources a bootstrap registering tsx's loader in the worker first. */
function startWorker(workerData: unknown): Worker {
  if (!FROM_SOURCES) return new Worker(WORKER_URL, { workerData });
  const bootstrap = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** The source, and `close` to end its worker when the import stops before reading every record. */
type OffLoopSource = ImportSource & { close(): void };

export async function icsSourceOffLoop(text: string, options: IcsSourceOptions): Promise<OffLoopSource> {
  const release = await parserSlot();
  const worker = startWorker({ text, siteTimezone: options.siteTimezone });
  const queue: WorkerMessage[] = [];
  let wake: (() => void) | undefined;
  let ended: Error | undefined;
  worker.on('message', (message: WorkerMessage) => {
    queue.push(message);
    wake?.();
  });
  worker.on('error', (err) => {
    ended = err;
    wake?.();
  });
  worker.on('exit', () => {
    ended ??= new Error('the iCalendar parser stopped');
    release();
    wake?.();
  });
  const next = async (): Promise<WorkerMessage> => {
    while (queue.length === 0) {
      if (ended) throw ended;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    return queue.shift()!;
  };
  const stop = () => void worker.terminate();
  try {
    const first = await next();
    if (first.type === 'refused') throw new IcsError(first.message, first.tooLarge);
    if (first.type !== 'parsed') throw new Error(first.type === 'failed' ? first.message : 'the iCalendar parser answered out of turn');
  } catch (err) {
    stop();
    throw err;
  }
  return {
    key: `ics:${options.location}`,
    type: 'ics',
    location: options.location,
    numericIds: false,
    close: stop,
    async *records(): AsyncGenerator<ImportRecord | SkippedRecord> {
      try {
        for (;;) {
          const message = await next();
          if (message.type === 'records') {
            yield* message.records;
            // Taken: the worker may send another batch.
            worker.postMessage('more');
          } else if (message.type === 'done') return;
          else throw new Error(message.type === 'failed' ? message.message : 'the iCalendar parser answered out of turn');
        }
      } finally {
        stop();
      }
    },
  };
}
