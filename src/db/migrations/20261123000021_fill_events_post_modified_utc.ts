import type { Knex } from 'knex';

/** Fills `events.post_modified_utc` from `posts.modified_utc` for the events written before it existed. */
export async function up(db: Knex): Promise<void> {
  await db('events').update({ post_modified_utc: db('posts').select('modified_utc').whereRaw('posts.id = events.post_id') });
}

export async function down(): Promise<void> {
  // The column goes with the schema migration's down.
}
