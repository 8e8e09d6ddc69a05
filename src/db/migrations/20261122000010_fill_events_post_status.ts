import type { Knex } from 'knex';

/** Fills `events.post_status` from `posts.status` for the events written before it existed. */
export async function up(db: Knex): Promise<void> {
  await db('events').update({ post_status: db('posts').select('status').whereRaw('posts.id = events.post_id') });
}

export async function down(): Promise<void> {
  // The column goes with the schema migration's down.
}
