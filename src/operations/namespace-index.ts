import { NAMESPACE, type OperationInfo, type ParameterObject, type SchemaObject } from '../openapi/document.js';
import type { components } from '../../generated/openapi.js';
import type { Urls } from '../core/urls.js';

/** JSON-schema keywords WordPress keeps in a route's `args` (docs/plugin-behaviour.md §7.1). */
const ARG_KEYWORDS = ['description', 'type', 'default', 'items', 'format', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'anyOf', 'oneOf'];

interface Endpoint {
  methods: string[];
  args: Record<string, Record<string, unknown>>;
}

interface RouteEntry {
  namespace: string;
  methods: string[];
  endpoints: Endpoint[];
  /** Set for routes without path parameters: their URL relative to the namespace root. */
  selfPath: string | undefined;
}

function argOf(schema: SchemaObject, description: string | undefined, required: boolean): Record<string, unknown> {
  const arg: Record<string, unknown> = {};
  for (const keyword of ARG_KEYWORDS) {
    const value = keyword === 'description' ? (description ?? schema.description) : schema[keyword];
    if (value !== undefined) arg[keyword] = value;
  }
  arg.required = required;
  return arg;
}

/**
 * `/events/{id}` → `/tribe/events/v1/events/(?P<id>\d+)`, the WordPress route regex. Literal segments
 * are written as WordPress writes its own (`/oembed/1.0/embed`): a dot stays a dot (`/events.ics`).
 * Clients that build URLs from the index (wpapi) take each segment without a named group as the
 * literal text of the URL; `events\.ics` gave them no method at all (docs/contract.md §7).
 */
function routeKey(path: string): string {
  const tail = path === '/' ? '' : path.replace('{id}', '(?P<id>\\d+)').replace('{slug}', '(?P<slug>[^/]+)');
  return `/${NAMESPACE}${tail}`;
}

/**
 * The namespace index's routes, derived once from the OpenAPI document. Operations on the same path
 * with the same arguments share one endpoint (so POST, PUT and PATCH on `/events/{id}` form one, like
 * WordPress's EDITABLE).
 */
export function buildRouteTable(operations: OperationInfo[]): Map<string, RouteEntry> {
  const routes = new Map<string, RouteEntry>();
  for (const op of operations) {
    const key = routeKey(op.path);
    const route = routes.get(key) ?? {
      namespace: NAMESPACE,
      methods: [],
      endpoints: [],
      selfPath: op.path.includes('{') ? undefined : op.path === '/' ? '' : op.path,
    };
    const args: Endpoint['args'] = {};
    for (const p of op.parameters as ParameterObject[]) {
      // WordPress's global parameters (`_fields`) apply to every route and are no route's argument.
      if ((p.in === 'query' || p.in === 'path') && !p.name.startsWith('_')) args[p.name] = argOf(p.schema, p.description, p.required === true);
    }
    const body = op.bodySchema;
    for (const [name, schema] of Object.entries(body?.properties ?? {})) {
      if (!(name in args)) args[name] = argOf(schema, schema.description, body?.required?.includes(name) ?? false);
    }
    const same = route.endpoints.find((e) => JSON.stringify(e.args) === JSON.stringify(args));
    if (same) same.methods.push(op.method);
    else route.endpoints.push({ methods: [op.method], args });
    if (!route.methods.includes(op.method)) route.methods.push(op.method);
    routes.set(key, route);
  }
  return routes;
}

/** The WordPress namespace index (`GET /wp-json/tribe/events/v1`) with this request's absolute links. */
export function namespaceIndex(routes: Map<string, RouteEntry>, urls: Urls): components['schemas']['NamespaceIndex'] {
  const out: Record<string, components['schemas']['RouteDescription']> = {};
  for (const [key, route] of routes) {
    const entry: components['schemas']['RouteDescription'] = { namespace: route.namespace, methods: route.methods, endpoints: route.endpoints };
    if (route.selfPath !== undefined) entry._links = { self: [{ href: `${urls.namespace}${route.selfPath}` }] };
    out[key] = entry;
  }
  return { namespace: NAMESPACE, routes: out, _links: { up: [{ href: `${urls.restRoot}/` }] } };
}
