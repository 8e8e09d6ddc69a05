import type { Knex } from 'knex';
import { isUniqueViolationOn } from '../db/errors.js';
import { slugCandidate, slugFamilyPrefix } from '../text/slugs.js';
import { claim, isClaimed, releaseWhenDone } from './slug-claims.js';

/**
 * Unique slugs in the database: the write under the first free candidate, and the query for a
 * slug's family. Posts (per type) and terms (per taxonomy) both use them; the slug text itself is
 * made by text/slugs.ts.
 */

/**
 * How many candidates one call tries before it gives up and lets the transaction run again (each
 * failed candidate is a slug another writer committed meanwhile, so this is reached only when
 * hundreds of writers of one title commit during a single request).
 */
const MAX_TRIES = 1000;

/**
 * Writes a row under the first free slug. The first candidate is chosen from the slugs already
 * taken, skipping those this process's other unfinished writes are trying (slug-claims.ts); if a
 * concurrent writer takes it first, the unique index refuses the write and the next free one is
 * tried, so simultaneous creates with one title still get distinct slugs. `scope` names the table
 * and type the slugs are unique in. If every try fails, the last unique violation is thrown, which
 * `inTransaction` answers by running the whole transaction again on a fresh view of the table.
 */
export async function withUniqueSlug<T>(db: Knex, base: string, takenSlugs: (base: string) => Promise<string[]>, write: (slug: string) => Promise<T>, scope = ''): Promise<T> {
  const taken = new Set(await takenSlugs(base));
  let conflict: unknown;
  for (let attempt = 1, tries = 0; tries < MAX_TRIES; attempt++) {
    const slug = slugCandidate(base, attempt);
    if (taken.has(slug) || isClaimed(scope, slug)) continue;
    tries++;
    const release = claim(scope, slug);
    try {
      const result = await write(slug);
      releaseWhenDone(db, release);
      return result;
    } catch (err) {
      release();
      if (!isUniqueViolationOn(err, 'slug')) throw err;
      conflict = err;
    }
  }
  throw conflict;
}

/**
 * Narrows a query to rows whose `column` starts with the slugs `base` can become (`base`, `base-2`...,
 * shortened to fit the column): an index range, where `LIKE 'base%'` would read the whole index.
 */
export function whereSlugFamily(query: Knex.QueryBuilder, column: string, base: string): Knex.QueryBuilder {
  // Candidates keep at least this much of the base (a suffix of up to ten digits and the hyphen).
  const prefix = slugFamilyPrefix(base);
  // U+10FFFF sorts after every character, byte for byte (SQLite) and by code point (utf8mb4_bin).
  return query.where(column, '>=', prefix).where(column, '<', `${prefix}\u{10FFFF}`);
}
