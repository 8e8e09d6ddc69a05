import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/** Events per batch. */
const BATCH = 500;

/**
 * Fills MySQL's shared-text search index (20261204000100, db/search-index.ts) with every event, by
 * batches in id order, emptied first so that a second run cannot index an event twice. Nothing to do
 * on SQLite (its FTS5 table stays).
 */
export async function up(db: Knex, tools: MigrationTools): Promise<void> {
  if (db.client.config.client !== 'mysql2') return;
  await fillSearchTexts(db, tools);
}

/** Indexes every event of a MySQL database from scratch (also the benchmark's seeder, after its bulk load). */
export async function fillSearchTexts(db: Knex, { indexNewSearchTexts }: Pick<MigrationTools, 'indexNewSearchTexts'>): Promise<void> {
  for (const table of ['post_search_texts', 'search_text_grams', 'search_texts']) await db(table).delete();
  for (let after = 0; ;) {
    const posts = await db('posts').where('type', 'event').where('id', '>', after).orderBy('id').limit(BATCH).select('id', 'title', 'description', 'excerpt');
    if (posts.length === 0) return;
    await indexNewSearchTexts(
      db,
      posts.map((p: { id: number; title: string; description: string; excerpt: string }) => ({ id: Number(p.id), fields: p })),
    );
    after = Number(posts[posts.length - 1].id);
  }
}

export async function down(): Promise<void> {
  // The index goes with the schema migration's down.
}
