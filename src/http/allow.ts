import type { RequestHandler } from 'express';
import { can, type Capability, type User } from '../auth/capabilities.js';
import type { OperationInfo } from '../openapi/document.js';

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
};

interface Route {
  pattern: RegExp;
  methods: Array<{ method: string; anonymous: boolean; capability: Capability | undefined }>;
}

/** The document's routes under the namespace root, each with a regex matching request paths. */
function routesOf(operations: OperationInfo[], namespaceRoot: string): Route[] {
  const routes = new Map<string, Route>();
  for (const op of operations) {
    let route = routes.get(op.path);
    if (!route) {
      const escaped = (namespaceRoot + (op.path === '/' ? '/' : op.path)).replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      route = { pattern: new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}$`), methods: [] };
      routes.set(op.path, route);
    }
    route.methods.push({ method: op.method, anonymous: op.allowsAnonymous, capability: WRITE_CAPABILITY[op.path.split('/')[1]] });
  }
  for (const route of routes.values()) route.methods.sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
  return [...routes.values()];
}

/**
 * `Allow` on every answer of a route of the document, as WordPress's `rest_send_allow_header` sends
 * it: the route's methods the caller may use. Reads are open to everyone; a write method is listed
 * when the caller's role has the right every write of that collection needs (whether one given
 * record may be changed is decided by the write itself, after its input and the record). Mounted
 * once before authentication, so that answers refused early carry the anonymous list, and once
 * after it, when the caller is known.
 */
export function allowHeader(operations: OperationInfo[], namespaceRoot: string): RequestHandler {
  const routes = routesOf(operations, namespaceRoot);
  return (req, res, next) => {
    const route = routes.find((r) => r.pattern.test(req.path));
    if (route) {
      const user = req.user as User | undefined;
      const allowed = route.methods.filter((m) => m.anonymous || (user !== undefined && (m.capability === undefined || can(user, m.capability))));
      res.set('Allow', allowed.map((m) => m.method).join(', '));
    }
    next();
  };
}
