import type { Knex } from 'knex';

/**
 * A copy of each event's local start and end on its term links (`event_terms`), indexed by start
 * within each term, so that a list filtered by a category or tag and a date window reads only the
 * window's part of that term's links instead of all of them (docs/performance.md "What limits it"). The
 * copy is the event's `start_local` / `end_local`, compared as the window compares them (same
 * columns, same form); repositories/term-link-times.ts writes it, the data migration after this one fills it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('event_terms', (t) => {
    t.string('start_local', 19).nullable();
    t.string('end_local', 19).nullable();
    t.index(['term_id', 'start_local', 'end_local', 'event_id'], 'event_terms_term_start_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('event_terms', (t) => {
    t.dropIndex(['term_id', 'start_local', 'end_local', 'event_id'], 'event_terms_term_start_index');
    t.dropColumn('start_local');
    t.dropColumn('end_local');
  });
}
