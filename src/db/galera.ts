import type { Knex } from 'knex';
import { engineOf } from './engine.js';

/**
 * Whether the database is a node of a MariaDB Galera cluster (`wsrep_on`), asked once per database.
 * Two rules change on a cluster (docs/contract.md §18): every connection waits, before each read, for
 * the commits the cluster has certified (`wsrep_sync_wait`, set in db/knex.ts), and change numbers are
 * taken under a written row rather than a shared lock (db/change-log.ts), because Galera keeps row locks
 * per node.
 */
const answers = new WeakMap<object, Promise<boolean>>();

export function isGaleraNode(db: Knex): Promise<boolean> {
  if (engineOf(db) !== 'mysql') return Promise.resolve(false);
  // A transaction's client shares its database's configuration object: one answer for both.
  const key = db.client.config as object;
  let answer = answers.get(key);
  if (!answer) {
    answer = db.raw(WSREP_ON_QUERY).then(([rows]: [WsrepRows]) => saysWsrepOn(rows));
    answers.set(key, answer);
    // A failed question (the database unreachable) is asked again next time.
    answer.catch(() => answers.delete(key));
  }
  return answer;
}

/** The question that tells a Galera node (asked per database above and per connection in db/knex.ts). */
export const WSREP_ON_QUERY = "SHOW VARIABLES LIKE 'wsrep_on'";

export type WsrepRows = Array<{ Value?: string }>;

/** Whether the rows of WSREP_ON_QUERY say the server is a Galera node. */
export function saysWsrepOn(rows: WsrepRows): boolean {
  return rows[0]?.Value === 'ON';
}

/** The per-connection setting of a Galera node: each read first waits for every certified commit. */
export const GALERA_READ_SETTING = 'SET SESSION wsrep_sync_wait = 1';
