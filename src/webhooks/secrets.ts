import crypto from 'node:crypto';

/** Random bytes in a webhook's secret: 256 bits, the HMAC-SHA256 key's full size. */
const SECRET_BYTES = 32;

/**
 * A new signing secret (docs/webhooks.md "Subscribing"): `whsec_` + base64 of 32 random bytes, the
 * form the Standard Webhooks libraries (`standardwebhooks`, `svix`) take, which key the HMAC with the
 * bytes after the prefix.
 */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(SECRET_BYTES).toString('base64')}`;
}
