import type { Knex } from 'knex';
import { likeEscape, slugLookups } from '../text/slugs.js';
import { engineOf } from '../db/engine.js';
import { whereIdIn } from '../db/id-lists.js';
import { TurnClock } from '../core/loop-turns.js';
import { protectedTextHidden, type ProtectedTextScope } from './read-scope.js';
import type { Taxonomy } from './taxonomies.js';

/**
 * The lists of a taxonomy's terms (`GET /categories`, `GET /tags`): their filters and orders, and
 * how a list over a table of many terms is read (docs/limits.md "Term lists").
 */

/**
 * How far into its order a term list may be paged (docs/limits.md "Term lists"): a page that starts
 * before the end of the list and reaches past this many terms answers 400 (operations/terms.ts).
 */
export const TERM_LIST_WINDOW = 10_000;

/** Term ids per slice of a list over a large table (SQLite: listInSlices); a table spanning fewer is read in one statement. */
export const TERM_SLICE_IDS = 10_000;

type TermOrderBy = 'name' | 'slug' | 'id' | 'term_id' | 'description' | 'count' | 'term_group' | 'include' | 'include_slugs' | 'parent' | 'none';

export interface TermListFilter {
  search?: string;
  include?: number[];
  exclude?: number[];
  parent?: number;
  /** With `eventHidden`: the event is one the caller may not read, and no term is listed. */
  eventId?: number;
  eventHidden?: boolean;
  /** Whose protected text the caller may not see: a password-protected event has no terms for them. */
  protectedText?: ProtectedTextScope;
  slug?: string;
  hideEmpty: boolean;
  orderBy: TermOrderBy;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** A page of terms, their published counts, and the size of the whole filtered set. */
export interface TermPage<Row> {
  rows: Row[];
  counts: Map<number, number>;
  total: number;
}

/** One page of a taxonomy's terms and the size of the whole filtered set. */
export async function listTerms<Row>(db: Knex, taxonomy: Taxonomy, filter: TermListFilter, toRow: (row: Record<string, unknown>) => Row): Promise<TermPage<Row>> {
  // SQLite reads on the event loop: a table of many terms is read a slice of ids at a time.
  if (engineOf(db) === 'sqlite') {
    const span = await db('terms').first(db.raw('min(id) as lo'), db.raw('max(id) as hi'));
    if (span && span.hi !== null && Number(span.hi) - Number(span.lo) >= TERM_SLICE_IDS) {
      // Each slice by its range of ids (the primary key), not through an index on the taxonomy, which would read every term of it.
      return listInSlices(db, filtered(db, db.from(db.raw('`terms` as `t` not indexed')), taxonomy, filter), filter, toRow, Number(span.lo), Number(span.hi));
    }
  }
  const base = filtered(db, db('terms as t'), taxonomy, filter);
  const [{ n }] = await base.clone().count({ n: '*' });
  // Past the end the answer is a 404, past TERM_LIST_WINDOW a 400 (operations/terms.ts): the page is not read.
  if (filter.offset >= Number(n) || filter.offset + filter.limit > TERM_LIST_WINDOW) return { rows: [], counts: new Map(), total: Number(n) };
  const page = base.clone().select('t.*');
  applyOrder(db, page, filter);
  const rows = await page.limit(filter.limit).offset(filter.offset);
  return {
    rows: rows.map(toRow),
    counts: new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), Number(row.published_count)])),
    total: Number(n),
  };
}

/**
 * The search's condition on one column and its bindings: `lower(column)`
 * contains the lower-cased term, as WordPress's search. On SQLite `lower()` is JavaScript's, called
 * for every row (db/sql-functions.ts), so a term of printable ASCII first passes SQLite's own `LIKE`
 * (case-insensitive for ASCII) over the column, and `lower()` runs only on what passes it or holds
 * other characters (which `lower()` might turn into ASCII): the same rows, a fraction of the calls.
 */
function searchIn(column: string, db: Knex, term: string, pattern: string): [string, string[]] {
  const exact = `lower(${column}) like ? escape '!'`;
  if (engineOf(db) !== 'sqlite' || !/^[ -~]*$/.test(term)) return [exact, [pattern]];
  return [`((${column} like ? escape '!' or ${column} glob '*[^ -~]*') and ${exact})`, [pattern, pattern]];
}

