import { can, type User } from '../auth/capabilities.js';
import { forbidden } from '../core/errors.js';

/**
 * Who may do what to subscriptions (docs/importing.md "Subscribing to a calendar"): every operation,
 * reads included, needs `manage_subscriptions` (administrators: a subscription makes the service
 * fetch URLs and write records as their owner). Anonymous callers get 401, other users 403.
 */
export const subscriptionPolicy = {
  manage(user: User | undefined): void {
    if (!can(user, 'manage_subscriptions')) throw forbidden(user !== undefined);
  },
};
