import { parseBooleanWord } from './booleans.js';

/** Plain-text and field rules shared by every write (events, venues, organizers, users). */

/** WordPress `sanitize_text_field`, with a real tokenizer (text/plain-text.ts). */
export { sanitizeTextField } from './plain-text.js';

/**
 * An absolute http(s) URL, as PHP's FILTER_VALIDATE_URL would accept for a website. Characters a
 * URL never holds unencoded and that mean something in HTML (`<`, `>`, `"`, a backtick) are refused,
 * so a stored URL is inert wherever a client puts it.
 */
export function isHttpUrl(value: string): boolean {
  if (value.length > 2048 || /[\s<>"`]/.test(value)) return false;
  try {
    const url = new URL(value);
    // An http(s) URL always has a host: `http://` and `http:///` without one do not parse (new URL throws).
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A plausible e-mail address: one @, a dotted domain, no spaces. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@<>()[\],;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(value);
}

/** The plugin's `tribe_is_truthy`: a true boolean word (text/booleans.ts), `y`, or a non-zero number. */
export function isTruthy(value: unknown): boolean {
  if (typeof value === 'number') return value !== 0;
  return parseBooleanWord(value) === true || (typeof value === 'string' && value.trim().toLowerCase() === 'y');
}
