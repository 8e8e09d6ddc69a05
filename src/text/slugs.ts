export const MAX_SLUG_LENGTH = 200;

/**
 * WordPress `sanitize_title_with_dashes`, for every script: accents removed, lower-case, anything
 * but letters, digits, `_` and `-` turned into `-` (each), runs of `-` collapsed, ends trimmed.
 */
export function sanitizeSlug(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[^\p{L}\p{N}_-]/gu, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-$/, '');
}

/** `base`, then `base-2`, `base-3`, ... (docs/contract.md §6), kept within the column's length. */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt <= 1) return base;
  const suffix = `-${attempt}`;
  return base.slice(0, MAX_SLUG_LENGTH - suffix.length) + suffix;
}

/** Escapes `%`, `_` and the escape character itself for `LIKE ... ESCAPE '!'` (the same on both engines). */
export function likeEscape(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
