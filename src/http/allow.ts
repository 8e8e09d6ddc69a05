import type { RequestHandler } from 'express';
import { can, type Capability, type User } from '../auth/capabilities.js';
import type { DocumentRoute, DocumentRoutes } from './document-routes.js';

/** WordPress's order for a TEC route's methods (the plugin sends `GET, DELETE, POST, PUT, PATCH`). */
const METHOD_ORDER = ['GET', 'DELETE', 'POST', 'PUT', 'PATCH'];

/**
 * The capability a role needs before any write of a collection can succeed (plugin-behaviour §4.1):
 * events, venues and organizers are edited with the posts family, terms with their own right.
 */
const WRITE_CAPABILITY: Record<string, Capability> = {
  events: 'edit_posts',
  venues: 'edit_posts',
  organizers: 'edit_posts',
  categories: 'manage_event_categories',
  tags: 'manage_tags',
  // Reads need it too (docs/webhooks.md): the document keeps them from anonymous callers, and this
  // lists them only for administrators.
  webhooks: 'manage_webhooks',
  // Administrators only, reads too (docs/importing.md "Subscribing to a calendar"), as webhooks.
  subscriptions: 'manage_subscriptions',
};

interface AllowedMethod {
  method: string;
  anonymous: boolean;
  capability: Capability | undefined;
}

/** Each route's methods in WordPress's order, with who may use them. */
function methodsOf(route: DocumentRoute): AllowedMethod[] {
  return [...route.operations.values()]
    .map((op) => ({ method: op.method, anonymous: op.allowsAnonymous, capability: WRITE_CAPABILITY[op.path.split('/')[1]] }))
    .sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
}

/**
 * `Allow` on every answer of a route of the document, as WordPress's `rest_send_allow_header` sends
 * it: the route's methods the caller may use. Reads are open to everyone; a write method is listed
 * when the caller's role has the right every write of that collection needs (whether one given
 * record may be changed is decided by the write itself, after its input and the record); left out
 * when the caller may use none of them (the webhook routes, for all but administrators). Mounted
 * once before authentication, so that answers refused early carry the anonymous list, and once
 * after it, when the caller is known.
 */
export function allowHeader(routes: DocumentRoutes): RequestHandler {
  // The anonymous caller's list of each route is the same on every request: made once.
  const lists = new Map(
    routes.routes.map((route) => {
      const methods = methodsOf(route);
      return [route, { methods, anonymous: allowedTo(undefined, methods) }];
    }),
  );
  return (req, res, next) => {
    // The first route of the document that the path names (the one the request is about).
    const route = routes.matching(req)[0];
    if (route) {
      const list = lists.get(route)!;
      const user = req.user as User | undefined;
      const allowed = user === undefined ? list.anonymous : allowedTo(user, list.methods);
      // No method for this caller (the webhook routes, for all but administrators): no header rather
      // than an empty one, which validating proxies (Prism) report as missing.
      if (allowed === '') res.removeHeader('Allow');
      else res.set('Allow', allowed);
    }
    next();
  };
}

/** The `Allow` value for a caller: the methods open to everyone, and the writes the caller's role may try. */
function allowedTo(user: User | undefined, methods: AllowedMethod[]): string {
  const allowed = methods.filter((m) => m.anonymous || (user !== undefined && (m.capability === undefined || can(user, m.capability))));
  return allowed.map((m) => m.method).join(', ');
}
