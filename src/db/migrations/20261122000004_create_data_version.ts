import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * One row counting committed content writes (db/data-version.ts). List totals are cached per filter
 * and reused while this number stays the same, so an exact `X-WP-Total` does not cost a count over
 * the whole calendar on every request, also with several processes on one database.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('data_version', (t) => {
    tableDefaults(db, t);
    t.integer('id').primary();
    t.bigInteger('version').notNullable().defaultTo(0);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('data_version');
}
