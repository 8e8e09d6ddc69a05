import type { Knex } from 'knex';
import { slugLookups } from '../text/slugs.js';
import { whereSlugFamily, withUniqueSlug } from './unique-slugs.js';
import { isUniqueViolation, isUniqueViolationOn, RecordGone, StaleVersion } from '../db/errors.js';
import { requireTransaction } from '../db/transactions.js';
import { engineOf } from '../db/engine.js';
import { noteChange } from '../db/change-log.js';
import { chunks, keptIdVersion } from './posts.js';
import { changeTypeOf, type Taxonomy } from './taxonomies.js';
import { TEXT_LIMITS, boundedHtml, boundedText } from '../text/limits.js';
import { idsPresentNow, whereIdIn } from '../db/id-lists.js';
import { namedRenderedTexts, releaseRenderedTexts, textKeyColumns } from '../db/rendered-texts.js';
import { listTerms, type TermListFilter, type TermPage } from './term-lists.js';
import { plainColumnsOf } from '../text/plain-forms.js';

export { TERM_LIST_WINDOW, TERM_SLICE_IDS, type TermListFilter } from './term-lists.js';

/** A row of `terms`, with numbers cast (the mapper's input). */
export interface TermRow {
  id: number;
  taxonomy: string;
  name: string;
  /** The name's plain form, stored when written (text/plain-forms.ts); null for a row written past the repositories. */
  namePlain: string | null;
  slug: string;
  description: string;
  /** The key of the description's rendered forms (db/rendered-texts.ts); null when empty. */
  descriptionHash: string | null;
  parent: number;
  /** Published events with the term (WordPress's `count`), kept up to date by every write. */
  publishedCount: number;
  /** Grows by one on every write of the term (docs/contract.md §10). */
  version: number;
}
type NewTerm = Omit<TermRow, 'id' | 'taxonomy' | 'slug' | 'publishedCount' | 'version' | 'descriptionHash' | 'namePlain'>;
/** A term and its taxonomy, as a write that just linked it knows them. */
export interface TaxonomyTerm {
  id: number;
  taxonomy: string;
}

/** A term with this name already exists at this level. */
export class TermNameTaken extends Error {
  constructor(readonly existing: TermRow) {
    super(`a term named "${existing.name}" already exists at this level`);
  }
}

/** The key one-name-per-level is enforced on: the name, lower-cased. */
/**
 * Locks the rows of some terms, in id order, in the transaction `trx` (MySQL only: SQLite runs one
 * write transaction at a time). Every write that moves a term's count takes these locks before it
 * locks or changes any event's links (`TermRepository.lockForCounting`, `EventRepository.countedTerms`).
 */
export async function lockTermRows(trx: Knex.Transaction | Knex, termIds: number[]): Promise<void> {
  if (termIds.length === 0 || engineOf(trx) !== 'mysql') return;
  for (const part of chunks([...new Set(termIds)].sort((a, b) => a - b))) await trx('terms').whereIn('id', part).orderBy('id').forUpdate().select('id');
}

export function nameKeyOf(name: string): string {
  return name.toLowerCase().slice(0, 200);
}

function toRow(row: Record<string, unknown>): TermRow {
  return {
    id: Number(row.id),
    taxonomy: String(row.taxonomy),
    // Within the limits whatever was stored (text/limits.ts).
    name: boundedText(String(row.name), TEXT_LIMITS.termName),
    namePlain: row.name_plain === null || row.name_plain === undefined ? null : String(row.name_plain),
    slug: String(row.slug),
    description: boundedHtml(String(row.description), TEXT_LIMITS.termDescription),
    descriptionHash: row.description_hash === null || row.description_hash === undefined ? null : String(row.description_hash),
    parent: Number(row.parent),
    publishedCount: Number(row.published_count ?? 0),
    version: Number(row.version ?? 1),
  };
}

/** All Knex for event categories and tags (one table, one ID space). */
export class TermRepository {
  constructor(private readonly db: Knex) {}

  /** Which of these terms exist now, past the transaction's snapshot (db/id-lists.ts `idsPresentNow`). */
  presentNow = (ids: readonly number[]): Promise<Set<number>> => idsPresentNow(this.db, 'terms', ids);

