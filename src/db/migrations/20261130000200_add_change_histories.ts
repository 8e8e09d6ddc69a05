import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * What a restore needs (docs/durability.md):
 * - `change_sequence.history`: the history the feed's cursors belong to. '' is the original history
 *   (its cursors keep the form they always had); a restore replaces it with a new random id.
 * - `change_history_fences`: every earlier history this database descends from, with the position
 *   of the copy it was restored from. A cursor of such a history up to that position was given out
 *   before the copy and still works; one past it was given out after the copy and answers 410.
 * - `service_leases`: one row per running service process, renewed every few seconds, so that
 *   `cli restore` can refuse to replace a database a service is using.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('change_sequence', (t) => {
    t.string('history', 16).notNullable().defaultTo('');
  });
  await db.schema.createTable('change_history_fences', (t) => {
    tableDefaults(db, t);
    t.string('history', 16).primary();
    t.bigInteger('upto').notNullable();
  });
  await db.schema.createTable('service_leases', (t) => {
    tableDefaults(db, t);
    t.string('holder', 200).primary();
    // Milliseconds since the epoch, by the holder's clock (the same machine for SQLite).
    t.bigInteger('renewed_ms').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('service_leases');
  await db.schema.dropTable('change_history_fences');
  await db.schema.alterTable('change_sequence', (t) => {
    t.dropColumn('history');
  });
}
