import type { Knex } from 'knex';

/**
 * SQLite's search index without token positions (`detail=column`; docs/architecture.md "Search from
 * an index"). The list's search only asks the index which events have every trigram of a term; the
 * `LIKE` decides, so positions were never needed, yet they were most of what the index wrote: a
 * series of 1,000 occurrences with a 16 KB description wrote 21.5 MB of index log, and SQLite merged
 * that index inside the commit, one call holding the event loop 65–100 ms. Without positions the
 * same write logs 0.4 MB and commits in about 8 ms. A contentless table cannot be altered: it is
 * made again, empty (20261206000101 fills it). The triggers of 20261125000100 name the table, not
 * its options, and stay. MySQL has no such table.
 */
const COLUMNS = "title, description, excerpt, content='', contentless_delete=1, tokenize='trigram'";

export async function up(db: Knex): Promise<void> {
  if (db.client.config.client === 'mysql2') return;
  await db.raw('drop table post_search');
  await db.raw(`create virtual table post_search using fts5(${COLUMNS}, detail=column)`);
}

/** Back to positions, empty: 20261125000101's fill refills it if run again. */
export async function down(db: Knex): Promise<void> {
  if (db.client.config.client === 'mysql2') return;
  await db.raw('drop table post_search');
  await db.raw(`create virtual table post_search using fts5(${COLUMNS})`);
}
