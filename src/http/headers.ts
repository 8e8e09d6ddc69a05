import cors from 'cors';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { originOf, type Config } from '../core/config.js';
import { requestOrigin, Urls } from '../core/urls.js';
import { headerNames, methodsOf, requestHeaderNames, responseHeaderNames, type ApiDocument, type OperationInfo } from '../openapi/document.js';

/** What another origin may send and read: the CORS lists of every answer. */
interface CorsLists {
  /** Request headers a preflight allows. */
  allowedHeaders: string[];
  /** Response headers a script of another origin may read. */
  exposedHeaders: string[];
  /** Methods a preflight allows. */
  methods: string[];
}

/** WordPress's own lists (docs/plugin-behaviour.md §2.4): ours start with them, as WordPress sends them. */
const WORDPRESS_ALLOWED_HEADERS = ['Authorization', 'X-WP-Nonce', 'Content-Disposition', 'Content-MD5', 'Content-Type'];
const WORDPRESS_EXPOSED_HEADERS = ['X-WP-Total', 'X-WP-TotalPages', 'Link'];

/**
 * Response headers of the document left out of Access-Control-Expose-Headers:
 * - `Allow`, as in WordPress: which methods a caller may use is a question for the preflight, and
 *   exposing it would be a change on the wire the document does not ask for;
 * - `Cache-Control`: CORS-safelisted, a script reads it without being told (Fetch standard), so
 *   listing it adds bytes to every answer and nothing else;
 * - `Vary`: addressed to caches (docs/contract.md §19), of no use to a script.
 */
const UNEXPOSED = new Set(['Allow', 'Cache-Control', 'Vary']);

/**
 * The CORS lists, read from the document once at start-up: WordPress's own, then what the document
 * declares, so that a header added to the document is allowed or exposed without a second list here.
 */
export function corsLists(document: ApiDocument, operations: OperationInfo[]): CorsLists {
  return {
    // `X-Request-Id` is in the document only as a response header, but a caller may send its own to
    // name its request (http/app.ts keeps it), so a preflight must allow it.
    allowedHeaders: headerNames([...WORDPRESS_ALLOWED_HEADERS, ...requestHeaderNames(operations), 'X-Request-Id']),
    exposedHeaders: headerNames([...WORDPRESS_EXPOSED_HEADERS, ...responseHeaderNames(document)]).filter((name) => !UNEXPOSED.has(name)),
    // HEAD is served by every GET operation; OPTIONS is the preflight itself.
    methods: [...methodsOf(operations).flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])), 'OPTIONS'],
  };
}

/**
 * Security headers that suit a JSON API (helmet's; the CORS policy below decides who may read
 * responses). They are the same on every answer, so helmet runs once, at start-up, on a stand-in
 * response, and each request gets what it set in one pass, in its order.
 */
export function securityHeaders(): RequestHandler {
  const steps: Array<[name: string, value: string | undefined]> = [];
  const recorder = {
    setHeader: (name: string, value: string) => steps.push([name, value]),
    removeHeader: (name: string) => steps.push([name, undefined]),
  };
  let finished = false;
  helmet({ crossOriginResourcePolicy: { policy: 'cross-origin' }, strictTransportSecurity: false })({} as never, recorder as unknown as Response, (error?: unknown) => {
    if (error !== undefined) throw error;
    finished = true;
  });
  // helmet's headers depend on nothing of the request; were that to change, this must not pass quietly.
  if (!finished) throw new Error('helmet did not finish synchronously: its headers cannot be worked out once');
  return (_req, res, next) => {
    for (const [name, value] of steps) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    next();
  };
}

/** Origins whose URLs are kept (`wordpressHeaders`): the Host header is the caller's to choose, so they are bounded. */
const KEPT_ORIGINS = 16;

/**
 * Headers WordPress sends on every REST response (docs/plugin-behaviour.md §2.4): all but the
 * discovery Link are constant. The request's absolute URLs (core/urls.ts) are set here too: they
 * depend only on the origin (PUBLIC_URL, or the scheme and Host), so each origin's, with its Link,
 * is made once and shared by the requests to it.
 */
export function wordpressHeaders(config: Config, lists: CorsLists): RequestHandler {
  const exposed = lists.exposedHeaders.join(', ');
  const allowed = lists.allowedHeaders.join(', ');
  const byOrigin = new Map<string, { urls: Urls; link: string }>();
  return (req, res, next) => {
    const origin = requestOrigin(config, req);
    let kept = byOrigin.get(origin);
    if (!kept) {
      if (byOrigin.size >= KEPT_ORIGINS) byOrigin.clear();
      const urls = new Urls(config, req);
      byOrigin.set(origin, (kept = { urls, link: `<${urls.restRoot}/>; rel="https://api.w.org/"` }));
    }
    res.locals.urls = kept.urls;
    res.setHeader('X-Robots-Tag', 'noindex');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Link', kept.link);
    res.setHeader('Access-Control-Expose-Headers', exposed);
    res.setHeader('Access-Control-Allow-Headers', allowed);
    next();
  };
}

/** Any origin, with credentials, as WordPress does; only CORS_ORIGINS when it is set. */
export function corsPolicy(config: Config, lists: CorsLists): RequestHandler {
  const corsOrigins = config.corsOrigins && new Set(config.corsOrigins);
  return cors({
    origin: corsOrigins ? (origin, done) => done(null, origin !== undefined && corsOrigins.has(originOf(origin) ?? '')) : true,
    credentials: true,
    exposedHeaders: lists.exposedHeaders,
    allowedHeaders: lists.allowedHeaders,
    methods: lists.methods,
    maxAge: 600,
  });
}
