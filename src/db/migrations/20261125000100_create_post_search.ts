import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * The search index of events (docs/contract.md §15, db/search-index.ts): it narrows the events the
 * list's `LIKE` search has to read; the `LIKE` still decides.
 *
 * SQLite: a contentless FTS5 table with the trigram tokenizer (SQLite 3.34+; `contentless_delete`
 * 3.43+), rowid = the event's post id, holding `lower()` of its title, description and excerpt: the
 * very strings the `LIKE` compares (`lower()` is the connection's, db/sql-functions.ts). Contentless
 * rather than external content: what is indexed is not a column of `posts` but a function of it, and
 * an external-content table would need the old indexed values to delete a row; a contentless one
 * deletes by rowid and stores no second copy of the text. Triggers keep it in step with every write
 * of `posts` (the repositories, series' bulk writes, the benchmark's seeder, test fixtures), for
 * events only.
 *
 * MySQL: `post_search_grams`, one row per distinct trigram of each field of each event, written by
 * the repositories (no triggers on MySQL, docs/production.md "MySQL-compatible engines"). `gram` has the text
 * columns' collation, so an index lookup finds every trigram the `LIKE` could take for it; the
 * primary key is the event's rows by field (an update replaces one field's rows), the second index
 * answers `gram = ?`. Rows go with their post (foreign key).
 */
export async function up(db: Knex): Promise<void> {
  if (db.client.config.client !== 'mysql2') {
    await db.raw("create virtual table post_search using fts5(title, description, excerpt, content='', contentless_delete=1, tokenize='trigram')");
    await db.raw(`create trigger posts_search_insert after insert on posts when new.type = 'event' begin
      insert into post_search (rowid, title, description, excerpt) values (new.id, lower(new.title), lower(new.description), lower(new.excerpt));
    end`);
    await db.raw(`create trigger posts_search_update after update of title, description, excerpt on posts when new.type = 'event' begin
      delete from post_search where rowid = old.id;
      insert into post_search (rowid, title, description, excerpt) values (new.id, lower(new.title), lower(new.description), lower(new.excerpt));
    end`);
    await db.raw(`create trigger posts_search_delete after delete on posts when old.type = 'event' begin
      delete from post_search where rowid = old.id;
    end`);
    return;
  }
  await db.schema.createTable('post_search_grams', (t) => {
    tableDefaults(db, t);
    t.integer('post_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.tinyint('field').unsigned().notNullable();
    t.integer('n').unsigned().notNullable();
    t.string('gram', 3).notNullable();
    t.primary(['post_id', 'field', 'n']);
    t.index(['gram', 'post_id'], 'post_search_grams_gram_index');
  });
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client !== 'mysql2') {
    for (const trigger of ['posts_search_insert', 'posts_search_update', 'posts_search_delete']) await db.raw(`drop trigger if exists ${trigger}`);
    await db.raw('drop table if exists post_search');
    return;
  }
  await db.schema.dropTableIfExists('post_search_grams');
}
