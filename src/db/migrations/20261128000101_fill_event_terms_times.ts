import type { Knex } from 'knex';

/**
 * Fills the copy of each event's local start and end on its term links (the migration before this
 * one), for the links written before it existed. Written out here rather than calling the
 * repositories, so that this migration does what it did when it shipped.
 */
export async function up(db: Knex): Promise<void> {
  const ofEvent = (column: string) => db('events').select(column).whereRaw('events.post_id = event_terms.event_id');
  await db('event_terms').update({ start_local: ofEvent('start_local'), end_local: ofEvent('end_local') });
}

export async function down(): Promise<void> {
  // The columns go with the schema migration's down.
}