  async findById(id: number): Promise<TermRow | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.db('terms').where({ id }).first();
    return row ? toRow(row) : undefined;
  }

  /** Some terms by id (one query per 500 ids). */
  async findByIds(ids: number[]): Promise<TermRow[]> {
    const rows: TermRow[] = [];
    for (const part of chunks(ids)) rows.push(...(await whereIdIn(this.db('terms'), this.db, 'id', part)).map(toRow));
    return rows;
  }

  /** One page of a taxonomy's terms and the size of the whole filtered set (term-lists.ts). */
  list(taxonomy: Taxonomy, filter: TermListFilter): Promise<TermPage<TermRow>> {
    return listTerms(this.db, taxonomy, filter, toRow);
  }

  /** Published-event counts for some terms (WordPress's term `count`, kept on the term). */
  async countsFor(ids: number[]): Promise<Map<number, number>> {
    const counts = new Map(ids.map((id) => [id, 0]));
    for (const part of chunks(ids)) {
      for (const row of await whereIdIn(this.db('terms'), this.db, 'id', part).select('id', 'published_count')) counts.set(Number(row.id), Number(row.published_count));
    }
    return counts;
  }

  /**
   * Moves published-event counts by one for an event whose counted terms went from `before` to
   * `after` (its terms while published, none otherwise): +1 for terms only in `after`, -1 for terms
   * only in `before`. Two updates per write, whatever the size of the calendar (a recount would read
   * every event of the term). The caller holds the event's row lock, so `before` is current.
   */
  async shiftCounts(before: number[], after: number[]): Promise<void> {
    const was = new Set(before);
    const is = new Set(after);
    const gained = [...is].filter((id) => !was.has(id));
    const lost = [...was].filter((id) => !is.has(id));
    const trx = requireTransaction(this.db);
    if (gained.length) await trx('terms').whereIn('id', gained).increment('published_count', 1);
    if (lost.length) await trx('terms').whereIn('id', lost).decrement('published_count', 1);
    // A term's `count` is part of its record: the feed announces the terms whose count moved.
    if (gained.length || lost.length) {
      for (const row of await trx('terms')
        .whereIn('id', [...gained, ...lost])
        .select('id', 'taxonomy'))
        noteChange(trx, changeTypeOf(row.taxonomy), Number(row.id));
    }
  }

  /**
   * Adds a new published event to the counts of its terms, and announces those terms: `shiftCounts`
   * from none, without reading the terms' taxonomies again (the write has them).
   */
  async countNewEvent(terms: TaxonomyTerm[]): Promise<void> {
    const taxonomyOf = new Map(terms.map((term) => [term.id, term.taxonomy]));
    if (taxonomyOf.size === 0) return;
    const trx = requireTransaction(this.db);
    await trx('terms')
      .whereIn('id', [...taxonomyOf.keys()])
      .increment('published_count', 1);
    // In id order, as the rows read back used to come (the change log numbers them in this order).
    for (const id of [...taxonomyOf.keys()].sort((a, b) => a - b)) noteChange(trx, changeTypeOf(taxonomyOf.get(id)!), id);
  }

  /**
   * Locks the terms whose counts this transaction may move, in id order, before it changes an event's links to
   * them (domain/events/writes.ts `TermCounting`). MySQL only: SQLite runs one write transaction at a time.
   */
  async lockForCounting(termIds: number[]): Promise<void> {
    await lockTermRows(requireTransaction(this.db), termIds);
  }

  /**
   * Adds `n` published events to the counts of some terms (the new occurrences of a published series,
   * which all have the first event's terms), and announces those terms.
   */
  async addToCounts(termIds: number[], n: number): Promise<void> {
    if (termIds.length === 0 || n === 0) return;
    const trx = requireTransaction(this.db);
    await trx('terms').whereIn('id', termIds).increment('published_count', n);
    for (const row of await trx('terms').whereIn('id', termIds).select('id', 'taxonomy')) noteChange(trx, changeTypeOf(row.taxonomy), Number(row.id));
  }

  /**
   * Counts the published events of some terms again (a series write adds or removes many events of
   * the same terms at once, where shiftCounts moves counts by one event), and announces the terms
   * whose count moved.
   */
  async recount(termIds: number[]): Promise<void> {
    const trx = requireTransaction(this.db);
    for (const part of chunks([...new Set(termIds)])) {
      const before = new Map<number, number>(
        (await trx('terms').whereIn('id', part).select('id', 'published_count')).map((row: Record<string, unknown>) => [Number(row.id), Number(row.published_count)]),
      );
      const counted = await trx('event_terms as et')
        .join('posts as p', 'p.id', 'et.event_id')
        .whereIn('et.term_id', part)
        .where('p.status', 'publish')
        .groupBy('et.term_id')
        .select('et.term_id', trx.raw('count(*) as n'));
      const after = new Map<number, number>(part.map((id) => [id, 0]));
      for (const row of counted) after.set(Number(row.term_id), Number(row.n));
      for (const [id, n] of after) {
        if (!before.has(id) || before.get(id) === n) continue;
        await trx('terms').where('id', id).update({ published_count: n });
        const term = await trx('terms').where('id', id).first('taxonomy');
        noteChange(trx, changeTypeOf(term.taxonomy), id);
      }
    }
  }

  /** Every ancestor of the given terms, loaded level by level (one query per level, not per term). */
  async ancestorsOf(rows: TermRow[]): Promise<Map<number, TermRow>> {
    const known = new Map<number, TermRow>(rows.map((row) => [row.id, row]));
    let missing = [...new Set(rows.map((row) => row.parent).filter((id) => id !== 0 && !known.has(id)))];
    for (let depth = 0; missing.length > 0 && depth < 100; depth++) {
      const found = (await this.db('terms').whereIn('id', missing)).map(toRow);
      for (const row of found) known.set(row.id, row);
      missing = [...new Set(found.map((row) => row.parent).filter((id) => id !== 0 && !known.has(id)))];
    }
    return known;
  }

  /** The ids among `ids` that are not terms of the taxonomy. */
  async unknownIds(taxonomy: Taxonomy, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const found = new Set((await this.db('terms').where('taxonomy', taxonomy.name).whereIn('id', ids).pluck('id')).map(Number));
    return ids.filter((id) => !found.has(id));
  }

  /** A term of the taxonomy with this name (case-insensitive) under this parent. */
  async findByName(taxonomy: Taxonomy, parent: number, name: string): Promise<TermRow | undefined> {
    const row = await this.db('terms').where({ taxonomy: taxonomy.name, parent }).whereRaw('lower(name) = ?', [name.toLowerCase()]).orderBy('id').first();
    return row ? toRow(row) : undefined;
  }

  /** The oldest term of the taxonomy with this name (case-insensitive), at any level. */
  async findByNameAnyLevel(taxonomy: Taxonomy, name: string): Promise<TermRow | undefined> {
    const row = await this.db('terms').where({ taxonomy: taxonomy.name }).whereRaw('lower(name) = ?', [name.toLowerCase()]).orderBy('id').first();
    return row ? toRow(row) : undefined;
  }

  /** The term of a slug as given, else of its sanitized form, as get_term_by looks it up (text/slugs.ts `slugLookups`). */
  async findBySlug(taxonomy: Taxonomy, slug: string): Promise<TermRow | undefined> {
    for (const candidate of slugLookups(slug, 'save')) {
      const row = await this.db('terms').where({ taxonomy: taxonomy.name, slug: candidate }).first();
      if (row) return toRow(row);
    }
    return undefined;
  }

  /**
   * Inserts a term under the first free slug at or after `baseSlug`; returns its id. `sharesName`
   * marks a term allowed to repeat a name at its level (it was given its own slug). A create of a
   * name already used at the same level (also a concurrent one) throws TermNameTaken. `wantedId`: an import's kept id.
   */
  async insert(taxonomy: Taxonomy, term: NewTerm, baseSlug: string, sharesName: boolean, wantedId?: number): Promise<number> {
    const nameKey = sharesName ? null : nameKeyOf(term.name);
    const kept = wantedId ? { id: wantedId, version: await keptIdVersion(this.db) } : {};
    Object.assign(kept, await textKeyColumns(requireTransaction(this.db), term, true), plainColumnsOf('terms', term));
    return withUniqueSlug(
      requireTransaction(this.db),
      baseSlug,
      (base) => whereSlugFamily(this.db('terms').where('taxonomy', taxonomy.name), 'slug', base).pluck('slug'),
      async (slug) => {
        try {
          const [inserted] = await this.db('terms').insert({ ...term, taxonomy: taxonomy.name, slug, name_key: nameKey, ...kept });
          const id = wantedId ?? Number(inserted);
          noteChange(this.db, changeTypeOf(taxonomy.name), id);
          return id;
        } catch (err) {
          // A unique violation is either the slug (withUniqueSlug tries the next one) or the name. A
          // name taken by a writer whose row this transaction cannot see yet is left to the caller's
          // transaction retry (db/transactions.ts).
          const taken = isUniqueViolationOn(err, 'name_key') ? await this.findByName(taxonomy, term.parent, term.name) : undefined;
          throw taken ? new TermNameTaken(taken) : err;
        }
      },
      `terms:${taxonomy.name}`,
    );
  }

  /**
   * Updates a term. A new name or parent puts the term back under the one-name-per-level rule; a
   * concurrent clash on the name or the slug is reported by `onClash`. Every update grows the term's
   * version; with `expected` only at that version, else StaleVersion (docs/contract.md §10).
   */
  async update(term: TermRow, changes: Partial<Pick<TermRow, 'name' | 'slug' | 'description' | 'parent'>>, onClash: () => Promise<Error>, expected?: number): Promise<void> {
    const trx = requireTransaction(this.db);
    const before = changes.description === undefined ? new Set<string>() : await namedRenderedTexts(trx, 'terms', [term.id]);
    const keys = await textKeyColumns(trx, changes, true);
    const row: Record<string, unknown> = { ...changes, ...plainColumnsOf('terms', changes), ...keys, version: trx.raw('version + 1') };
    if (changes.name !== undefined || changes.parent !== undefined) row.name_key = nameKeyOf(changes.name ?? term.name);
    const query = trx('terms').where({ id: term.id });
    if (expected !== undefined) query.where('version', expected);
    let changed: number;
    try {
      changed = await query.update(row);
    } catch (err) {
      throw isUniqueViolation(err) ? await onClash() : err;
    }
    if (changed === 0) throw expected !== undefined ? new StaleVersion(term.id) : new RecordGone('term', term.id);
    await releaseRenderedTexts(trx, 'terms', before, Object.values(keys));
    noteChange(trx, changeTypeOf(term.taxonomy), term.id);
  }

  /** Deletes a term for good (at version `expected`, if given): its children move up to its parent, its event links go with it. */
  async delete(term: TermRow, expected?: number): Promise<void> {
    const trx = requireTransaction(this.db);
    const children = await trx('terms').where({ parent: term.id }).pluck('id');
    const query = trx('terms').where({ id: term.id });
    if (expected !== undefined) query.where('version', expected);
    const texts = await namedRenderedTexts(trx, 'terms', [term.id]);
    if ((await query.delete()) === 0 && expected !== undefined) throw new StaleVersion(term.id);
    await releaseRenderedTexts(trx, 'terms', texts);
    // The children's records change (their parent): their versions grow like any other write's.
    await trx('terms')
      .where({ parent: term.id })
      .update({ parent: term.parent, version: trx.raw('version + 1') });
    for (const child of children) noteChange(trx, changeTypeOf(term.taxonomy), Number(child));
    noteChange(trx, changeTypeOf(term.taxonomy), term.id, true);
  }

  /** Ids of the term and all its descendants (to refuse a parent that would make a cycle). */
  async descendantIds(id: number): Promise<Set<number>> {
    const ids = new Set([id]);
    let frontier = [id];
    while (frontier.length) {
      frontier = (await this.db('terms').whereIn('parent', frontier).pluck('id')).map(Number).filter((child) => !ids.has(child));
      for (const child of frontier) ids.add(child);
    }
    return ids;
  }

  /** Up to `limit` ids of the events linked to any of the terms (what the cache purger bans with them: cache/purge-scope.ts). */
  async linkedEventIds(termIds: number[], limit: number): Promise<number[]> {
    if (termIds.length === 0) return [];
    const ids = new Set<number>();
    for (const part of chunks([...new Set(termIds)])) {
      const rows = await this.db('event_terms')
        .whereIn('term_id', part)
        .distinct('event_id')
        .limit(limit + 1 - ids.size);
      for (const row of rows) ids.add(Number(row.event_id));
      if (ids.size > limit) break;
    }
    return [...ids];
  }
}
