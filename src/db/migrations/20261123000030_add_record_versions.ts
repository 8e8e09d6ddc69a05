import type { Knex } from 'knex';

/**
 * A version per record (docs/contract.md §10): `posts.version` (events, venues, organizers) and
 * `terms.version` start at 1 and grow by one on every write of the record, in the repositories'
 * write statements. Entity tags are built from it, and `If-Match` compares it inside the write.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.integer('version').unsigned().notNullable().defaultTo(1);
  });
  await db.schema.alterTable('terms', (t) => {
    t.integer('version').unsigned().notNullable().defaultTo(1);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('terms', (t) => {
    t.dropColumn('version');
  });
  await db.schema.alterTable('posts', (t) => {
    t.dropColumn('version');
  });
}
