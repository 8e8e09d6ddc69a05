import crypto from 'node:crypto';

/**
 * Compares a record's password with the one a reader sent, in constant time (the digests have the
 * same length whatever the inputs).
 */
export function passwordMatches(stored: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = crypto.createHash('sha256').update(stored).digest();
  const b = crypto.createHash('sha256').update(given).digest();
  return crypto.timingSafeEqual(a, b);
}
