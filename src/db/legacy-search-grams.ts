import type { Knex } from 'knex';
import type { SearchGramRow } from './migrations/helpers.js';
import { trigramsOf } from '../text/trigrams.js';

/**
 * The rows of MySQL's first search index, `post_search_grams` (one row per distinct trigram of each
 * field of each event), for the migrations that create and fill it (20261125000100/101) and run
 * before 20261204000100–102 replace it with shared texts (db/search-index.ts).
 */

/** Rows per multi-row INSERT. */
const INSERT_ROWS = 2000;

/** The `post_search_grams` rows of some fields of one event (fields numbered as SEARCHED_FIELDS). */
export function searchGramRows(postId: number, fields: { title?: string; description?: string; excerpt?: string }): SearchGramRow[] {
  const rows: SearchGramRow[] = [];
  (['title', 'description', 'excerpt'] as const).forEach((name, field) => {
    const text = fields[name];
    if (text !== undefined) trigramsOf(text).forEach((gram, n) => rows.push({ post_id: postId, field, n, gram }));
  });
  return rows;
}

/**
 * Inserts `post_search_grams` rows in multi-row statements. Only migrations call it, and they run
 * before the process listens (main.ts): no request waits for the loop, so it takes no turns.
 */
export async function insertSearchGrams(db: Knex, rows: SearchGramRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    const part = rows.slice(i, i + INSERT_ROWS);
    await db.raw(
      `insert into post_search_grams (post_id, field, n, gram) values ${part.map(() => '(?, ?, ?, ?)').join(', ')}`,
      part.flatMap((row) => [row.post_id, row.field, row.n, row.gram]),
    );
  }
}
