import type { Request } from 'express';
import type { OperationInfo } from '../openapi/document.js';

/** A path of the document under the namespace root, with the operations it has, by method. */
export interface DocumentRoute {
  /** As written in the document, relative to the namespace (`/events/{id}`). */
  path: string;
  /** Matches request paths (after trailing slashes are cut), exactly and in their case. */
  pattern: RegExp;
  operations: ReadonlyMap<string, OperationInfo>;
}

/** What one request was matched against: its path then, and the routes found for it. */
interface Found {
  path: string;
  routes: readonly DocumentRoute[];
}

const NONE: readonly DocumentRoute[] = [];

/**
 * The document's routes, and which of them a request's path names, found once per request: the
 * `Allow` header (http/allow.ts, twice) and the body gate (http/body-gate.ts, three stages) all ask,
 * and each would otherwise test the request's path against every route again. The first stage that
 * asks finds the routes; later stages get the same answer while the path stays the same (it does
 * once the URL is normalised, before any of them runs; a path changed after is looked up again).
 *
 * The OpenAPI validator has its own lookup (http/validator.ts), which matches paths in any case and
 * with a trailing slash, as the validator does; these routes match exactly, as the stages above
 * always have.
 */
export class DocumentRoutes {
  readonly routes: readonly DocumentRoute[];
  /** Where a request keeps what this table found for it (one key per table). */
  private readonly slot = Symbol('document routes found');

  constructor(operations: readonly OperationInfo[], namespaceRoot: string) {
    const byPath = new Map<string, { path: string; pattern: RegExp; operations: Map<string, OperationInfo> }>();
    for (const op of operations) {
      let route = byPath.get(op.path);
      if (!route) byPath.set(op.path, (route = { path: op.path, pattern: pathPattern(namespaceRoot, op.path), operations: new Map() }));
      route.operations.set(op.method, op);
    }
    // In the document's order: the first route listed is the first found.
    this.routes = [...byPath.values()];
  }

  /** Every route whose pattern matches the request's path, in the document's order (none: an empty list). */
  matching(req: Request): readonly DocumentRoute[] {
    const held = req as unknown as Record<symbol, Found | undefined>;
    const path = req.path;
    const found = held[this.slot];
    if (found !== undefined && found.path === path) return found.routes;
    const matched = this.routes.filter((route) => route.pattern.test(path));
    const routes = matched.length === 0 ? NONE : matched;
    held[this.slot] = { path, routes };
    return routes;
  }

  /** The operations of those routes for the request's method, in the same order. */
  operationsFor(req: Request): OperationInfo[] {
    const operations: OperationInfo[] = [];
    for (const route of this.matching(req)) {
      const op = route.operations.get(req.method);
      if (op) operations.push(op);
    }
    return operations;
  }
}

/** `/venues/{id}` under the namespace root → a regex matching request paths (after trailing slashes are cut). */
export function pathPattern(namespaceRoot: string, path: string): RegExp {
  // Braces are not escaped: a parameter is still `{name}` when it is replaced.
  const escaped = (namespaceRoot + path).replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}$`);
}
