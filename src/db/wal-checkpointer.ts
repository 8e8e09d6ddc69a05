import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints of a SQLite file's write-ahead log, in a thread of their own (docs/limits.md "Series
 * writes and other people's occurrences"). SQLite checkpoints on the connection whose commit takes
 * the log past 1,000 pages, inside that commit: after a large transaction (a series of 1,000 copies
 * of a 16 KB description, with its search index, writes some 50 MB of log) the service's only
 * connection, and so the event loop, copied the whole log into the database file for 200–300 ms. The
 * service's connection does not checkpoint (`wal_autocheckpoint = 0`, db/knex.ts); this thread opens
 * a connection of its own and runs a PASSIVE checkpoint (it never waits for, nor blocks, a reader or
 * the writer) whenever the log has grown past CHECKPOINT_BYTES, looking every CHECK_MS.
 */

/** Log size past which the thread checkpoints: about SQLite's own 1,000 pages of 4 KiB. */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** How often the thread looks at the log's size. */
const CHECK_MS = 200;

/** The thread's code, plain CommonJS (no build step): better-sqlite3 is required by its resolved path. */
const SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { timeout: 5000 });
db.pragma('wal_autocheckpoint = 0');
let stopped = false;
parentPort.on('message', (message) => {
  if (message === 'stop') { stopped = true; clearInterval(timer); db.close(); parentPort.close(); }
});
const timer = setInterval(() => {
  if (stopped) return;
  let size = 0;
  try { size = statSync(workerData.filename + '-wal').size; } catch { return; }
  if (size < workerData.bytes) return;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage({ error: String(err && err.message || err) }); }
}, workerData.checkMs);
`;

interface WalCheckpointer {
  stop(): Promise<void>;
}

/** Starts the checkpoint thread of the SQLite file `filename`; `onError` hears a checkpoint that failed (the next one tries again). */
export function startWalCheckpointer(filename: string, onError: (message: string) => void): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(SOURCE, { eval: true, workerData: { filename, driver, bytes: CHECKPOINT_BYTES, checkMs: CHECK_MS } });
  worker.on('message', (message: { error?: string }) => message.error && onError(message.error));
  worker.on('error', (err) => onError(err.message));
  worker.unref();
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 2000).unref())]);
      await worker.terminate();
    },
  };
}
