import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import type { Urls } from '../core/urls.js';
import { Repositories, type ReadCaches } from '../repositories/registry.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../repositories/linked-kinds.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../repositories/taxonomies.js';
import { eventBySlug, linkedBySlug, seriesNote, termBySlug, upcomingEvents, type UpcomingFilter, type UpcomingPage } from '../records/pages/read.js';
import { eventPage, linkedPage, notFoundPage, protectedPage, seriesDatesPage, termPage, upcomingPage, type Paging } from '../records/pages/views.js';
import { PAGE_CSP, renderPage, type PageParts, type SiteFrame } from '../records/pages/layout.js';
import { replyTooLarge } from './shared/reply-body.js';

/** Events per list page, as WordPress's default `posts_per_page`. */
export const EVENTS_PER_PAGE = 10;

/**
 * The public pages (docs/contract.md §13): server-rendered HTML at every `url` the API hands out, when
 * this service is its own site (config.ts `servesPages`). Outside the namespace and the OpenAPI
 * document, like /docs; mounted before authentication, because pages are read as an anonymous
 * caller whatever credentials come with the request.
 *
 * - `/` and `/events/`: the upcoming events, `?page=N` for the next ones;
 * - `/event/{slug}/`, `/venue/{slug}/`, `/organizer/{slug}/`;
 * - `/events/category/{slug}/` (a child category under its ancestors' slugs), `/tag/{slug}/`.
 *
 * Every page, 404s included, carries the plugin's discovery headers (`X-TEC-API-*`, the REST URL of
 * what it shows) beside WordPress's `Link` to the REST root, its own CSP, and no `X-Robots-Tag`: unlike
 * the API, the pages are meant to be found.
 */
export function publicPages(config: Config, db: Knex, now: () => Date, readCaches: ReadCaches): Router {
  const router = Router();
  const context = (req: Request, res: Response) => {
    const urls = res.locals.urls as Urls;
    return { urls, repositories: new Repositories(db, readCaches), site: siteFrame(config, urls), page: pageNumber(req.query.page) };
  };

  /** A page of records: at most REPLY_LIMIT bytes, as every API answer (docs/limits.md "Text fields and reply sizes"). */
  const sendPage = (res: Response, site: SiteFrame, page: PageParts, apiRoot: string) => send(res, 200, site, page, apiRoot, config.replyLimit);

  const upcoming = async (req: Request, res: Response, next: NextFunction) => {
    // `/?rest_route=...` is a REST request whatever its value, as in WordPress: a malformed one is the API's 404.
    if (req.path === '/' && Object.hasOwn(req.query, 'rest_route')) return next();
    const { urls, repositories, site, page } = context(req, res);
    const base = urls.permalink('events');
    const links = { ics: `${urls.collection('events')}.ics`, api: `${urls.collection('events')}/` };
    const list = page === undefined ? undefined : await listFor(repositories, urls, {}, page);
    if (!list || !list.paging) return notFound(res, site, urls);
    // The site root shows the same list; its discovery header names the namespace, as the plugin's home page does.
    const apiRoot = req.path === '/' ? `${urls.namespace}/` : links.api;
    sendPage(res, site, upcomingPage(site.name, list.upcoming, { ...list.paging, baseUrl: base }, { ...links, api: apiRoot }), apiRoot);
  };
  if (config.basePath !== '') router.get('/', upcoming);
  router.get('/events', upcoming);

  router.get('/event/:slug', async (req, res) => {
    const { urls, repositories, site } = context(req, res);
    const found = await eventBySlug(repositories, urls, req.params.slug as string);
    if (found.state === 'missing') return notFound(res, site, urls);
    if (found.state === 'protected') {
      const api = urls.item('events', found.id);
      return sendPage(res, site, protectedPage('Event', found.title, urls.permalink('event', req.params.slug as string), api), api);
    }
    const event = found.record;
    const links = { ics: `${event.rest_url}.ics`, api: event.rest_url };
    sendPage(res, site, eventPage(event, found.text, links, urls.site, await seriesNote(repositories, urls, event)), links.api);
  });

  // The dates of an occurrence's series (the plugin's recurrence add-on has `/event/{slug}/all/`); a single event has none.
  router.get('/event/:slug/all', async (req, res) => {
    const { urls, repositories, site, page } = context(req, res);
    const slug = req.params.slug as string;
    const found = await eventBySlug(repositories, urls, slug);
    if (found.state === 'missing' || page === undefined || (found.state === 'protected' && !found.seriesId)) return notFound(res, site, urls);
    if (found.state === 'protected') {
      const api = `${urls.item('events', found.id)}/occurrences`;
      return sendPage(res, site, protectedPage('Event', found.title, urls.permalink('event', slug, 'all'), api), api);
    }
    const event = found.record;
    const series = await seriesNote(repositories, urls, event);
    if (!series || event.series_id === null) return notFound(res, site, urls);
    const list = await listFor(repositories, urls, { seriesOf: { seriesId: event.series_id, eventId: event.id } }, page);
    if (!list.paging) return notFound(res, site, urls);
    const api = `${event.rest_url}/occurrences`;
    sendPage(res, site, seriesDatesPage(event, found.text, series, list.upcoming, { ...list.paging, baseUrl: series.datesUrl }, api), api);
  });

  for (const kind of [VENUES, ORGANIZERS]) {
    router.get(`/${kind.type}/:slug`, async (req, res) => {
      const { urls, repositories, site, page } = context(req, res);
      const slug = req.params.slug as string;
      const found = await linkedBySlug(repositories, kind, urls, slug);
      if (found.state === 'missing' || page === undefined) return notFound(res, site, urls);
      const api = urls.item(kind.collection, found.state === 'shown' ? found.record.id : found.id);
      if (found.state === 'protected') return sendPage(res, site, protectedPage(kind.Label, found.title, urls.permalink(kind.type, slug), api), api);
      const record = found.record;
      const list = await listFor(repositories, urls, filterOf(kind, record.id), page);
      if (!list.paging) return notFound(res, site, urls);
      const links = { ics: `${urls.collection('events')}.ics?${kind.type}=${record.id}`, api };
      const base = urls.permalink(kind.type, slug);
      sendPage(res, site, linkedPage(kind.Label as 'Venue' | 'Organizer', record, found.text, list.upcoming, { ...list.paging, baseUrl: base }, links), api);
    });
  }

  const termRoute = (taxonomy: Taxonomy, label: 'Category' | 'Tag') => async (req: Request, res: Response) => {
    const { urls, repositories, site, page } = context(req, res);
    const segments = taxonomy === CATEGORIES ? (req.params.path as unknown as string[]) : [req.params.slug as string];
    const slug = segments[segments.length - 1] ?? '';
    const found = await termBySlug(repositories, taxonomy, urls, slug);
    if (!found || page === undefined) return notFound(res, site, urls);
    const term = found.record;
    // A child category lives under its ancestors' slugs: any other path to it is sent there, with
    // its query (`?page=2`), as WordPress's canonical redirects keep theirs.
    if (term.url !== urls.permalink(...taxonomy.permalinkBase, ...segments)) return res.redirect(301, term.url + queryOf(req));
    const list = await listFor(repositories, urls, { termId: term.id }, page);
    if (!list.paging) return notFound(res, site, urls);
    const query = `${taxonomy.collection}=${encodeURIComponent(term.slug)}`;
    const links = { ics: `${urls.collection('events')}.ics?${query}`, api: `${urls.collection('events')}/?${query}` };
    sendPage(res, site, termPage(label, { id: term.id, url: term.url }, found.text, list.upcoming, { ...list.paging, baseUrl: term.url }, links), links.api);
  };
  router.get('/events/category/*path', termRoute(CATEGORIES, 'Category'));
  router.get('/tag/:slug', termRoute(TAGS, 'Tag'));

  return router;

  /** One page of upcoming events; `paging` is undefined past the last page (a 404, as the API's `event-archive-page-not-found`). */
  async function listFor(repositories: Repositories, urls: Urls, filter: UpcomingFilter, page: number): Promise<{ upcoming: UpcomingPage; paging?: Omit<Paging, 'baseUrl'> }> {
    const found = await upcomingEvents(repositories, urls, filter, { page, perPage: EVENTS_PER_PAGE, now: now(), siteTimezone: config.siteTimezone });
    const totalPages = Math.max(1, Math.ceil(found.total / EVENTS_PER_PAGE));
    return { upcoming: found, paging: page > totalPages ? undefined : { page, totalPages } };
  }
}

