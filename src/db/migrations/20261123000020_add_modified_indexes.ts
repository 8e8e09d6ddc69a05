import type { Knex } from 'knex';

/**
 * `modified_after` / `modified_before` and `orderby=modified` (docs/contract.md §8) read from an
 * index: a copy of the event's `posts.modified_utc` on `events` (as for the status and publication
 * date, so an event list filters and orders from `events` alone), indexed after what an anonymous
 * list filters on (status, listing flag), and the same order over `posts` for venues and organizers.
 * A sync page (`modified_after` near now) then reads the changed records only, whatever the size of
 * the calendar. The data migration after this one fills the copy for existing events.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('events', (t) => {
    t.string('post_modified_utc', 19).nullable();
    t.index(['post_status', 'hide_from_listings', 'post_modified_utc', 'post_id'], 'events_modified_index');
  });
  await db.schema.alterTable('posts', (t) => {
    t.index(['type', 'status', 'modified_utc', 'id'], 'posts_modified_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.dropIndex(['type', 'status', 'modified_utc', 'id'], 'posts_modified_index');
  });
  await db.schema.alterTable('events', (t) => {
    t.dropIndex(['post_status', 'hide_from_listings', 'post_modified_utc', 'post_id'], 'events_modified_index');
    t.dropColumn('post_modified_utc');
  });
}