/** `base` (the terms as `t`) narrowed to the list's taxonomy and filters. */
function filtered(db: Knex, base: Knex.QueryBuilder, taxonomy: Taxonomy, filter: TermListFilter): Knex.QueryBuilder {
  base.where('t.taxonomy', taxonomy.name);
  if (filter.search !== undefined) {
    const pattern = `%${likeEscape(filter.search.toLowerCase())}%`;
    base.where((q) => q.whereRaw(...searchIn('t.name', db, filter.search!, pattern)).orWhereRaw(...searchIn('t.slug', db, filter.search!, pattern)));
  }
  if (filter.include?.length) base.whereIn('t.id', filter.include);
  if (filter.exclude?.length) base.whereNotIn('t.id', filter.exclude);
  if (filter.parent !== undefined) base.where('t.parent', filter.parent);
  // As get_terms: the slug as given or sanitized (text/slugs.ts `slugLookups`).
  if (filter.slug !== undefined) base.whereIn('t.slug', slugLookups(filter.slug, 'save'));
  if (filter.eventId !== undefined) {
    const links = db('event_terms as ef').join('posts as pe', 'pe.id', 'ef.event_id').whereRaw('ef.term_id = t.id').where('ef.event_id', filter.eventId);
    const hidden = protectedTextHidden('pe', filter.protectedText);
    if (hidden) links.whereNot(hidden);
    base.whereExists(filter.eventHidden ? links.whereRaw('1 = 0') : links);
  }
  if (filter.hideEmpty) base.where('t.published_count', '>', 0);
  return base;
}

/**
 * A list over a table of many terms (SQLite; docs/limits.md "Term lists"): the ids are read in
 * slices of TERM_SLICE_IDS, each slice counted and its first terms in the list's order merged with
 * the first ones so far (at most offset + limit ≤ TERM_LIST_WINDOW ids, ordered by SQLite itself,
 * so the order is the single statement's), with a turn of the event loop between slices once they
 * have held it for 20 ms. Then the page's rows are read.
 */
async function listInSlices<Row>(
  db: Knex,
  base: Knex.QueryBuilder,
  filter: TermListFilter,
  toRow: (row: Record<string, unknown>) => Row,
  lo: number,
  hi: number,
): Promise<TermPage<Row>> {
  const wanted = Math.min(filter.offset + filter.limit, TERM_LIST_WINDOW);
  const beyondWindow = filter.offset + filter.limit > TERM_LIST_WINDOW;
  const clock = new TurnClock();
  let total = 0;
  let first: number[] = [];
  for (let from = lo; from <= hi; from += TERM_SLICE_IDS) {
    if (clock.due) await clock.turn();
    const inSlice = (q: Knex.QueryBuilder) => q.where('t.id', '>=', from).where('t.id', '<', from + TERM_SLICE_IDS);
    const [{ n }] = await base.clone().where(inSlice).count({ n: '*' });
    total += Number(n);
    // A page reaching past the window is refused unless it is past the end: the count decides, no order is needed.
    if (beyondWindow && total > filter.offset) return { rows: [], counts: new Map(), total };
    if (Number(n) === 0 || beyondWindow) continue;
    const kept = first;
    const merged = base.clone().where((q) => {
      inSlice(q);
      if (kept.length) q.orWhere((k) => whereIdIn(k, db, 't.id', kept));
    });
    applyOrder(db, merged, filter);
    first = (await merged.limit(wanted).pluck('t.id')).map(Number);
  }
  if (filter.offset >= total || filter.offset + filter.limit > TERM_LIST_WINDOW) return { rows: [], counts: new Map(), total };
  const ids = first.slice(filter.offset, filter.offset + filter.limit);
  const page = whereIdIn(db('terms as t'), db, 't.id', ids).select('t.*');
  applyOrder(db, page, filter);
  const rows = await page;
  return {
    rows: rows.map(toRow),
    counts: new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), Number(row.published_count)])),
    total,
  };
}

/**
 * Names sort case-insensitively on both engines: MySQL's collation does it, and there the plain
 * column lets the (taxonomy, name) index give the order (`lower()` of it would sort every term of a
 * large taxonomy, in the same order); SQLite needs lower().
 */
function nameOrder(db: Knex): string {
  return engineOf(db) === 'mysql' ? 't.name' : 'lower(t.name)';
}

function applyOrder(db: Knex, query: Knex.QueryBuilder, filter: TermListFilter): void {
  const byName = nameOrder(db);
  // One of two words, whatever reached here: it is written into the SQL text below.
  const direction = filter.order === 'desc' ? 'desc' : 'asc';
  switch (filter.orderBy) {
    case 'slug':
      query.orderBy('t.slug', direction);
      break;
    case 'id':
    case 'term_id':
    case 'term_group':
    case 'none':
      break;
    case 'description':
      query.orderByRaw(`lower(t.description) ${direction}`);
      break;
    case 'count':
      query.orderBy('t.published_count', direction);
      break;
    case 'parent':
      query.orderBy('t.parent', direction);
      break;
    case 'include':
      if (filter.include?.length) {
        // The order of the include list itself.
        query.orderByRaw(
          `case t.id ${filter.include.map(() => 'when ? then ?').join(' ')} end ${direction}`,
          filter.include.flatMap((id, i) => [id, i]),
        );
      } else {
        query.orderByRaw(`${byName} ${direction}`);
      }
      break;
    default:
      query.orderByRaw(`${byName} ${direction}`);
  }
  // A unique tiebreaker keeps pages stable and identical on both engines.
  query.orderBy('t.id', filter.orderBy === 'id' || filter.orderBy === 'term_id' ? direction : 'asc');
}
