import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * Recurring events (docs/contract.md §14). A series is named by its first event (`event_series.id`
 * is that event's post id, and goes with it); it keeps its rules as the RFC 5545 content lines the
 * client sent (a JSON array of strings), the zone they are read in, and how far its occurrences are
 * materialised (a local wall-clock time, inclusive).
 *
 * Every occurrence is an ordinary event row (posts + events, its own id in the shared id space), so
 * lists, filters and totals stay the index reads they are. On `events`: `series_id` (the first
 * event's id; null for single events), `recurrence_start` (the local start the rules give the
 * occurrence: its RECURRENCE-ID, unique within the series) and `exception` (edited on its own: the
 * series' later edits leave its content and times alone).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('event_series', (t) => {
    tableDefaults(db, t);
    t.integer('id').unsigned().primary().references('id').inTable('posts').onDelete('CASCADE');
    t.text('rules').notNullable();
    t.string('timezone', 64).notNullable();
    t.string('materialised_until', 19).notNullable();
    // The rolling horizon extends the series that are furthest behind first.
    t.index(['materialised_until'], 'event_series_materialised_index');
  });
  await db.schema.alterTable('events', (t) => {
    t.integer('series_id').unsigned().nullable();
    t.string('recurrence_start', 19).nullable();
    t.boolean('exception').notNullable().defaultTo(false);
    // A series' occurrences in order (GET /events/{id}/occurrences), and one row per RECURRENCE-ID.
    t.unique(['series_id', 'recurrence_start'], { indexName: 'events_series_occurrence_unique' });
    t.index(['series_id', 'start_local', 'post_id'], 'events_series_start_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('events', (t) => {
    t.dropIndex(['series_id', 'start_local', 'post_id'], 'events_series_start_index');
    t.dropUnique(['series_id', 'recurrence_start'], 'events_series_occurrence_unique');
    t.dropColumn('exception');
    t.dropColumn('recurrence_start');
    t.dropColumn('series_id');
  });
  await db.schema.dropTableIfExists('event_series');
}
