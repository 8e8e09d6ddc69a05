import type { Knex } from 'knex';

/** The single row of `data_version` (a data change, kept apart from the schema change: see migrate.ts). */
export async function up(db: Knex): Promise<void> {
  await db('data_version').insert({ id: 1, version: 0 });
}

export async function down(db: Knex): Promise<void> {
  await db('data_version').where('id', 1).delete();
}
