import type { Knex } from 'knex';
import { engineOf } from './engine.js';

/**
 * `column IN (ids)` for reads of records by a list of ids whose length varies from request to
 * request (a page's events, their links, a search's candidates).
 *
 * On SQLite the list is one parameter, a JSON array read by `json_each`, so the statement's text is
 * the same for every length. With one placeholder per id, each length was a statement of its own,
 * prepared again and kept by the connection (db/knex.ts `reusePreparedStatements`): a search's up to
 * 1,000 candidates made statements of every size, and the resident peak of the search scenarios
 * grew by about 8 MB of malloc'd statement programs (docs/performance.md "Memory"). SQLite still
 * drives such a query from the list, one primary-key or index lookup per id.
 *
 * MySQL statements are not prepared (mysql2 sends the text with the values in it), so there a plain
 * `IN` list is kept.
 */
export function whereIdIn(query: Knex.QueryBuilder, db: Knex, column: string, ids: readonly number[]): Knex.QueryBuilder {
  if (engineOf(db) === 'sqlite') return query.whereRaw('?? in (select value from json_each(?))', [column, JSON.stringify(ids)]);
  return query.whereIn(column, ids as number[]);
}

/**
 * Which of `ids` name a row of `table` now: on MySQL a locking read, which sees the latest commit
 * rather than the transaction's snapshot (a row another request deleted after the snapshot is gone
 * here). SQLite runs one writer at a time, so its reads are already the latest.
 */
export async function idsPresentNow(db: Knex, table: 'posts' | 'terms', ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const query = whereIdIn(db(table), db, 'id', ids);
  return new Set((await (engineOf(db) === 'mysql' ? query.forShare() : query).pluck('id')).map(Number));
}
