import type { Knex } from 'knex';

/**
 * Drops MySQL's first search index, `post_search_grams` (one row per trigram of each field of each
 * event), replaced by the shared texts of 20261204000100 (db/search-index.ts). SQLite never had it.
 */
export async function up(db: Knex): Promise<void> {
  if (db.client.config.client !== 'mysql2') return;
  await db.schema.dropTableIfExists('post_search_grams');
}

/** Brings the table back empty: 20261125000101's fill refills it if run again. */
export async function down(db: Knex): Promise<void> {
  if (db.client.config.client !== 'mysql2') return;
  await db.raw(
    'create table if not exists post_search_grams (post_id int unsigned not null, field tinyint unsigned not null, n int unsigned not null, gram varchar(3) not null, primary key (post_id, field, n), key post_search_grams_gram_index (gram, post_id), constraint post_search_grams_post_id_foreign foreign key (post_id) references posts (id) on delete cascade) engine=InnoDB default charset=utf8mb4 collate=utf8mb4_unicode_ci',
  );
}
