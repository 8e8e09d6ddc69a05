import crypto from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** How much one remembered text function keeps. */
interface RememberedTextLimits {
  /** Inputs shorter than this are computed every time: hashing them would cost as much. */
  minLength: number;
  /** Characters of results kept in all; the least recently used go first past it. */
  maxChars: number;
}

/**
 * `compute` (a pure function of its text, such as a cleaner of HTML), remembered per process under
 * the SHA-256 of its input: the same description cleaned again, for another page or another query of
 * a feed, costs a digest instead. The key is the input itself (in digest form), so a result can never
 * be stale: an edited description is another key (docs/contract.md §16). A cache of `lru-cache`
 * sized in characters of results; a result that would take over a quarter of it is not kept (it
 * would push out all others).
 */
export function rememberedText(compute: (text: string) => string, limits: RememberedTextLimits): (text: string) => string {
  const results = new LRUCache<string, string>({
    maxSize: limits.maxChars,
    maxEntrySize: Math.floor(limits.maxChars / 4),
    // lru-cache wants a positive whole number; an empty result still takes its place.
    sizeCalculation: (result) => Math.max(1, result.length),
  });
  return (text) => {
    if (text.length < limits.minLength) return compute(text);
    const key = crypto.createHash('sha256').update(text).digest('base64');
    const known = results.get(key);
    if (known !== undefined) return known;
    const result = compute(text);
    results.set(key, result);
    return result;
  };
}
