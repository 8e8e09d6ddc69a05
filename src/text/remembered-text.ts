import crypto from 'node:crypto';

/** How much one remembered text function keeps. */
export interface RememberedTextLimits {
  /** Inputs shorter than this are computed every time: hashing them would cost as much. */
  minLength: number;
  /** Characters of results kept in all; the least recently used go first past it. */
  maxChars: number;
}

/**
 * `compute` (a pure function of its text, such as a cleaner of HTML), remembered per process under
 * the SHA-256 of its input: the same description cleaned again, for another page or another query of
 * a feed, costs a digest instead. The key is the input itself (in digest form), so a result can never
 * be stale: an edited description is another key (docs/contract.md §16).
 */
export function rememberedText(compute: (text: string) => string, limits: RememberedTextLimits): (text: string) => string {
  const results = new Map<string, string>();
  let chars = 0;
  return (text) => {
    if (text.length < limits.minLength) return compute(text);
    const key = crypto.createHash('sha256').update(text).digest('base64');
    const known = results.get(key);
    if (known !== undefined) {
      // Refresh its place: the map's order is least recently used first.
      results.delete(key);
      results.set(key, known);
      return known;
    }
    const result = compute(text);
    // A result that would take over the whole budget is not kept (it would push out all others).
    if (result.length > limits.maxChars / 4) return result;
    results.set(key, result);
    chars += result.length;
    while (chars > limits.maxChars) {
      const [oldest, value] = results.entries().next().value!;
      results.delete(oldest);
      chars -= value.length;
    }
    return result;
  };
}
