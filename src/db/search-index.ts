import type { Knex } from 'knex';
import { engineOf } from './engine.js';
import { whereIdIn } from './id-lists.js';
import { narrowingTrigrams, spreadTrigrams, trigramsOf } from '../text/trigrams.js';

/**
 * The index behind the events list's `search` (docs/contract.md §15). It only narrows: a list keeps
 * the exact `LIKE` match of its search terms, and asks the index first for the events that can
 * possibly match, so that the `LIKE` runs over those instead of over every event of the window.
 *
 * - SQLite: `post_search`, a contentless FTS5 table (trigram tokenizer, rowid = post id) holding
 *   `lower()` of each event's title, description and excerpt, kept in step by triggers on `posts`
 *   (migration 20261125000100). `lower()` is the connection's (db/sql-functions.ts), the one the
 *   `LIKE` compares, so the index holds exactly the text the `LIKE` reads.
 * - MySQL: `post_search_grams`, one row per distinct trigram of each field of each event, the
 *   trigram in the text columns' collation, written here by every write of an event's text (no
 *   triggers on MySQL, docs/production.md "MySQL-compatible engines").
 */

/** The text fields the search reads, and their number in `post_search_grams.field`. */
export const SEARCHED_FIELDS = ['title', 'description', 'excerpt'] as const;
export type SearchedField = (typeof SEARCHED_FIELDS)[number];

/** Trigrams of one term the MySQL query intersects (more only narrows a little further, and costs a join each). */
const MOST_TRIGRAMS_PER_TERM = 4;

/** Rows per multi-row INSERT of trigrams. */
const INSERT_ROWS = 1000;

/** The `post_search_grams` rows of some fields of one event. */
export function searchGramRows(postId: number, fields: Partial<Record<SearchedField, string>>): Array<{ post_id: number; field: number; n: number; gram: string }> {
  const rows: Array<{ post_id: number; field: number; n: number; gram: string }> = [];
  SEARCHED_FIELDS.forEach((name, field) => {
    const text = fields[name];
    if (text !== undefined) trigramsOf(text).forEach((gram, n) => rows.push({ post_id: postId, field, n, gram }));
  });
  return rows;
}

/** Inserts trigram rows in multi-row statements. */
export async function insertSearchGrams(trx: Knex, rows: Array<{ post_id: number; field: number; n: number; gram: string }>): Promise<void> {
  // Written as SQL: Knex's builder spends more CPU on a few hundred row objects than the server on the rows.
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    const part = rows.slice(i, i + INSERT_ROWS);
    await trx.raw(
      `insert into post_search_grams (post_id, field, n, gram) values ${part.map(() => '(?, ?, ?, ?)').join(', ')}`,
      part.flatMap((row) => [row.post_id, row.field, row.n, row.gram]),
    );
  }
}

/**
 * Writes the new text of some fields of events into the index, in the writer's transaction, after
 * the `posts` rows were written (on MySQL the post's row lock then orders concurrent writers of one
 * event, so the index ends as the last of them left the text). `isNew`: the events have no rows yet
 * (skipping the DELETE avoids gap locks between concurrent creates). SQLite's triggers do this.
 */
export async function indexSearchText(trx: Knex, ids: number[], fields: Partial<Record<SearchedField, string>>, isNew = false): Promise<void> {
  if (engineOf(trx) !== 'mysql' || ids.length === 0) return;
  const changed = SEARCHED_FIELDS.flatMap((name, field) => (fields[name] === undefined ? [] : [field]));
  if (changed.length === 0) return;
  if (!isNew) await trx('post_search_grams').whereIn('post_id', ids).whereIn('field', changed).delete();
  await insertSearchGrams(
    trx,
    ids.flatMap((id) => searchGramRows(id, fields)),
  );
}

/**
 * The events having (a few of) each term's trigrams, in any field (MySQL), in `column` (`distinct`
 * to list them); equality in the column's collation, which is at least as loose, character by
 * character, as the `LIKE`'s.
 */
