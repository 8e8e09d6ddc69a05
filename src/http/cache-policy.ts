import type { IncomingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../core/config.js';

/**
 * WordPress's header on answers to a request with credentials (wp-includes/functions.php
 * `wp_get_nocache_headers`): nothing of a caller's own is kept anywhere.
 */
const WORDPRESS_NO_CACHE = 'no-cache, must-revalidate, max-age=0, no-store, private';
const WORDPRESS_EXPIRES = 'Wed, 11 Jan 1984 05:00:00 GMT';

/** What one request brings to the rule: read from the request alone, so it is the same at any status. */
interface Asker {
  method: string;
  headers: IncomingHttpHeaders;
  /** The request's target as routed now (path aliases and `?rest_route=` applied). */
  target: string;
  /** The query as the app's query parser reads it; asked only of a query that may name `password` (`namesPassword`). */
  query: () => Record<string, unknown>;
}

/** The settings the rule reads, worked out once. */
interface CachePolicy {
  /** The Cache-Control (and Expires, for credentials) of an answer to `asker` with `status`. */
  directives(asker: Asker, status: number): { cacheControl: string; expires?: string };
  /** The request headers an answer to `target` depends on, as one list (`Origin, Authorization`). */
  vary(target: string): string;
}

/**
 * The rule of docs/contract.md §19 (the table: docs/caching.md "What the service sends"), in its order:
 * a request with `Authorization` (right or wrong credentials, any method) gets WordPress's no-cache
 * headers, as the plugin sends them on every logged-in request; any other method than GET/HEAD is
 * `no-store`; one with a `Cookie` or a `password` query parameter
 * `private, no-store`; a 2xx or 304 is `public` for CACHE_MAX_AGE with CACHE_STALE_SECONDS of
 * stale-while-revalidate and stale-if-error (`no-cache` when CACHE_MAX_AGE is 0); a 404 or 410 is
 * `public` for CACHE_NOT_FOUND_MAX_AGE, at most CACHE_MAX_AGE (`no-store` when that is 0); anything
 * else `no-store`. Before all of it, a handler that set Cache-Control itself keeps it (`cacheHeaders`).
 */
export function cachePolicy(config: Pick<Config, 'cacheMaxAge' | 'cacheStaleSeconds' | 'cacheNotFoundMaxAge' | 'trustProxy' | 'publicUrl'>, namespaceRoot: string): CachePolicy {
  const stale = config.cacheStaleSeconds;
  const shared = config.cacheMaxAge === 0 ? 'no-cache' : `public, max-age=${config.cacheMaxAge}, stale-while-revalidate=${stale}, stale-if-error=${stale}`;
  const notFoundAge = Math.min(config.cacheNotFoundMaxAge, config.cacheMaxAge);
  const notFound = notFoundAge === 0 ? 'no-store' : `public, max-age=${notFoundAge}`;
  // Absolute URLs in bodies take the scheme from X-Forwarded-Proto only when a proxy is trusted
  // and PUBLIC_URL does not fix the origin (core/urls.ts); then the same URL answers differently with it.
  const forwardedProto = trustsProxies(config.trustProxy) && config.publicUrl === undefined;
  const namespacePrefix = `${namespaceRoot}/`;
  // `Origin` on every answer: the CORS headers echo it. The cors package names it itself, except
  // under CORS_ORIGINS on answers to requests from no listed origin, which a cache would then serve
  // to a listed one without its Access-Control-Allow-Origin. `Authorization` on every namespace
  // answer: an editor gets drafts and more fields at the same URL. The public pages, /docs and the
  // REST index are read as an anonymous caller whatever comes with the request (docs/contract.md §13).
  const tail = forwardedProto ? ['X-Forwarded-Proto'] : [];
  const namespaceVary = ['Origin', 'Authorization', ...tail].join(', ');
  const otherVary = ['Origin', ...tail].join(', ');

  return {
    directives(asker, status) {
      if (asker.headers.authorization !== undefined) return { cacheControl: WORDPRESS_NO_CACHE, expires: WORDPRESS_EXPIRES };
      if (asker.method !== 'GET' && asker.method !== 'HEAD') return { cacheControl: 'no-store' };
      if (asker.headers.cookie !== undefined || namesPassword(asker)) return { cacheControl: 'private, no-store' };
      if ((status >= 200 && status < 300) || status === 304) return { cacheControl: shared };
      if (status === 404 || status === 410) return { cacheControl: notFound };
      return { cacheControl: 'no-store' };
    },
    vary: (target) => (target.startsWith(namespacePrefix) ? namespaceVary : otherVary),
  };
}

/**
 * Sets Cache-Control, Expires and Vary on every answer, at the moment its headers are written, when
 * the status is final. Node's `writeHead` is wrapped on the response (Node calls it for every answer,
 * also one sent with `end()` or `write()` alone), which is what the `on-headers` package of the
 * expressjs org does: no dependency for these few lines, and no code of the service passes headers
 * to writeHead itself (were one to pass a Cache-Control there, it would still win, as Node sets them
 * after this runs). The cost is one closure per request and a few comparisons as the headers go out.
 */
export function cacheHeaders(policy: CachePolicy): RequestHandler {
  return (req, res, next) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, statusCode: number, ...rest: unknown[]) {
      if (!this.headersSent) decide(policy, req, this, Number(statusCode));
      return writeHead.apply(this, [statusCode, ...rest] as never);
    } as Response['writeHead'];
    next();
  };
}

function decide(policy: CachePolicy, req: Request, res: Response, status: number): void {
  // Routers may have cut their mount path off `req.url`; `baseUrl` holds it.
  const target = req.baseUrl + req.url;
  if (res.getHeader('Cache-Control') === undefined) {
    const { cacheControl, expires } = policy.directives({ method: req.method, headers: req.headers, target, query: () => req.query as Record<string, unknown> }, status);
    res.setHeader('Cache-Control', cacheControl);
    if (expires !== undefined) res.setHeader('Expires', expires);
  }
  // Appended to what is there (the CORS package's `Origin`), each name once (Express's `vary`).
  res.vary(policy.vary(target));
}

/**
 * Whether the query names `password` (a password-protected record's, docs/contract.md §5). Only a
 * query whose text holds `password` or a %-escape can: those are parsed by the app's own query parser
 * (what the operation reads); any other query is not parsed again.
 */
function namesPassword(asker: Asker): boolean {
  const start = asker.target.indexOf('?');
  if (start === -1) return false;
  const query = asker.target.slice(start + 1);
  if (!/password|%/i.test(query)) return false;
  try {
    return Object.hasOwn(asker.query(), 'password');
  } catch {
    // A query the parser refuses is refused by the request too (400, no-store); none of it is shared.
    return true;
  }
}

/** TRUST_PROXY believes some proxy (config.ts `parseTrustProxy`): not off, not 0 hops, not an empty list. */
function trustsProxies(trustProxy: Config['trustProxy']): boolean {
  return Array.isArray(trustProxy) ? trustProxy.length > 0 : trustProxy !== false && trustProxy !== 0;
}
