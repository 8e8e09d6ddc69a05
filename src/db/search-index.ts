import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { engineOf } from './engine.js';
import { whereIdIn } from './id-lists.js';
import { loopTurn } from '../core/loop-turns.js';
import { narrowingTrigrams, spreadTrigrams, trigramsOf } from '../text/trigrams.js';

/**
 * The index behind the events list's `search` (docs/contract.md §15). It only narrows: a list keeps
 * the exact `LIKE` match of its search terms, and asks the index first for the events that can
 * possibly match, so that the `LIKE` runs over those instead of over every event of the window.
 *
 * - SQLite: `post_search`, a contentless FTS5 table (trigram tokenizer, rowid = post id, no token
 *   positions) holding `lower()` of each event's title, description and excerpt, kept in step by
 *   triggers on `posts` (migrations 20261125000100, 20261206000100). `lower()` is the connection's (db/sql-functions.ts), the one the
 *   `LIKE` compares, so the index holds exactly the text the `LIKE` reads.
 * - MySQL: shared texts (migration 20261204000100). `search_text_grams` holds one row per distinct
 *   trigram of each distinct text, once, keyed by the text's hash (`search_texts`), the trigram in
 *   the text columns' collation; `post_search_texts` names the text of each field of each event. A
 *   series' 1,000 occurrences with one 16 KB description write its ~3,000 trigrams once and 1,000
 *   small rows, not 3 million rows. Written here by every write of an event's text (no triggers on
 *   MySQL, docs/production.md "MySQL-compatible engines").
 *
 * Shared texts and their cleaning (MySQL). A text's trigrams are written with its `search_texts` row,
 * in one transaction, and deleted with it, in one transaction, so a committed row means its trigrams
 * are all there. An event may only be mapped to a text whose row its writer holds: a writer inserts
 * the row (`insert ignore`) and, when it was there already, holds a shared lock on it until commit.
 * A text stays while an event names it: a write that unmaps a text (an event's field changed, or the
 * event deleted) takes the text's row exclusively, then looks for any event still naming it with a
 * locking read (the latest committed rows, not the transaction's snapshot), and only when there is
 * none deletes the text. The exclusive lock waits for every writer mapping to the text to commit,
 * and a writer waits for a cleaner to commit (then inserts the text again), so no event is ever left
 * naming a text without its trigrams. Two writes doing both in opposite orders can deadlock; the
 * write transaction runs again (db/transactions.ts). The event's row names its text by a foreign
 * key, which InnoDB checks with the same shared lock, and which on a Galera cluster (row locks hold
 * on their node only) makes a text's delete and a write naming it through another node conflict at
 * certification: one of them runs again. Extra trigrams never give wrong answers (the
 * `LIKE` decides), missing ones would.
 */

/** The text fields the search reads, and their number in `post_search_texts.field`. */
export const SEARCHED_FIELDS = ['title', 'description', 'excerpt'] as const;
type SearchedField = (typeof SEARCHED_FIELDS)[number];

/** Trigrams of one term a query intersects, spread over the term (more only narrows a little further, and costs a join, or on SQLite a doclist, each). */
const MOST_TRIGRAMS_PER_TERM = 4;

/** Rows per multi-row INSERT of trigrams or of events' texts. */
const INSERT_ROWS = 2000;

/** Events per read or DELETE of their texts. */
const DELETE_IDS = 100;