function gramCandidates(db: Knex, gramsOfTerms: string[][], column: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Knex.QueryBuilder {
  const [first, ...rest] = [...new Set(gramsOfTerms.flatMap((grams) => spreadTrigrams(grams, MOST_TRIGRAMS_PER_TERM)))];
  const candidates = column(db('post_search_grams as g0').where('g0.gram', first));
  rest.forEach((gram, i) => candidates.join(`post_search_grams as g${i + 1}`, (on) => on.on(`g${i + 1}.post_id`, 'g0.post_id').andOnVal(`g${i + 1}.gram`, '=', gram)));
  return candidates;
}

/**
 * Candidates listed one by one up to this many: the list then drives the query (a few
 * primary-key lookups). A term with more matches is left as a filter on the other indexes' rows.
 * MySQL lists each term's the same way.
 */
const LISTED_CANDIDATES = 1000;

/**
 * The list's own setting of the above: tests lower it (test/property/search-index.property.test.ts)
 * so that small calendars also reach the filter form through the whole list.
 */
export const searchListing = { atMost: LISTED_CANDIDATES };

/**
 * Narrows a list to the events whose text may contain every one of `terms` (already lower-cased as
 * the `LIKE` patterns are), on `column` (the event's post id). Terms the index cannot narrow (under
 * three characters) add nothing: the `LIKE` alone decides them. Returns whether anything was added.
 * `listedAtMost`: see LISTED_CANDIDATES (tests lower it to reach the filter form). `filterWhenMany`
 * (SQLite): asked when the matches are too many to list; false leaves them to the `LIKE` (the
 * caller's other filters already name fewer events than the filter would read). `listFirst` (MySQL):
 * false keeps each term a subquery without listing (the caller's other filters name so few events
 * that MariaDB does best starting from them: a category's 60 days, docs/performance.md).
 */
export async function whereSearchCandidates(
  db: Knex,
  query: Knex.QueryBuilder,
  column: string,
  terms: string[],
  {
    listedAtMost = searchListing.atMost,
    filterWhenMany = async () => true,
    listFirst = async () => true,
  }: { listedAtMost?: number; filterWhenMany?: () => Promise<boolean>; listFirst?: () => Promise<boolean> } = {},
): Promise<boolean> {
  const narrowing = terms.map((term) => ({ term, grams: narrowingTrigrams(term) })).filter((t): t is { term: string; grams: string[] } => t.grams !== undefined);
  if (narrowing.length === 0) return false;
  if (engineOf(db) === 'sqlite') {
    // Each term as an FTS5 phrase (a quoted string: every character literal, `"` doubled); the trigram
    // tokenizer matches a phrase where its trigrams follow each other, i.e. where the text contains it.
    const match = narrowing.map(({ term }) => `"${term.replace(/"/g, '""')}"`).join(' AND ');
    // SQLite's planner cannot tell how many events an FTS match names, and starting from the match
    // reads every matching event (25,000 of 1M events for a word in 2.5 % of them, 60 ms), while the
    // date window or a category may hold far fewer. So: few matches (a rare word) are listed and drive
    // the query; more are a filter (`+` keeps the planner from starting there) on the rows the other
    // indexes find, which the LIKE then reads only where the match allows.
    const listed = await db.raw(`select rowid as id from post_search where post_search match ? limit ${listedAtMost + 1}`, [match]);
    if (listed.length <= listedAtMost)
      whereIdIn(
        query,
        db,
        column,
        listed.map((row: { id: number }) => Number(row.id)),
      );
    else if (await filterWhenMany()) query.whereRaw(`+${column} in (select rowid from post_search where post_search match ?)`, [match]);
    else return false;
    return true;
  }
  // MySQL: the events having every term's trigrams, up to LISTED_CANDIDATES of them, are listed
  // first from the trigram index alone (MariaDB starts from the rarest trigram), and drive the query
  // by primary key, so the LIKE reads only those. As a subquery instead, MariaDB reads the window's
  // events in date order and runs the (collation-aware, costly) LIKE on each before asking the index:
  // a rare phrase over the default window read 5,000 events, 0.45 s at 10k events. Not listed
  // (`listFirst`), each term stays such a subquery (docs/architecture.md "Search from an index").
  const grams = narrowing.map((t) => t.grams);
  if (!(await listFirst())) {
    for (const termGrams of grams)
      query.whereIn(
        column,
        gramCandidates(db, [termGrams], (q) => q.select('g0.post_id')),
      );
    return true;
  }
  const listed = await gramCandidates(db, grams, (q) => q.distinct('g0.post_id')).limit(listedAtMost + 1);
  if (listed.length <= listedAtMost)
    query.whereIn(
      column,
      listed.map((row: { post_id: number }) => Number(row.post_id)),
    );
  // Too many to list: the same set as a derived table, which MariaDB materialises and runs the LIKE
  // on its events only; as a plain subquery it ran the LIKE on every event of the window first (a
  // count of a word in 2.5 % of 100k events over a six-year window: 1.2 s against 0.15 s).
  else query.whereIn(column, db.from(gramCandidates(db, grams, (q) => q.distinct('g0.post_id')).as('c')).select('c.post_id'));
  return true;
}
