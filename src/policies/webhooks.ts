import { can, type User } from '../auth/capabilities.js';
import { forbidden } from '../core/errors.js';

/**
 * Who may do what to webhooks (docs/webhooks.md "Subscribing"): every webhook operation, reads
 * included, needs `manage_webhooks` (administrators: a webhook's URL, secret and delivery log are
 * site settings, WordPress's `manage_options`). Anonymous callers get 401, other users 403.
 */
export const webhookPolicy = {
  manage(user: User | undefined): void {
    if (!can(user, 'manage_webhooks')) throw forbidden(user !== undefined);
  },
};
