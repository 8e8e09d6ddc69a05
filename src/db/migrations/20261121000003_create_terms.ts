import type { Knex } from 'knex';
import { binaryColumn, tableDefaults } from './helpers.js';

/** Categories and tags share one ID space (one table, told apart by `taxonomy`), and their links to events. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('terms', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.string('taxonomy', 32).notNullable();
    t.string('name', 200).notNullable();
    binaryColumn(db, t.string('slug', 200).notNullable());
    t.text('description', 'mediumtext').notNullable();
    t.integer('parent').unsigned().notNullable().defaultTo(0);
    // WordPress's term count: published events carrying the term, kept up to date by every event
    // write (repositories/events.ts recountTerms) so that reads never count.
    t.integer('published_count').unsigned().notNullable().defaultTo(0);
    // The lower-cased name, so that one name per level is enforced by the database even under
    // concurrent creates. NULL for a term WordPress lets share a name because it was given its own slug.
    t.string('name_key', 200).nullable();
    t.unique(['taxonomy', 'slug']);
    t.unique(['taxonomy', 'parent', 'name_key']);
    t.index(['taxonomy', 'parent']);
    t.index(['taxonomy', 'name']);
    t.index(['taxonomy', 'published_count']);
  });
  await db.schema.createTable('event_terms', (t) => {
    tableDefaults(db, t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('term_id').unsigned().notNullable().references('id').inTable('terms').onDelete('CASCADE');
    t.primary(['event_id', 'term_id']);
    t.index(['term_id', 'event_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('event_terms');
  await db.schema.dropTable('terms');
}
