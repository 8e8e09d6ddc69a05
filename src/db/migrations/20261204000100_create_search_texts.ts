import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * MySQL's search index of events by shared texts (db/search-index.ts): the trigrams of a text are
 * written once, however many events carry it (a series' 1,000 occurrences share one description),
 * and each event's field names its text by hash. Replaces `post_search_grams` (one row per trigram
 * of each field of each event), dropped by 20261204000102 once 20261204000101 filled these.
 *
 * - `search_texts`: one row per text (`text_hash`, SHA-256 of the field's text, hex), the row writers
 *   and the cleaner lock (db/search-index.ts "Shared texts and their cleaning").
 * - `search_text_grams`: one row per distinct trigram of each text, `gram` in the text columns'
 *   collation (an index lookup finds every trigram the `LIKE` could take for it); the second index
 *   answers `gram = ?`.
 * - `post_search_texts`: the text of each field (`field` numbered as SEARCHED_FIELDS) of each event;
 *   rows go with their post (foreign key); the second index answers "the events with this text".
 *   Its text is a foreign key too (no cascade): a text an event names cannot be deleted, and on a
 *   Galera cluster a text's delete and a write naming it through another node conflict at
 *   certification (the foreign key's parent is part of the write set), so one runs again.
 *
 * SQLite keeps its FTS5 table (20261125000100): nothing to do there.
 */
export async function up(db: Knex): Promise<void> {
  if (db.client.config.client !== 'mysql2') return;
  const hash = 'char(64) character set ascii collate ascii_bin not null';
  await db.schema.createTable('search_texts', (t) => {
    tableDefaults(db, t);
    t.specificType('text_hash', hash).primary();
  });
  await db.schema.createTable('search_text_grams', (t) => {
    tableDefaults(db, t);
    t.specificType('text_hash', hash);
    t.integer('n').unsigned().notNullable();
    t.string('gram', 3).notNullable();
    t.primary(['text_hash', 'n']);
    t.index(['gram', 'text_hash'], 'search_text_grams_gram_index');
  });
  await db.schema.createTable('post_search_texts', (t) => {
    tableDefaults(db, t);
    t.integer('post_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.tinyint('field').unsigned().notNullable();
    t.specificType('text_hash', hash).references('text_hash').inTable('search_texts');
    t.primary(['post_id', 'field']);
    t.index(['text_hash', 'post_id'], 'post_search_texts_text_index');
  });
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client !== 'mysql2') return;
  for (const table of ['post_search_texts', 'search_text_grams', 'search_texts']) await db.schema.dropTableIfExists(table);
}
