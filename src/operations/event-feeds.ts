import type { OperationContext, Reply, ResponseBodyOf } from './shared/operation.js';
import { noTarget, operation } from './shared/operation.js';
import { byRequest } from './shared/replies.js';
import { versionOf } from './shared/conditional.js';
import { singleReadInput } from './shared/password-guesses.js';
import { listEnvelope } from './shared/paging.js';
import { postPolicy } from '../policies/posts.js';
import { eventFeedEntries, eventJsonLds } from '../records/records.js';
import { calendarWithin, eventsCalendar } from '../records/events/ical.js';
import { eventFeedName, eventItemList, feedHost, feedRows, listFeedName, siteOf } from '../records/events/feeds.js';
import { findRecord } from '../domain/posts/post-kind.js';
import { EVENTS } from '../domain/events/post-kind.js';
import { authorizeList, findListed, listDependsOn, pagingArgs, parseList, pastTheEnd, type ParsedList } from './event-lists.js';

/** iCalendar answers (docs/contract.md §11). */
const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

/** The JSON-LD feed (docs/contract.md §12). */
const JSON_LD_TYPE = 'application/ld+json; charset=utf-8';

/**
 * An iCalendar reply sent from its UTF-8 bytes (`textBytes`, as a remembered text reply is: see
 * operations/shared/replies.ts): the text is decoded only if something asks for the body.
 */
function calendarReply<Op extends 'listEventsIcs' | 'getEventIcs'>(reply: Omit<Reply<Op>, 'body' | 'textBytes'>, bytes: Buffer): Reply<Op> {
  return Object.defineProperty({ ...reply, textBytes: bytes } as Reply<Op>, 'body', { get: () => bytes.toString('utf8'), enumerable: true, configurable: true });
}

/** `GET /events.ics`: every event `GET /events` would list with the same query, up to ICAL_MAX_EVENTS, in one calendar. */
async function listFeed(ctx: OperationContext<'listEventsIcs'>, parsed: ParsedList): Promise<Reply<'listEventsIcs'>> {
  const max = ctx.config.icalMaxEvents;
  const { rows, total, changeCursor, categories, tags } = await findListed(ctx, parsed, max, 0);
  const written = await feedRows(ctx.repositories, ctx.user, rows, max);
  const entries = await eventFeedEntries(ctx.repositories, written.rows, ctx.user, { single: false });
  const name = listFeedName(siteOf(ctx.config.siteName, ctx.urls.site), categories, tags);
  const options = { host: feedHost(ctx.urls.site), uid: ctx.query.uid ?? 'id', name, url: ctx.urls.site } as const;
  // At most REPLY_LIMIT bytes: a feed of many events is cut as it is at ICAL_MAX_EVENTS (docs/limits.md).
  const { bytes, count } = await calendarWithin(entries, (some) => eventsCalendar(some, ctx.urls, options), ctx.config.replyLimit);
  const headers: Record<string, string> = { 'X-TEC-Change-Cursor': changeCursor };
  if (total > rows.length || written.cut || count < entries.length) Object.assign(headers, { 'X-TEC-Total': String(total), 'X-TEC-Truncated': 'true' });
  return calendarReply({ status: 200, headers, contentType: CALENDAR_TYPE }, bytes);
}

/**
 * `GET /events.jsonld`: the page `GET /events` would list with the same query, as a schema.org
 * `ItemList` of the events' `Event`s, positioned in the whole list, with the list's paging.
 */
async function listJsonLd(ctx: OperationContext<'listEventsJsonLd'>, parsed: ParsedList): Promise<Reply<'listEventsJsonLd'>> {
  const { page } = parsed;
  const { rows, total, status, changeCursor, categories, tags } = await findListed(ctx, parsed, page.perPage, page.offset);
  const { envelope, headers } = listEnvelope(ctx.urls.collection('events.jsonld'), pagingArgs(ctx, parsed, status), page, total, pastTheEnd, { trailingSlash: false });
  const events = await eventJsonLds(ctx.repositories, rows, ctx.user, ctx.urls);
  const name = listFeedName(siteOf(ctx.config.siteName, ctx.urls.site), categories, tags);
  const body = eventItemList(name, envelope.rest_url, total, page.offset, events) as ResponseBodyOf<'listEventsJsonLd'>;
  return { status: 200, body, headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor }, contentType: JSON_LD_TYPE };
}

/** `GET /events/{id}/ics` (and its alias `/events/{id}.ics`, http/aliases.ts): one event, under the read and password rules of `GET /events/{id}`. */
const getFeed = operation({
  parse: (ctx: OperationContext<'getEventIcs'>) => singleReadInput(ctx),
  cache: byRequest,
  load: (ctx: OperationContext<'getEventIcs'>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: postPolicy.read,
  async execute(ctx: OperationContext<'getEventIcs'>, _query, row) {
    // A series' first event is the whole series; a later occurrence an event of its own (docs/contract.md §11).
    const rows = row.seriesId === row.id ? (await feedRows(ctx.repositories, ctx.user, [row], ctx.config.icalMaxEvents)).rows : [{ row }];
    const entries = await eventFeedEntries(ctx.repositories, rows, ctx.user, { single: true });
    const name = eventFeedName(siteOf(ctx.config.siteName, ctx.urls.site), row);
    const bytes = await eventsCalendar(entries, ctx.urls, { host: feedHost(ctx.urls.site), uid: ctx.query.uid ?? 'id', name, url: ctx.urls.site });
    return calendarReply({ status: 200, contentType: CALENDAR_TYPE, version: versionOf('event', row) }, bytes);
  },
});

/** The event feeds: the lists as iCalendar and JSON-LD, and one event as iCalendar. */
export const eventFeedOperations = {
  listEventsIcs: operation({ parse: parseList, cache: listDependsOn, load: noTarget, authorize: authorizeList, execute: listFeed }),
  listEventsJsonLd: operation({ parse: parseList, cache: listDependsOn, load: noTarget, authorize: authorizeList, execute: listJsonLd }),
  getEventIcs: getFeed,
};
