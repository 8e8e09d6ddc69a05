/**
 * Trigrams: runs of three consecutive code points, the keys of the search index (docs/contract.md §15).
 * Pure functions, shared by the index's writers (repositories, migrations, the benchmark's seeder)
 * and its readers (the events list).
 */

/** The distinct trigrams of a text, in the order first seen (a text under three code points has none). */
export function trigramsOf(text: string): string[] {
  const points = Array.from(text);
  const seen = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) seen.add(points[i] + points[i + 1] + points[i + 2]);
  return [...seen];
}

/**
 * The trigrams a search term can be narrowed by, or undefined when the index cannot narrow it and
 * the term must be matched by scanning: fewer than three code points (no trigram), or a NUL, which
 * SQLite's LIKE reads as the end of the pattern (so the LIKE matches more than the index would).
 */
export function narrowingTrigrams(term: string): string[] | undefined {
  if (term.includes('\u0000')) return undefined;
  const grams = trigramsOf(term);
  return grams.length ? grams : undefined;
}

/**
 * At most `most` of a term's trigrams, spread over it (first and last included): every one is
 * required of a candidate, so any subset only narrows less, never wrongly; a few selective ones are
 * cheaper to intersect than all of a long term's.
 */
export function spreadTrigrams(grams: string[], most: number): string[] {
  if (grams.length <= most) return grams;
  const picked = new Set<string>();
  for (let i = 0; i < most; i++) picked.add(grams[Math.round((i * (grams.length - 1)) / (most - 1))]);
  return [...picked];
}
