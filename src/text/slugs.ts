import type { Knex } from 'knex';
import { isUniqueViolationOn } from '../db/errors.js';

export const MAX_SLUG_LENGTH = 200;

/**
 * WordPress `sanitize_title_with_dashes`, for every script: accents removed, lower-case, anything
 * but letters, digits, `_` and `-` turned into `-`, runs of `-` collapsed, ends trimmed.
 */
export function sanitizeSlug(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-$/, '');
}

/** `base`, then `base-2`, `base-3`, ... (contract §6), kept within the column's length. */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt <= 1) return base;
  const suffix = `-${attempt}`;
  return base.slice(0, MAX_SLUG_LENGTH - suffix.length) + suffix;
}

/**
 * Writes a row under the first free slug. The first candidate is chosen from the slugs already
 * taken; if a concurrent writer takes it first, the unique index refuses the write and the next one
 * is tried, so simultaneous creates with one title still get distinct slugs.
 */
export async function withUniqueSlug<T>(
  db: Knex,
  base: string,
  takenSlugs: (base: string) => Promise<string[]>,
  write: (slug: string) => Promise<T>,
): Promise<T> {
  const taken = new Set(await takenSlugs(base));
  let attempt = 1;
  while (taken.has(slugCandidate(base, attempt))) attempt++;
  for (let tries = 0; tries < 20; tries++, attempt++) {
    try {
      return await write(slugCandidate(base, attempt));
    } catch (err) {
      if (!isUniqueViolationOn(err, 'slug')) throw err;
    }
  }
  throw new Error(`no free slug found for "${base}"`);
}

/**
 * Narrows a query to rows whose `column` starts with the slugs `base` can become (`base`, `base-2`...,
 * shortened to fit the column): an index range, where `LIKE 'base%'` would read the whole index.
 */
export function whereSlugFamily(query: Knex.QueryBuilder, column: string, base: string): Knex.QueryBuilder {
  // Candidates keep at least this much of the base (a suffix of up to ten digits and the hyphen).
  const prefix = base.slice(0, MAX_SLUG_LENGTH - 11);
  // U+10FFFF sorts after every character, byte for byte (SQLite) and by code point (utf8mb4_bin).
  return query.where(column, '>=', prefix).where(column, '<', `${prefix}\u{10FFFF}`);
}

/** Escapes `%`, `_` and the escape character itself for `LIKE ... ESCAPE '!'` (the same on both engines). */
export function likeEscape(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
