import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../core/config.js';
import { onCommitted } from '../db/commit-signal.js';
import type { WebhookMetrics } from './metrics.js';
import type { WebhookDelivery } from './worker.js';

/**
 * Delivery on a worker thread of the service's process (WEBHOOK_THREAD, docs/webhooks.md "Delivery at
 * scale"): the loop of webhooks/worker.ts with a database connection of its own, so building
 * messages, signing, the HTTP exchanges and the recording never take the time of the thread that
 * answers requests. The thread is told of every commit of this process (it wakes on them as the
 * loop does in-process), and tells this thread the metrics of its attempts, which /metrics serves
 * from here. A thread that fails is started again after RESTART_MS; the leases it held lapse.
 */

interface ThreadOptions {
  db: Knex;
  config: Config;
  logger: Logger;
  metrics?: WebhookMetrics;
}

/** What the delivery thread tells this one. */
export type ThreadReport =
  | { kind: 'attempt'; result: Parameters<WebhookMetrics['attempt']>[0]; seconds: number }
  | { kind: 'behind'; webhookId: number; oldestMs: number | undefined }
  | { kind: 'forget'; webhookId: number }
  | { kind: 'stopped' };

/** What this thread tells the delivery thread. */
export type ThreadCommand = { kind: 'commit' } | { kind: 'stop' };

/** The thread's start-up data. */
export interface ThreadData {
  config: Config;
  metrics: boolean;
}

const RESTART_MS = 5_000;

export function startDeliveryThread(options: ThreadOptions): WebhookDelivery {
  const { logger, metrics } = options;
  // The entry beside this file, compiled (.js) or run from source (.ts, the tests' and tsx's).
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), `delivery-thread${path.extname(fileURLToPath(import.meta.url))}`);
  let worker: Worker | undefined;
  let stopping = false;
  let stopped: (() => void) | undefined;
  let restart: NodeJS.Timeout | undefined;
  let pending = false;

  const start = () => {
    const data: ThreadData = { config: options.config, metrics: metrics !== undefined };
    // From source (tests, tsx) the thread registers tsx's loader before it loads the entry.
    const thread = entry.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); });`, { eval: true, workerData: data })
      : new Worker(entry, { workerData: data });
    worker = thread;
    thread.on('message', (report: ThreadReport) => {
      if (report.kind === 'attempt') metrics?.attempt(report.result, report.seconds);
      else if (report.kind === 'behind') metrics?.behind(report.webhookId, report.oldestMs);
      else if (report.kind === 'forget') metrics?.forget(report.webhookId);
      else stopped?.();
    });
    thread.on('error', (err) => logger.error({ err, component: 'webhooks' }, 'the webhook delivery thread failed'));
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined;
      if (stopping) return stopped?.();
      logger.warn({ code, component: 'webhooks' }, `the webhook delivery thread stopped; starting it again in ${RESTART_MS / 1000} s`);
      restart = setTimeout(start, RESTART_MS);
      restart.unref();
    });
  };
  // Commits close together are told once: the thread wakes within milliseconds and reads them all.
  const unsubscribe = onCommitted(options.db, () => {
    if (pending || !worker) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      worker?.postMessage({ kind: 'commit' } satisfies ThreadCommand);
    });
  });
  start();

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      unsubscribe();
      clearTimeout(restart);
      const thread = worker;
      if (!thread) return;
      await new Promise<void>((resolve) => {
        stopped = resolve;
        thread.postMessage({ kind: 'stop' } satisfies ThreadCommand);
      });
      await thread.terminate();
    },
    abandon() {
      stopping = true;
      unsubscribe();
      clearTimeout(restart);
      void worker?.terminate();
    },
    // The thread's own counts are not reported here (tests read them from a loop they start in-process).
    counts: () => ({ rounds: 0, built: 0, shared: 0, transactions: 0, turns: 0 }),
  };
}
