import crypto from 'node:crypto';

/**
 * Compares two secrets (passwords, tokens, digests) in constant time: both are hashed first, so the
 * comparison takes the same time whatever their lengths and contents. The one comparer every check of
 * a secret uses.
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}
