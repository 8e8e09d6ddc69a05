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