/** The key of a text in the MySQL index: SHA-256 of the text, in hex. */
export function textHash(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** Whether a text has a trigram (three code points); one without can match no narrowing term, and is not indexed. */
function hasTrigrams(text: string): boolean {
  return text.length >= 3 && Array.from(text).length >= 3;
}

/** Texts of events' fields, each distinct text once. */
type Texts = Map<string, string>;

/** Texts per multi-row INSERT of their rows. */
const TEXTS_PER_STATEMENT = 500;

/**
 * Makes sure each text has its row and trigrams, and holds its row until the transaction ends
 * (see "Shared texts and their cleaning"): a row this transaction inserts gets its trigrams; one
 * found is share-locked. In hash order, so that writers of the same texts take them in one order.
 * New texts (an import, the fill, a create) are inserted many rows a statement: when the statement
 * inserts every row, all are this transaction's; otherwise the statement's texts are held in one
 * statement and those without trigrams found in another (two statements whatever their number).
 */
async function holdTexts(trx: Knex, texts: Texts): Promise<void> {
  let pending: Array<{ text_hash: string; n: number; gram: string }> = [];
  const flush = async () => {
    await loopTurn();
    // `ignore`: a text looked at alone may have had its trigrams written by a writer that committed after this transaction's snapshot.
    await trx.raw(
      `insert ignore into search_text_grams (text_hash, n, gram) values ${pending.map(() => '(?, ?, ?)').join(', ')}`,
      pending.flatMap((row) => [row.text_hash, row.n, row.gram]),
    );
    pending = [];
  };
  const addGrams = async (hash: string) => {
    for (const [n, gram] of trigramsOf(texts.get(hash)!).entries()) {
      pending.push({ text_hash: hash, n, gram });
      if (pending.length >= INSERT_ROWS) await flush();
    }
  };
  const hashes = [...texts.keys()].sort();
  for (let i = 0; i < hashes.length; i += TEXTS_PER_STATEMENT) {
    const part = hashes.slice(i, i + TEXTS_PER_STATEMENT);
    const [inserted] = (await trx.raw(`insert ignore into search_texts (text_hash) values ${part.map(() => '(?)').join(', ')}`, part)) as unknown as [{ affectedRows: number }];
    if (inserted.affectedRows === part.length) {
      for (const hash of part) await addGrams(hash);
      continue;
    }
    // Some rows were there already: the part's rows are held with a shared lock, in one statement;
    // a row gone meanwhile (a cleaner's delete committed after the insert) is inserted again.
    for (;;) {
      const [rows] = (await trx.raw(`select text_hash from search_texts where text_hash in (${part.map(() => '?').join(', ')}) lock in share mode`, part)) as unknown as [
        Array<{ text_hash: string }>,
      ];
      const held = new Set(rows.map((row) => row.text_hash));
      const gone = part.filter((hash) => !held.has(hash));
      if (gone.length === 0) break;
      await trx.raw(`insert ignore into search_texts (text_hash) values ${gone.map(() => '(?)').join(', ')}`, gone);
    }
    // A row may be this statement's (no trigrams yet) or another writer's (its trigrams committed with it).
    const withGrams = new Set<string>(await trx('search_text_grams').whereIn('text_hash', part).where('n', 0).pluck('text_hash'));
    for (const hash of part) if (!withGrams.has(hash)) await addGrams(hash);
  }
  if (pending.length) await flush();
}

/** Writes which text each field of each event has. */
async function mapTexts(trx: Knex, rows: Array<{ post_id: number; field: number; text_hash: string }>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    await loopTurn();
    const part = rows.slice(i, i + INSERT_ROWS);
    await trx.raw(
      `insert into post_search_texts (post_id, field, text_hash) values ${part.map(() => '(?, ?, ?)').join(', ')}`,
      part.flatMap((row) => [row.post_id, row.field, row.text_hash]),
    );
  }
}