function filterOf(kind: LinkedKind, id: number): UpcomingFilter {
  return kind === VENUES ? { venueId: id } : { organizerId: id };
}

/** The request's query string as sent, `?` included (`''` without one). */
function queryOf(req: Request): string {
  const start = req.originalUrl.indexOf('?');
  return start === -1 ? '' : req.originalUrl.slice(start);
}

/** `?page=N`: absent is 1; anything but a whole number from 1 up is no page (404). */
function pageNumber(value: unknown): number | undefined {
  if (value === undefined) return 1;
  return typeof value === 'string' && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : undefined;
}

function siteFrame(config: Config, urls: Urls): SiteFrame {
  return { name: config.siteName ?? new URL(urls.site).hostname, eventsUrl: urls.permalink('events'), origin: urls.site, restRoot: `${urls.restRoot}/` };
}

function notFound(res: Response, site: SiteFrame, urls: Urls): void {
  send(res, 404, site, notFoundPage(site.eventsUrl, `${urls.namespace}/`), `${urls.namespace}/`);
}

/**
 * Sends a page with its headers: the plugin's discovery headers, the page CSP, an alternate link to
 * its REST URL (Cache-Control as for any anonymous read: http/cache-policy.ts). A page over `limit` bytes is refused before any of it is sent, as an API answer over
 * REPLY_LIMIT is (the text-field limits keep a page of ten events far below the default 8 MB).
 */
function send(res: Response, status: number, site: SiteFrame, page: PageParts, apiRoot: string, limit = Number.POSITIVE_INFINITY): void {
  const html = renderPage(site, page);
  if (Buffer.byteLength(html) > limit) throw replyTooLarge(limit);
  res.removeHeader('X-Robots-Tag');
  res.set({
    'Content-Security-Policy': PAGE_CSP,
    'X-TEC-API-VERSION': 'v1',
    'X-TEC-API-ROOT': apiRoot,
    'X-TEC-API-ORIGIN': site.origin,
  });
  res.append('Link', `<${apiRoot}>; rel="alternate"; type="application/json"`);
  res.status(status).type('html').send(html);
}
