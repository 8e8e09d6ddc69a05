import type { OperationContext, Reply } from './shared/operation.js';
import { noTarget, operation } from './shared/operation.js';
import { invalidParams, RestError } from '../core/errors.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { postPolicy, readerOf, statusFilter } from '../policies/posts.js';
import type { User } from '../auth/capabilities.js';
import { eventRecords } from '../records/records.js';
import { currentCursor } from '../records/change-feed.js';
import { DATE_PARAMETERS } from '../domain/events/list-window.js';
import { eventListFilter, readListFilters, resolveListedRecords, type ListFilters } from '../domain/events/list-filters.js';

/** `GET /events` and its feeds, `.ics` and `.jsonld` (operations/event-feeds.ts): the same filters and rules. */
export type ListOp = 'listEvents' | 'listEventsIcs' | 'listEventsJsonLd';
type ListQuery = OperationContext<ListOp>['query'];

/** A list request as parsed before its reply is looked up (the rest needs the database). */
export interface ParsedList extends ListFilters {
  query: ListQuery;
  page: ReturnType<typeof pageRequest>;
}

export function parseList(ctx: OperationContext<ListOp>): ParsedList {
  const query = ctx.query;
  const { problems, details, bounds, urlValues, modified } = readListFilters(query, ctx.now(), ctx.config.siteTimezone);
  return { query, page: pageRequest(query.page, query.per_page), problems, details, bounds, urlValues, modified };
}

/**
 * The reply depends on the request through the computed date bounds (not the raw, relative dates),
 * the modification range and order (`asked` holds `modified_*`, `orderby` and `order` as sent, and
 * `modified` what they mean) and on which parameters were sent (paging URLs carry only those).
 */
export function listDependsOn(ctx: OperationContext<ListOp>, { query, bounds, urlValues, problems, modified }: ParsedList) {
  const asked = Object.fromEntries(Object.entries(query).filter(([name]) => !(DATE_PARAMETERS as readonly string[]).includes(name)));
  return { parts: [asked, bounds, urlValues, modified, problems, sentQueryNames(ctx.req)] };
}

/** Who may list: the `status` asked decides (policies/posts.ts). */
export function authorizeList(user: User | undefined, _target: undefined, { query }: ParsedList): void {
  postPolicy.list(user, undefined, query);
}

/** The events a parsed list request selects (one page of them, and how many there are in all), with the filters' lookups (400). */
export async function findListed(ctx: OperationContext<ListOp>, parsed: ParsedList, limit: number, offset: number) {
  const { query, problems, details } = parsed;
  const repositories = ctx.repositories;
  // Read before the page, so following the feed from it misses nothing (docs/contract.md §9).
  const changeCursor = await currentCursor(repositories);
  const status = statusFilter(query.status, ctx.user);
  const terms = await resolveListedRecords(repositories, query, problems);
  if (Object.keys(problems).length) throw invalidParams(problems, details);
  const { rows, total } = await repositories.events.list(eventListFilter(query, parsed, terms, { statuses: status.statuses, reader: readerOf(ctx.user), limit, offset }));
  return { rows, total, status, changeCursor, categories: terms.categories ?? [], tags: terms.tags ?? [] };
}

/**
 * The arguments of a list's paging URLs: the plugin's argument order, the computed date bounds, then
 * every other filter sent, then this service's additions (docs/contract.md §8).
 */
export function pagingArgs(ctx: OperationContext<ListOp>, { query, urlValues }: ParsedList, status: ReturnType<typeof statusFilter>): Record<string, unknown> {
  const sent = new Set(sentQueryNames(ctx.req));
  const q: Record<string, unknown> = query;
  const args: Record<string, unknown> = {};
  for (const name of DATE_PARAMETERS.slice(0, 2)) args[name] = urlValues[name];
  for (const name of ['search', 'geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius']) if (sent.has(name)) args[name] = q[name];
  args.status = status.urlValue;
  for (const name of ['post_parent', 'include', 'strict_dates']) if (sent.has(name)) args[name] = q[name];
  for (const name of DATE_PARAMETERS.slice(2)) args[name] = urlValues[name];
  for (const name of ['ticketed', 'venue', 'organizer', 'featured', 'categories', 'tags']) if (sent.has(name)) args[name] = q[name];
  for (const name of ['modified_after', 'modified_before', 'orderby', 'order', 'hide_subsequent_recurrences']) if (sent.has(name)) args[name] = q[name];
  return args;
}

/** The 404 of a page past the last one, of every list of events. */
export const pastTheEnd = () => new RestError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');

/** `GET /events` once the request is parsed: the filters' lookups, the page, its total and links. */
async function listPage(ctx: OperationContext<'listEvents'>, parsed: ParsedList): Promise<Reply<'listEvents'>> {
  const { page } = parsed;
  const { rows, total, status, changeCursor } = await findListed(ctx, parsed, page.perPage, page.offset);
  const { envelope, headers } = listEnvelope(ctx.urls.collection('events'), pagingArgs(ctx, parsed, status), page, total, pastTheEnd);
  const events = await eventRecords(ctx.repositories, rows, ctx.user, ctx.urls, { single: false });
  return { status: 200, body: { events, ...envelope }, headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor } };
}

export const eventListOperations = {
  listEvents: operation({ parse: parseList, cache: listDependsOn, load: noTarget, authorize: authorizeList, execute: listPage }),
};
