import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * What reads show of stored HTML texts, rendered when written (db/rendered-texts.ts,
 * docs/architecture.md "Rendered texts"):
 *
 * - `rendered_texts`: one row per distinct text (`hash`: SHA-256 of its kind and text, hex), every
 *   form a read shows of it (text/rendered-forms.ts); `embedded` is NULL where it equals `paragraphs`.
 * - `posts.description_hash`, `posts.excerpt_hash`, `terms.description_hash`: the row of the field's
 *   text, NULL for an empty text. Indexed, for the cleaner's "does anything still name this text".
 *   On MySQL foreign keys too (no cascade): a named row cannot be deleted, and on a Galera cluster a
 *   delete and a write naming the row through another node conflict at certification. Not on SQLite,
 *   where adding one would rebuild `posts` (its search triggers with it); one writer at a time there.
 *
 * 20261207000101 fills them for the rows already stored.
 */
/** The columns that name a row of `rendered_texts`, by table. */
const KEY_COLUMNS = [
  ['posts', ['description_hash', 'excerpt_hash']],
  ['terms', ['description_hash']],
] as const;

export async function up(db: Knex): Promise<void> {
  const mysql = db.client.config.client === 'mysql2';
  const hash = (t: Knex.CreateTableBuilder | Knex.AlterTableBuilder, name: string) =>
    mysql ? t.specificType(name, 'char(64) character set ascii collate ascii_bin') : t.string(name, 64);
  await db.schema.createTable('rendered_texts', (t) => {
    tableDefaults(db, t);
    hash(t, 'hash').notNullable().primary();
    for (const form of ['paragraphs', 'plain', 'text', 'page_html', 'summary']) t.text(form, 'mediumtext').notNullable();
    t.text('embedded', 'mediumtext').nullable();
  });
  for (const [table, columns] of KEY_COLUMNS) {
    await db.schema.alterTable(table, (t) => {
      for (const column of columns) {
        hash(t, column).nullable();
        t.index([column], `${table}_${column}_index`);
        if (mysql) t.foreign(column, `${table}_${column}_foreign`).references('hash').inTable('rendered_texts');
      }
    });
  }
}

export async function down(db: Knex): Promise<void> {
  const mysql = db.client.config.client === 'mysql2';
  for (const [table, columns] of KEY_COLUMNS) {
    await db.schema.alterTable(table, (t) => {
      for (const column of columns) {
        if (mysql) t.dropForeign([column], `${table}_${column}_foreign`);
        t.dropIndex([column], `${table}_${column}_index`);
      }
    });
    await db.schema.alterTable(table, (t) => {
      for (const column of columns) t.dropColumn(column);
    });
  }
  await db.schema.dropTableIfExists('rendered_texts');
}
