import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { openDatabase, type DatabaseTarget } from '../db/knex.js';

/**
 * The delivery thread's own database connection (docs/webhooks.md "Delivery at scale"). On SQLite
 * its commits skip the sync to the disk (`synchronous = NORMAL`) whatever SQLITE_SYNCHRONOUS says:
 * they only record attempts and move cursors, and the request thread's writes waited behind each
 * sync for the write lock (the figure: docs/performance.md "Webhook figures"). A power loss may roll back the last of
 * them, and then the messages after the cursor that remains are sent again under the same ids, which
 * the guarantees allow; nothing is lost, since the changes stay in the feed and the request thread's
 * own commits (each synced) carry every earlier frame of the log to the disk with them.
 */
export function openDeliveryDatabase(config: Pick<Config, 'databaseUrl' | 'dbTimeoutSeconds'>): { db: Knex; target: DatabaseTarget } {
  return openDatabase(config.databaseUrl, { timeoutMs: config.dbTimeoutSeconds * 1000, sqliteSynchronous: 'normal' });
}
