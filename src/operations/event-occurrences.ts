import type { OperationContext } from './shared/operation.js';
import { operation } from './shared/operation.js';
import { singleReadInput } from './shared/password-guesses.js';
import { invalidParams } from '../core/errors.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { postPolicy, readerOf, statusFilter } from '../policies/posts.js';
import { eventRecords } from '../records/records.js';
import { currentCursor } from '../records/change-feed.js';
import { findRecord } from '../domain/posts/post-kind.js';
import { EVENTS } from '../domain/events/post-kind.js';
import { listBounds } from '../domain/events/list-window.js';
import { pastTheEnd } from './event-lists.js';

/**
 * `GET /events/{id}/occurrences` (docs/contract.md §14): the events of the series `id` belongs to, as
 * `GET /events` lists them (date window, paging, read rules), after the read checks of `GET /events/{id}`.
 */
const listOccurrences = operation({
  parse(ctx: OperationContext<'listEventOccurrences'>) {
    const query = ctx.query;
    const { bounds, urlValues, invalid } = listBounds(query, { strict: query.strict_dates === true, include: false, now: ctx.now(), siteTimezone: ctx.config.siteTimezone });
    if (invalid.length) throw invalidParams(Object.fromEntries(invalid.map((name) => [name, `${name} is not a date this service understands.`])));
    return { ...singleReadInput(ctx), page: pageRequest(query.page, query.per_page), bounds, urlValues };
  },
  load: (ctx: OperationContext<'listEventOccurrences'>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: postPolicy.read,
  async execute(ctx: OperationContext<'listEventOccurrences'>, { page, bounds, urlValues }, row) {
    const repositories = ctx.repositories;
    const changeCursor = await currentCursor(repositories);
    const status = statusFilter(undefined, ctx.user);
    const { rows, total } = await repositories.events.list({
      statuses: status.statuses,
      reader: readerOf(ctx.user),
      bounds,
      termLists: [],
      ofSeries: { seriesId: row.seriesId, eventId: row.id },
      limit: page.perPage,
      offset: page.offset,
    });
    const sent = new Set(sentQueryNames(ctx.req));
    const args: Record<string, unknown> = { ...urlValues, status: status.urlValue };
    if (sent.has('strict_dates')) args.strict_dates = ctx.query.strict_dates;
    const { envelope, headers } = listEnvelope(`${ctx.urls.item('events', row.id)}/occurrences`, args, page, total, pastTheEnd);
    const events = await eventRecords(repositories, rows, ctx.user, ctx.urls, { single: false });
    return { status: 200, body: { events, ...envelope }, headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor } };
  },
});

/** The occurrences of an event's series (the series' writes are those of its events: operations/events.ts). */
export const eventOccurrenceOperations = {
  listEventOccurrences: listOccurrences,
};