/** Removes the texts of some fields (all: `undefined`) of events; returns the texts they named. */
async function unmapTexts(trx: Knex, ids: number[], fields?: number[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (let i = 0; i < ids.length; i += DELETE_IDS) {
    const part = ids.slice(i, i + DELETE_IDS);
    const rows = () => {
      const q = trx('post_search_texts').whereIn('post_id', part);
      return fields ? q.whereIn('field', fields) : q;
    };
    for (const hash of await rows().forUpdate().distinct().pluck('text_hash')) named.add(String(hash));
    await rows().delete();
  }
  return named;
}

/** Deletes the texts no event names any more (see "Shared texts and their cleaning"). */
async function cleanTexts(trx: Knex, hashes: Iterable<string>): Promise<void> {
  for (const hash of [...hashes].sort()) {
    const [locked] = (await trx.raw('select text_hash from search_texts where text_hash = ? for update', [hash])) as unknown as [unknown[]];
    if (locked.length === 0) continue;
    const [used] = (await trx.raw('select post_id from post_search_texts where text_hash = ? limit 1 lock in share mode', [hash])) as unknown as [unknown[]];
    if (used.length) continue;
    await trx('search_text_grams').where('text_hash', hash).delete();
    await trx('search_texts').where('text_hash', hash).delete();
  }
}

/**
 * Writes the new text of some fields of events into the index, in the writer's transaction, after
 * the `posts` rows were written (on MySQL the post's row lock then orders concurrent writers of one
 * event, so the index ends as the last of them left the text). `isNew`: the events have no rows yet.
 * SQLite's triggers do this. The events share the text (a series' occurrences): its trigrams are
 * found and written once, and each event gets a row per field naming it.
 */
export async function indexSearchText(trx: Knex, ids: number[], fields: Partial<Record<SearchedField, string>>, isNew = false): Promise<void> {
  if (engineOf(trx) !== 'mysql' || ids.length === 0) return;
  const changed = SEARCHED_FIELDS.flatMap((name, field) => (fields[name] === undefined ? [] : [{ field, text: fields[name]! }]));
  if (changed.length === 0) return;
  const old = isNew
    ? new Set<string>()
    : await unmapTexts(
        trx,
        ids,
        changed.map((c) => c.field),
      );
  // A text without trigrams (under three characters) can match no narrowing term: no row needed.
  const kept = changed.filter((c) => hasTrigrams(c.text)).map((c) => ({ ...c, hash: textHash(c.text) }));
  await holdTexts(trx, new Map(kept.map((c) => [c.hash, c.text])));
  await mapTexts(
    trx,
    ids.flatMap((id) => kept.map((c) => ({ post_id: id, field: c.field, text_hash: c.hash }))),
  );
  for (const c of kept) old.delete(c.hash);
  await cleanTexts(trx, old);
}

/** Indexes new events, each with its own texts (an import, the migration's fill, the benchmark's seeder). */
export async function indexNewSearchTexts(trx: Knex, events: Array<{ id: number; fields: Partial<Record<SearchedField, string>> }>): Promise<void> {
  if (engineOf(trx) !== 'mysql' || events.length === 0) return;
  const texts: Texts = new Map();
  const rows: Array<{ post_id: number; field: number; text_hash: string }> = [];
  for (const { id, fields } of events)
    SEARCHED_FIELDS.forEach((name, field) => {
      const text = fields[name];
      if (text === undefined || !hasTrigrams(text)) return;
      const hash = textHash(text);
      texts.set(hash, text);
      rows.push({ post_id: id, field, text_hash: hash });
    });
  await holdTexts(trx, texts);
  await mapTexts(trx, rows);
}

/** Removes events' texts from the index before the events are deleted, deleting the texts no other event names. */
export async function unindexSearchText(trx: Knex, ids: number[]): Promise<void> {
  if (engineOf(trx) !== 'mysql' || ids.length === 0) return;
  await cleanTexts(trx, await unmapTexts(trx, ids));
}

/** The texts having (a few of) a term's trigrams; equality in the column's collation, at least as loose, character by character, as the `LIKE`'s. */
function textsWith(db: Knex, grams: string[]): Knex.QueryBuilder {
  const [first, ...rest] = spreadTrigrams(grams, MOST_TRIGRAMS_PER_TERM);
  const texts = db('search_text_grams as g0').where('g0.gram', first).select('g0.text_hash');
  rest.forEach((gram, i) => texts.join(`search_text_grams as g${i + 1}`, (on) => on.on(`g${i + 1}.text_hash`, 'g0.text_hash').andOnVal(`g${i + 1}.gram`, '=', gram)));
  return texts;
}

/**
 * The events having, for every term, a field whose text has (a few of) the term's trigrams (MySQL):
 * the `LIKE` matches each term within one field, so its trigrams are all in one text. `distinct`
 * to list them.
 */
function gramCandidates(db: Knex, gramsOfTerms: string[][], column: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Knex.QueryBuilder {
  const candidates = column(db('post_search_texts as m0').whereIn('m0.text_hash', textsWith(db, gramsOfTerms[0])));
  gramsOfTerms
    .slice(1)
    .forEach((grams, i) => candidates.join(`post_search_texts as m${i + 1}`, `m${i + 1}.post_id`, 'm0.post_id').whereIn(`m${i + 1}.text_hash`, textsWith(db, grams)));
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
    // Every trigram of every term (a few of a long term's, as on MySQL), each an FTS5 string of one
    // token (quoted: every character literal, `"` doubled). The index keeps no positions (migration
    // 20261206000100), so it cannot match a term as a phrase: the events having all its trigrams are
    // candidates, and the `LIKE` decides.
    const match = narrowing
      .flatMap(({ grams }) => spreadTrigrams(grams, MOST_TRIGRAMS_PER_TERM))
      .map((gram) => `"${gram.replace(/"/g, '""')}"`)
      .join(' AND ');
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
        gramCandidates(db, [termGrams], (q) => q.select('m0.post_id')),
      );
    return true;
  }
  const listed = await gramCandidates(db, grams, (q) => q.distinct('m0.post_id')).limit(listedAtMost + 1);
  if (listed.length <= listedAtMost)
    query.whereIn(
      column,
      listed.map((row: { post_id: number }) => Number(row.post_id)),
    );
  // Too many to list: the same set as a derived table, which MariaDB materialises and runs the LIKE
  // on its events only; as a plain subquery it ran the LIKE on every event of the window first (a
  // count of a word in 2.5 % of 100k events over a six-year window: 1.2 s against 0.15 s).
  else query.whereIn(column, db.from(gramCandidates(db, grams, (q) => q.distinct('m0.post_id')).as('c')).select('c.post_id'));
  return true;
}
