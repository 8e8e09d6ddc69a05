import type { Request } from 'express';
import type { RestError } from '../../core/errors.js';

/** The plugin silently serves at most 50 records per page (filters `tribe_rest_*_max_per_page`). */
export const MAX_PER_PAGE = 50;

interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** `page` and `per_page` as validated, with `per_page` clamped to `most`, 50 unless a list says otherwise (validation runs before clamping). */
export function pageRequest(page: number | undefined, perPage: number | undefined, most = MAX_PER_PAGE): PageRequest {
  const p = page ?? 1;
  const size = Math.min(perPage ?? 10, most);
  // A page far past the end (`page=1e19`) must still be a valid SQL OFFSET: it finds nothing and
  // the list answers 404 like any page past the last one.
  return { page: p, perPage: size, offset: Math.min((p - 1) * size, Number.MAX_SAFE_INTEGER) };
}

interface PageLinks {
  restUrl: string;
  nextUrl: string | undefined;
  previousUrl: string | undefined;
  total: number;
  totalPages: number;
}

/**
 * The query names the client actually sent (bracket forms such as `a[]` reduced to `a`), in the order
 * sent. Paging URLs carry these, so following `next_rest_url` keeps every filter.
 */
export function sentQueryNames(req: Request): string[] {
  const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const names: string[] = [];
  for (const key of new URLSearchParams(search).keys()) {
    const bracket = key.indexOf('[');
    const name = bracket === -1 ? key : key.slice(0, bracket);
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

function encodeValue(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

/** How a list's paging URLs end their path: `{base}/?...` as the plugin's collections, or `{base}?...` (a feed such as `events.jsonld`). */
interface PathStyle {
  trailingSlash: boolean;
}

/**
 * Paging URLs for a list: `{base}/` (trailing slash, as the plugin) plus `page`, `per_page` and then
 * every other argument, URL-encoded, lists as CSV. `next` only when a next page exists, `previous`
 * only for page > 1 (without `page` when it is page 1, as the plugin).
 */
export function pageLinks(baseUrl: string, args: Record<string, unknown>, page: PageRequest, total: number, style: PathStyle = { trailingSlash: true }): PageLinks {
  // An empty list has 0 pages; a total that is a multiple of per_page has exactly total / per_page.
  const totalPages = Math.ceil(total / page.perPage);
  const build = (pageNumber: number | undefined): string => {
    const params = new URLSearchParams();
    if (pageNumber !== undefined) params.set('page', String(pageNumber));
    params.set('per_page', String(page.perPage));
    for (const [name, value] of Object.entries(args)) {
      if (name === 'page' || name === 'per_page' || value === undefined || value === null) continue;
      params.set(name, encodeValue(value));
    }
    return `${baseUrl}${style.trailingSlash ? '/' : ''}?${params.toString()}`;
  };
  return {
    restUrl: build(page.page),
    nextUrl: page.page < totalPages ? build(page.page + 1) : undefined,
    previousUrl: page.page > 1 ? build(page.page - 1 === 1 ? undefined : page.page - 1) : undefined,
    total,
    totalPages,
  };
}

/** The list headers: the plugin's `X-TEC-*`, WordPress's `X-WP-*`, and an RFC 8288 `Link`. */
export function pageHeaders(links: PageLinks): Record<string, string> {
  const headers: Record<string, string> = {
    'X-TEC-Total': String(links.total),
    'X-TEC-TotalPages': String(links.totalPages),
    'X-WP-Total': String(links.total),
    'X-WP-TotalPages': String(links.totalPages),
  };
  const link = [links.nextUrl ? `<${links.nextUrl}>; rel="next"` : undefined, links.previousUrl ? `<${links.previousUrl}>; rel="prev"` : undefined].filter(Boolean);
  if (link.length) headers.Link = link.join(', ');
  return headers;
}

/** The paging part of every list answer (the records go beside it, under the collection's name). */
interface ListEnvelope {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
  total: number;
  total_pages: number;
}

/**
 * The list envelope every list shares: its paging URLs, totals and headers, or `pastTheEnd` (404)
 * for a page after the last one (page 1 of an empty list is an empty page). Call it before building
 * the page's records.
 */
export function listEnvelope(
  baseUrl: string,
  args: Record<string, unknown>,
  page: PageRequest,
  total: number,
  pastTheEnd: () => RestError,
  style: PathStyle = { trailingSlash: true },
): { envelope: ListEnvelope; headers: Record<string, string> } {
  const links = pageLinks(baseUrl, args, page, total, style);
  if (page.page > 1 && page.page > links.totalPages) throw pastTheEnd();
  const envelope: ListEnvelope = {
    rest_url: links.restUrl,
    ...(links.nextUrl && { next_rest_url: links.nextUrl }),
    ...(links.previousUrl && { previous_rest_url: links.previousUrl }),
    total: links.total,
    total_pages: links.totalPages,
  };
  return { envelope, headers: pageHeaders(links) };
}
