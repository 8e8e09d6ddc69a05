import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/** Events per batch when filling the MySQL trigram table. */
const BATCH = 500;

/**
 * Fills the search index (docs/contract.md §15) with the events written before it existed: on SQLite
 * through the FTS table (emptied first, so a second run cannot index an event twice), on MySQL by
 * batches of events in id order.
 */
export async function up(db: Knex, tools: MigrationTools): Promise<void> {
  if (db.client.config.client !== 'mysql2') {
    await db.raw("insert into post_search (post_search) values ('delete-all')");
    await db.raw("insert into post_search (rowid, title, description, excerpt) select id, lower(title), lower(description), lower(excerpt) from posts where type = 'event'");
    return;
  }
  await fillSearchGrams(db, tools);
}

/** Indexes every event of a MySQL database from scratch (also the benchmark's seeder, after its bulk load). */
export async function fillSearchGrams(db: Knex, { insertSearchGrams, searchGramRows }: Pick<MigrationTools, 'insertSearchGrams' | 'searchGramRows'>): Promise<void> {
  await db('post_search_grams').delete();
  for (let after = 0; ;) {
    const posts = await db('posts').where('type', 'event').where('id', '>', after).orderBy('id').limit(BATCH).select('id', 'title', 'description', 'excerpt');
    if (posts.length === 0) return;
    await insertSearchGrams(
      db,
      posts.flatMap((p: { id: number; title: string; description: string; excerpt: string }) => searchGramRows(Number(p.id), p)),
    );
    after = Number(posts[posts.length - 1].id);
  }
}

export async function down(): Promise<void> {
  // The index goes with the schema migration's down.
}
