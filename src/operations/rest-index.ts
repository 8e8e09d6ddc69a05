import type { RequestHandler } from 'express';
import { DateTime } from 'luxon';
import type { Config } from '../core/config.js';
import { zoneOf } from '../dates/parse.js';
import type { ApiDocument } from '../openapi/document.js';
import type { Urls } from '../core/urls.js';
import { NAMESPACE } from '../openapi/document.js';
import { namespaceIndex, type buildRouteTable } from './namespace-index.js';

/**
 * WordPress REST discovery outside the namespace. Every answer's `Link: <{rest root}/>;
 * rel="https://api.w.org/"` points at the REST index, which WordPress serves at `/wp-json/`
 * (`WP_REST_Server::get_index`); clients read it to find the namespaces and routes. Sites without
 * pretty permalinks are reached as `/?rest_route=/tribe/events/v1/...`, which is accepted too.
 *
 * Neither is in the OpenAPI document: the document describes the `tribe/events/v1` namespace (its
 * server URL is the namespace root, so SDKs call the operations with one base URL), and these are
 * the WordPress site's, like `/healthz` and `/docs` are the service's. Their shapes are tested
 * against the document's route schemas instead (test/api/wire/rest-index.test.ts).
 */

/** The site's offset from UTC now, in hours (`-5`, `5.5`), and its zone name (`""` for a fixed offset), as WordPress's options. */
function siteZone(siteTimezone: string, now: Date): { gmt_offset: number; timezone_string: string } {
  const zone = zoneOf(siteTimezone) ?? zoneOf('UTC')!;
  const offsetMinutes = DateTime.fromJSDate(now, { zone }).offset;
  return { gmt_offset: offsetMinutes / 60, timezone_string: /^UTC[+-]/.test(siteTimezone) ? '' : siteTimezone };
}

/** The first paragraph of the document's description: the plugin's one-line description of the API. */
function shortDescription(document: ApiDocument): string {
  return String(document.info.description ?? '')
    .split(/\n\s*\n/)[0]
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * `GET {BASE_PATH}/`: WordPress's REST index, for this service. `name` and `description` are the
 * document's title and first paragraph (there is no WordPress site title); `url` is where the REST
 * API is served (PUBLIC_URL or the request's origin), `home` the public site (SITE_URL); the only
 * namespace is ours, and `routes` holds the index route and every route of the namespace exactly as
 * the namespace index shows them. `authentication` is empty: application passwords work (HTTP Basic),
 * but there is no authorization page to send users to, which is what WordPress advertises there.
 */
export function restIndex(config: Config, document: ApiDocument, routes: ReturnType<typeof buildRouteTable>, now: () => Date): RequestHandler {
  return (_req, res) => {
    const urls = res.locals.urls as Urls;
    const namespace = namespaceIndex(routes, urls) as { routes: Record<string, unknown> };
    res.json({
      name: String(document.info.title ?? ''),
      description: shortDescription(document),
      url: urls.origin,
      home: urls.site,
      ...siteZone(config.siteTimezone, now()),
      namespaces: [NAMESPACE],
      authentication: {},
      routes: {
        '/': {
          namespace: '',
          methods: ['GET'],
          endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
          _links: { self: [{ href: `${urls.restRoot}/` }] },
        },
        ...namespace.routes,
      },
    });
  };
}

/**
 * `/?rest_route=/tribe/events/v1/events&per_page=5` (or `/index.php?rest_route=...`) is
 * `{BASE_PATH}/tribe/events/v1/events?per_page=5`, as on a WordPress site without pretty
 * permalinks; `rest_route=/` is the REST index. The other parameters pass through untouched. A
 * `rest_route` that is not a path (no leading `/`) is left alone, to end as any unknown URL does.
 */
export function restRouteParameter(basePath: string): RequestHandler {
  return (req, _res, next) => {
    const queryStart = req.url.indexOf('?');
    if (queryStart === -1) return next();
    const path = req.url.slice(0, queryStart);
    if (path !== '/' && path !== '/index.php') return next();
    const pieces = req.url.slice(queryStart + 1).split('&');
    const isRoute = (piece: string) => decodeQueryName(piece.split('=')[0]) === 'rest_route';
    const routePiece = pieces.find(isRoute);
    if (routePiece === undefined) return next();
    const route = new URLSearchParams(routePiece).get('rest_route') ?? '';
    if (!route.startsWith('/')) return next();
    // Each segment is encoded again, so the route cannot smuggle in a query string or a fragment.
    const encoded = route.split('/').map(encodeURIComponent).join('/');
    const rest = pieces.filter((piece) => !isRoute(piece) && piece !== '').join('&');
    req.url = `${basePath}${encoded}${rest ? `?${rest}` : ''}`;
    next();
  };
}

function decodeQueryName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
