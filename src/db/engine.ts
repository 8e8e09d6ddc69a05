import type { Knex } from 'knex';

/** The two database engines the service runs on. */
export type Engine = 'sqlite' | 'mysql';

/** Which engine a Knex handle (or transaction) talks to. */
export function engineOf(db: Knex): Engine {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}
