import type { Knex } from 'knex';

/**
 * A count of the writes that took change numbers on a Galera cluster: each such writer writes the
 * feed's row just before taking its numbers, which keeps commit order across nodes (db/change-log.ts,
 * docs/contract.md §18). Elsewhere it stays 0.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('change_sequence', (t) => t.bigInteger('writes').notNullable().defaultTo(0));
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('change_sequence', (t) => t.dropColumn('writes'));
}
