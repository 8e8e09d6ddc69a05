import qs from 'qs';
import type { RequestHandler } from 'express';
import type { DocumentRoutes } from './document-routes.js';

/**
 * DELETE parameters sent in the body, as WordPress reads them (docs/contract.md §2). `wpapi` and other
 * WordPress clients send `DELETE /events/5` with the JSON body `{"force":true}`. Reading the query
 * only, the service trashed what the caller meant to delete for good. On a conflict the query wins,
 * as issue 50 decided (WordPress core's `get_parameter_order` would take the body's value).
 *
 * The body's keys that the operation declares as query parameters (`force`, `scope`, `password`) and
 * the query does not have are added to the request's query string, so everything after (the
 * validator, normalisation, the operation) reads them as it reads the query. Other keys are ignored,
 * as WordPress ignores them, and the body goes.
 */
export function deleteParametersFromBody(routes: DocumentRoutes): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    req.body = undefined;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return next();
    const declared = new Set(routes.operationsFor(req).flatMap((op) => op.parameters.filter((p) => p.in === 'query').map((p) => p.name)));
    const queryStart = req.url.indexOf('?');
    const pieces =
      queryStart === -1
        ? []
        : req.url
            .slice(queryStart + 1)
            .split('&')
            .filter((piece) => piece !== '');
    const inQuery = new Set(pieces.map(queryName));
    const moved = Object.fromEntries(Object.entries(body).filter(([name]) => declared.has(name) && !inQuery.has(name)));
    if (Object.keys(moved).length === 0) return next();
    const path = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    req.url = `${path}?${[...pieces, qs.stringify(moved)].join('&')}`;
    next();
  };
}

/** A query piece's parameter name, decoded and without brackets (`scope`, `force`, `a` of `a[]=1`). */
function queryName(piece: string): string {
  const raw = piece.split('=')[0].replace(/\+/g, ' ');
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw;
  }
  return name.replace(/\[.*$/, '');
}
