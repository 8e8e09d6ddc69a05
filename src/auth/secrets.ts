import crypto from 'node:crypto';

/** Chosen secrets shorter than this are refused; generated ones are far longer. */
export const MIN_SECRET_LENGTH = 8;

/**
 * A new application password: 24 letters and digits (~142 random bits). No spaces, so it survives
 * every client unchanged; WordPress's grouped `xxxx xxxx ...` form of a secret is accepted too.
 */
export function generateSecret(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = crypto.randomBytes(24);
  let secret = '';
  for (let i = 0; i < 24; i++) {
    // 62 symbols: the modulo bias is below 2^-2, far from mattering at 24 symbols (~142 bits).
    secret += alphabet[bytes[i] % alphabet.length];
  }
  return secret;
}

/**
 * Secrets are compared as WordPress application passwords are: spaces are ignored, so the grouped
 * form and the plain form are the same secret.
 */
export function normaliseSecret(secret: string): string {
  return secret.replace(/\s+/g, '');
}

/**
 * The stored form of a secret: SHA-256 of its normalised text. Generated secrets carry ~142 bits of
 * entropy, so a fast hash is enough (as for API tokens); a slow KDF would cost every request.
 */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(normaliseSecret(secret), 'utf8').digest('hex');
}
