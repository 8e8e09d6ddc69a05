import type { components } from '../../generated/openapi.js';
import { invalidParam } from '../core/errors.js';
import type { WebhookVisibility } from '../repositories/webhook-rows.js';
import { sanitizeTextField } from '../text/plain-text.js';
import { tooLong } from '../text/limits.js';
import { asUrlParamError, checkOutboundUrl, type Resolver } from '../core/outbound.js';
import { storedTypes } from './records.js';

/** A webhook's description, once cleaned (docs/webhooks.md "Subscribing"). */
const MAX_DESCRIPTION_LENGTH = 1000;

/** A create or update body as validated by the document (WebhookCreate, WebhookUpdate). */
type Body = Partial<components['schemas']['WebhookCreate'] & components['schemas']['WebhookUpdate']>;

/** The fields of a body, cleaned and checked; undefined: not sent. */
interface WebhookInput {
  url?: string;
  /** Stored form: comma-separated, in the API's order. */
  types?: string;
  visibility?: WebhookVisibility;
  description?: string;
  status?: 'active' | 'paused';
}

/**
 * Cleans a create or update body (the document has checked its shapes and lengths): the description
 * is plain text as every such field is (WordPress `sanitize_text_field`, text/plain-text.ts) and at
 * most MAX_DESCRIPTION_LENGTH characters once cleaned; the URL is kept as sent, and checked by
 * `checkDestination` once the caller is known to be allowed (it may resolve the host).
 */
export function cleanWebhookInput(body: Body): WebhookInput {
  const input: WebhookInput = { url: body.url, visibility: body.visibility, status: body.status };
  if (body.types !== undefined) input.types = storedTypes(body.types);
  if (body.description !== undefined) {
    const description = sanitizeTextField(body.description);
    const problem = tooLong('description', description, MAX_DESCRIPTION_LENGTH);
    if (problem) throw invalidParam('description', problem);
    input.description = description;
  }
  return input;
}

/**
 * 400 naming `url` unless the service may send to it (docs/webhooks.md "Safety",
 * core/outbound.ts): its form, and every address its host resolves to now (`resolve`). Run
 * after authorization, so that only administrators make the service resolve names.
 */
export async function checkDestination(url: string, allowedNetworks: readonly string[], resolve: Resolver): Promise<void> {
  try {
    await checkOutboundUrl(url, allowedNetworks, resolve);
  } catch (err) {
    throw asUrlParamError(err);
  }
}
