import type { Knex } from 'knex';
import { binaryColumn, tableDefaults } from './helpers.js';

/**
 * Events, venues, organizers and images share one ID space, as WordPress posts do: `posts` allocates
 * the id, records its type and holds the columns every type has; one table per type holds the rest.
 * Dates are 'YYYY-MM-DD HH:MM:SS' strings (local wall time and UTC), written by one helper.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('posts', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.string('type', 20).notNullable();
    t.string('status', 20).notNullable();
    t.integer('author_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    binaryColumn(db, t.string('slug', 200).notNullable());
    t.text('title', 'mediumtext').notNullable();
    t.text('description', 'mediumtext').notNullable();
    t.text('excerpt', 'mediumtext').notNullable();
    t.string('password', 255).nullable();
    t.integer('image_id').unsigned().nullable();
    t.string('date', 19).notNullable();
    t.string('date_utc', 19).notNullable();
    t.string('modified', 19).notNullable();
    t.string('modified_utc', 19).notNullable();
    t.unique(['type', 'slug']);
    // Venue/organizer lists: newest publication first, filtered by status.
    t.index(['type', 'status', 'date_utc', 'id']);
    t.index(['type', 'date_utc', 'id']);
    t.index(['author_id']);
  });
  await db.schema.alterTable('posts', (t) => {
    t.foreign('image_id').references('id').inTable('posts').onDelete('SET NULL');
  });

  await db.schema.createTable('events', (t) => {
    tableDefaults(db, t);
    t.integer('post_id').unsigned().primary().references('id').inTable('posts').onDelete('CASCADE');
    t.string('start_local', 19).notNullable();
    t.string('end_local', 19).notNullable();
    t.string('start_utc', 19).notNullable();
    t.string('end_utc', 19).notNullable();
    t.string('timezone', 64).notNullable();
    t.boolean('all_day').notNullable().defaultTo(false);
    // Cost is parsed once on write: the raw inputs (JSON array of strings), the sorted values (JSON
    // array of strings), their min and max, and the inferred currency symbol and position.
    t.text('cost_raw').notNullable();
    t.text('cost_values').notNullable();
    t.double('cost_min').nullable();
    t.double('cost_max').nullable();
    t.string('currency_symbol', 32).notNullable().defaultTo('');
    t.string('currency_position', 16).notNullable().defaultTo('');
    t.string('currency_code', 16).notNullable().defaultTo('');
    t.text('website').notNullable();
    t.boolean('show_map').notNullable().defaultTo(true);
    t.boolean('show_map_link').notNullable().defaultTo(true);
    t.boolean('hide_from_listings').notNullable().defaultTo(false);
    t.boolean('sticky').notNullable().defaultTo(false);
    t.boolean('featured').notNullable().defaultTo(false);
    t.integer('post_parent').unsigned().nullable();
    // List ordering and the date filters (local wall time by default, UTC as an option).
    t.index(['start_local', 'post_id']);
    t.index(['end_local']);
    t.index(['start_utc']);
    t.index(['post_parent']);
  });

  await db.schema.createTable('venues', (t) => {
    tableDefaults(db, t);
    t.integer('post_id').unsigned().primary().references('id').inTable('posts').onDelete('CASCADE');
    for (const column of ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince']) {
      t.string(column, 255).notNullable().defaultTo('');
    }
    t.text('website').notNullable();
    t.boolean('show_map').notNullable().defaultTo(true);
    t.boolean('show_map_link').notNullable().defaultTo(true);
    t.double('geo_lat').nullable();
    t.double('geo_lng').nullable();
  });

  await db.schema.createTable('organizers', (t) => {
    tableDefaults(db, t);
    t.integer('post_id').unsigned().primary().references('id').inTable('posts').onDelete('CASCADE');
    t.string('phone', 255).notNullable().defaultTo('');
    t.text('website').notNullable();
    t.string('email', 255).notNullable().defaultTo('');
  });

  await db.schema.createTable('images', (t) => {
    tableDefaults(db, t);
    t.integer('post_id').unsigned().primary().references('id').inTable('posts').onDelete('CASCADE');
    t.text('url').notNullable();
    // URLs can be longer than an index allows; the SHA-256 of the URL finds a known image.
    binaryColumn(db, t.string('url_hash', 64).notNullable()).unique();
    t.string('extension', 16).notNullable().defaultTo('');
    t.integer('width').nullable();
    t.integer('height').nullable();
  });

  await db.schema.createTable('event_venues', (t) => {
    tableDefaults(db, t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('venue_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('position').notNullable().defaultTo(0);
    t.primary(['event_id', 'venue_id']);
    t.index(['venue_id', 'event_id']);
  });

  await db.schema.createTable('event_organizers', (t) => {
    tableDefaults(db, t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('organizer_id').unsigned().notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('position').notNullable().defaultTo(0);
    t.primary(['event_id', 'organizer_id']);
    t.index(['organizer_id', 'event_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['event_organizers', 'event_venues', 'images', 'organizers', 'venues', 'events']) {
    await db.schema.dropTable(table);
  }
  await db.schema.alterTable('posts', (t) => t.dropForeign(['image_id']));
  await db.schema.dropTable('posts');
}
