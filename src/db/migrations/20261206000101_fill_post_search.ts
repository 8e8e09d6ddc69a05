import type { Knex } from 'knex';

/** Events indexed per statement. */
const BATCH = 1000;

/**
 * Fills SQLite's search index again after 20261206000100 made it anew: every event's `lower()` title,
 * description and excerpt, as the triggers write them, in batches of events in id order (emptied
 * first, so a second run cannot index an event twice). Nothing on MySQL.
 */
export async function up(db: Knex): Promise<void> {
  if (db.client.config.client === 'mysql2') return;
  await db.raw("insert into post_search (post_search) values ('delete-all')");
  for (let after = 0; ;) {
    const [last] = await db('posts')
      .where('type', 'event')
      .where('id', '>', after)
      .orderBy('id')
      .offset(BATCH - 1)
      .limit(1)
      .pluck('id');
    const upTo = last === undefined ? Number.MAX_SAFE_INTEGER : Number(last);
    await db.raw(
      "insert into post_search (rowid, title, description, excerpt) select id, lower(title), lower(description), lower(excerpt) from posts where type = 'event' and id > ? and id <= ?",
      [after, upTo],
    );
    if (last === undefined) return;
    after = upTo;
  }
}

export async function down(): Promise<void> {
  // The index goes with the schema migration's down.
}
