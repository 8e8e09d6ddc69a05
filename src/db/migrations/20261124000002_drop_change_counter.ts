import type { Knex } from 'knex';

/**
 * The counter column of `change_sequence` is no longer used (numbers come from `changes`' own
 * auto-increment since 20261124000001). The row stays: writers and readers of the change feed lock it
 * to keep commit order (db/change-log.ts), and it holds the purge mark and the cursors' secret.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('change_sequence', (t) => t.dropColumn('value'));
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('change_sequence', (t) => t.bigInteger('value').notNullable().defaultTo(0));
}
