import crypto from 'node:crypto';
import type { WebhookRow } from '../repositories/webhook-rows.js';

/**
 * Signatures of the Standard Webhooks specification (docs/webhooks.md "Messages"), which the
 * `standardwebhooks` and `svix` libraries verify: `v1,` + base64 of HMAC-SHA256 over
 * `{id}.{timestamp}.{body}`, keyed with the secret's bytes (the base64 after `whsec_`).
 */

const PREFIX = 'whsec_';

/** The key bytes of a `whsec_…` secret. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** One `v1,…` signature of a message with one secret. */
function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = crypto.createHmac('sha256', keyOf(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The secrets a message is signed with at `now`: the current one, and the previous one while it is
 * still valid after a rotation (24 hours), so a receiver that has not yet switched keeps verifying.
 */
export function signingSecrets(webhook: Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_secret_until_ms'>, now: Date): string[] {
  const previous = webhook.previous_secret !== null && webhook.previous_secret_until_ms > now.getTime() ? [webhook.previous_secret] : [];
  return [webhook.secret, ...previous];
}

/** The `webhook-signature` header: one signature per secret, separated by spaces, as the specification allows. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(' ');
}
