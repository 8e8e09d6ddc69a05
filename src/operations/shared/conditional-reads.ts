import type { Express, Request, Response } from 'express';

/**
 * When a GET or HEAD answers 304 (RFC 9110 §13.1.2, §13.1.3, §13.2.2): the one rule for every
 * conditional read, records, lists, feeds, pages, /doc and the /docs assets alike.
 *
 * Express's `req.fresh` (the `fresh` package) answers "not fresh" to any request with
 * `Cache-Control: no-cache`. That directive is for caches on the way, not for the origin: RFC 9110
 * §13.2.1 has the origin evaluate the preconditions whatever the request's cache directives, and
 * Node's `fetch` (openapi-fetch, hey-api clients) sends `no-cache` with every `If-None-Match`. So
 * the request's cache directives (`Cache-Control`, `Pragma`) are not read here at all.
 *
 * - `If-None-Match` present: 304 when one of its tags matches the answer's `ETag` by weak comparison
 *   (`W/"x"` matches `"x"`), or when it is `*` (the answer exists). `If-Modified-Since` is then
 *   ignored (§13.2.2 step 3 only runs without `If-None-Match`).
 * - Otherwise `If-Modified-Since`, when it is a valid date and the answer has a `Last-Modified`:
 *   304 when the answer was not modified after it.
 */
function isNotModified(method: string, status: number, requestHeaders: Request['headers'], answer: { etag?: string; lastModified?: string }): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  // Only a successful answer has a representation to compare (what Express's own check required).
  if (!((status >= 200 && status < 300) || status === 304)) return false;
  const noneMatch = requestHeaders['if-none-match'];
  if (noneMatch !== undefined) return noneMatchFails(noneMatch, answer.etag);
  const modifiedSince = requestHeaders['if-modified-since'];
  if (modifiedSince === undefined || answer.lastModified === undefined) return false;
  const since = Date.parse(modifiedSince);
  const modified = Date.parse(answer.lastModified);
  if (Number.isNaN(since) || Number.isNaN(modified)) return false;
  return modified <= since;
}

/** Whether `If-None-Match` fails for an answer with this tag (so the answer is 304). */
function noneMatchFails(header: string, etag: string | undefined): boolean {
  if (header.trim() === '*') return true;
  if (etag === undefined) return false;
  const opaque = opaqueTag(etag);
  return header.split(',').some((item) => item.trim() !== '' && opaqueTag(item.trim()) === opaque);
}

/** A tag without its weakness mark: weak comparison (§8.8.3.2) compares only the quoted part. */
function opaqueTag(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** `isNotModified` for a request and its answer as set so far. */
function answerIsNotModified(req: Request, res: Response): boolean {
  const etag = res.get('ETag');
  const lastModified = res.get('Last-Modified');
  return isNotModified(req.method, res.statusCode, req.headers, { etag, lastModified });
}

/**
 * Makes `req.fresh` of this app follow `isNotModified`: `res.send` (every JSON, text and HTML
 * answer) and the streamed replies (operations/shared/reply-body.ts) decide their 304 by it.
 * Defined on the app's own request prototype, so nothing outside this app changes.
 */
export function useConditionalGets(app: Express): void {
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request) {
      return answerIsNotModified(this, this.res!);
    },
  });
}

/**
 * For files sent by `res.sendFile` (the `send` package), which checks freshness with the `fresh`
 * package itself, against the request's headers: the request it sees carries no cache directives,
 * and no `If-Modified-Since` beside an `If-None-Match` (which `fresh` would also require to pass),
 * so its check is the one above (weak tag comparison, the file's time against the date). Called
 * just before the file is sent; nothing reads these headers after.
 */
export function withoutCacheDirectives(req: Request): void {
  const headers = { ...req.headers };
  delete headers['cache-control'];
  delete headers.pragma;
  if (headers['if-none-match'] !== undefined) delete headers['if-modified-since'];
  Object.defineProperty(req, 'headers', { value: headers, configurable: true, enumerable: true, writable: true });
}
