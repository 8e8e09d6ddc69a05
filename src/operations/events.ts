import type { OperationContext, OperationTable, Reply, ResponseBodyOf } from './shared/operation.js';
import { noTarget, operation, queryInput } from './shared/operation.js';
import { byRequest, rememberedRecord } from './shared/replies.js';
import { checkIfMatch, conditionalWrite, tagOfBody, versionOf } from './shared/conditional.js';
import { createRecord } from './shared/idempotency.js';
import { singleReadInput } from './shared/password-guesses.js';
import { invalidParams, RestError } from '../core/errors.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { mayRead, postPolicy, readerOf, statusFilter, type WriteRequest } from '../policies/posts.js';
import { HtmlElementBudget } from '../text/html-structure.js';
import { commonColumns, modifiedNow, resolveImage, type Body, type WriteContext } from '../domain/posts/writes.js';
import type { PreparedCreate } from '../domain/linked/writes.js';
import { ORGANIZERS, VENUES } from '../repositories/linked-kinds.js';
import type { TermRow } from '../repositories/terms.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../repositories/taxonomies.js';
import { sanitizeSlug } from '../text/slugs.js';
import type { Repositories } from '../repositories/registry.js';
import { eventFeedEntries, eventJsonLds, eventRecords, singleEventRecord } from '../records/records.js';
import { withoutContext } from '../records/linked/json-ld.js';
import { currentCursor } from '../records/change-feed.js';
import { findRecord, reload, removeRecord, type PostKind } from '../domain/posts/post-kind.js';
import type { EventRow } from '../repositories/events.js';
import { calendarWithin, eventsCalendar } from '../records/events/ical.js';
import { htmlToText } from '../text/html.js';
import { parseEventBody, type ParsedEvent } from '../domain/events/input.js';
import { DATE_PARAMETERS, listBounds, searchTerms } from '../domain/events/list-window.js';
import { modifiedRange, type ModifiedRange } from '../repositories/list-order.js';
import { occurrenceStarts, startSeries, type RecurrenceSettings } from '../domain/events/occurrences.js';
import { eventColumns, writeLinks } from '../domain/events/writes.js';
import { removeInScope, resolveScope, updateInScope } from '../domain/events/series-writes.js';

type ReadOp = 'getEvent' | 'getEventBySlug';
type UpdateOp = 'updateEvent' | 'putEvent' | 'patchEvent' | 'updateEventBySlug' | 'putEventBySlug' | 'patchEventBySlug';
type DeleteOp = 'deleteEvent' | 'deleteEventBySlug';

/** Events as the shared record service (domain/posts/post-kind.ts) sees them. */
const EVENTS: PostKind<EventRow> = {
  type: 'event',
  label: 'event',
  Label: 'Event',
  findById: (repositories, id) => repositories.events.findById(id),
  findBySlug: (repositories, slug) => repositories.events.findBySlug(slug),
  // A trashed or deleted event no longer counts for its terms.
  async trash(repositories, row, modified, expected) {
    const countedBefore = await repositories.events.countedTerms(row.id);
    await repositories.posts.trash(row, modified, expected);
    await repositories.terms.shiftCounts(countedBefore, []);
  },
  async destroy(repositories, row, expected) {
    const countedBefore = await repositories.events.countedTerms(row.id);
    await repositories.posts.destroy(row, expected);
    await repositories.terms.shiftCounts(countedBefore, []);
  },
};

function writerOf(ctx: OperationContext): WriteContext {
  return { repositories: ctx.repositories, user: ctx.user, now: ctx.now(), siteTimezone: ctx.config.siteTimezone, html: new HtmlElementBudget() };
}

async function record(ctx: OperationContext, row: EventRow, single = false, repositories = ctx.repositories) {
  const [built] = await eventRecords(repositories, [row], ctx.user, ctx.urls, { single });
  return built;
}

/** The `ETag` a GET of the event by this caller would get now (a 412's answer: operations/shared/conditional.ts). */
async function currentTag(ctx: OperationContext, id: number): Promise<string | undefined> {
  const row = await EVENTS.findById(ctx.repositories, id);
  return row && tagOfBody(versionOf('event', row), await record(ctx, row, true));
}

/** The list's `categories`/`tags`: each item a slug, an id or a name of an existing term (400 otherwise). */
async function resolveFilterTerms(repositories: Repositories, taxonomy: Taxonomy, items: string[] | undefined, problems: Record<string, string>): Promise<TermRow[] | undefined> {
  if (!items) return undefined;
  const repo = repositories.terms;
  const ids: TermRow[] = [];
  const unknown: string[] = [];
  for (const item of items.map((i) => String(i).trim())) {
    const term =
      (await repo.findBySlug(taxonomy, item)) ??
      (/^\d+$/.test(item) ? await repo.findById(Number(item)).then((t) => (t?.taxonomy === taxonomy.name ? t : undefined)) : undefined) ??
      (await repo.findByNameAnyLevel(taxonomy, item));
    if (term) ids.push(term);
    else unknown.push(item);
  }
  if (unknown.length) problems[taxonomy.collection] = `${taxonomy.collection} contains unknown ${taxonomy.collection}: ${unknown.join(', ')}.`;
  return ids;
}

type ListOp = 'listEvents' | 'listEventsIcs' | 'listEventsJsonLd';
type ListQuery = OperationContext<ListOp>['query'];

/** A `GET /events` request as parsed before its reply is looked up (the rest needs the database). */
interface ParsedList {
  query: ListQuery;
  page: ReturnType<typeof pageRequest>;
  /** Parameters already known to be wrong, reported together with those the lookups find. */
  problems: Record<string, string>;
  details: Record<string, unknown>;
  bounds: ReturnType<typeof listBounds>['bounds'];
  urlValues: ReturnType<typeof listBounds>['urlValues'];
  modified: ModifiedRange;
}

function parseList(ctx: OperationContext<ListOp>): ParsedList {
  const query = ctx.query;
  const problems: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  if (query.ticketed === true) {
    problems.ticketed = 'Event Tickets plugin is not activated.';
    details.ticketed = { code: 'event-tickets-not-active', message: 'Event Tickets plugin is not activated.', data: { param: 'ticketed' } };
  }
  if ((query.geoloc_lat === undefined) !== (query.geoloc_lng === undefined)) {
    problems[query.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng'] = 'geoloc_lat and geoloc_lng must be given together.';
  }
  const modified = modifiedRange(query, problems);
  const { bounds, urlValues, invalid } = listBounds(query, {
    strict: query.strict_dates === true,
    include: query.include !== undefined,
    byModified: query.modified_after !== undefined || query.modified_before !== undefined,
    now: ctx.now(),
    siteTimezone: ctx.config.siteTimezone,
  });
  for (const name of invalid) problems[name] = `${name} is not a date this service understands.`;
  return { query, page: pageRequest(query.page, query.per_page), problems, details, bounds, urlValues, modified };
}

/**
 * The reply depends on the request through the computed date bounds (not the raw, relative dates),
 * the modification range and order (`asked` holds `modified_*`, `orderby` and `order` as sent, and
 * `modified` what they mean) and on which parameters were sent (paging URLs carry only those).
 */
function listDependsOn(ctx: OperationContext<ListOp>, { query, bounds, urlValues, problems, modified }: ParsedList) {
  const asked = Object.fromEntries(Object.entries(query).filter(([name]) => !(DATE_PARAMETERS as readonly string[]).includes(name)));
  return { parts: [asked, bounds, urlValues, modified, problems, sentQueryNames(ctx.req)] };
}

/** The events a parsed list request selects (one page of them, and how many there are in all), with the filters' lookups (400). */
async function findListed(ctx: OperationContext<ListOp>, { query, problems, details, bounds, modified }: ParsedList, limit: number, offset: number) {
  const repositories = ctx.repositories;
  // Read before the page, so following the feed from it misses nothing (docs/contract.md §9).
  const changeCursor = await currentCursor(repositories);
  const status = statusFilter(query.status, ctx.user);
  const categories = await resolveFilterTerms(repositories, CATEGORIES, query.categories, problems);
  const tags = await resolveFilterTerms(repositories, TAGS, query.tags, problems);
  for (const [name, kind] of [
    ['venue', VENUES],
    ['organizer', ORGANIZERS],
  ] as const) {
    const ids = query[name];
    if (!ids) continue;
    const found = new Set((await repositories.linked(kind).findByIds(ids)).map((row) => row.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) problems[name] = `${name} contains IDs that are not ${kind.collection}: ${missing.join(', ')}.`;
  }
  if (query.post_parent !== undefined) {
    const parent = await repositories.posts.header(query.post_parent);
    if (!parent || parent.type !== 'event') problems.post_parent = `post_parent ${query.post_parent} is not an event.`;
  }
  if (Object.keys(problems).length) throw invalidParams(problems, details);

  const { rows, total } = await repositories.events.list({
    statuses: status.statuses,
    reader: readerOf(ctx.user),
    bounds,
    search: query.search !== undefined ? searchTerms(query.search) : undefined,
    termLists: [categories, tags].filter((terms): terms is TermRow[] => terms !== undefined).map((terms) => terms.map((term) => term.id)),
    venueIds: query.venue,
    organizerIds: query.organizer,
    featured: query.featured,
    include: query.include,
    postParent: query.post_parent,
    firstOfSeries: query.hide_subsequent_recurrences === true,
    hasCoordinates: query.geoloc,
    near: query.geoloc_lat !== undefined && query.geoloc_lng !== undefined ? { lat: query.geoloc_lat, lng: query.geoloc_lng, radiusKm: query.geoloc_radius ?? 10 } : undefined,
    modified,
    orderBy: query.orderby,
    direction: query.order,
    limit,
    offset,
  });
  return { rows, total, status, changeCursor, categories: categories ?? [], tags: tags ?? [] };
}

/**
 * The arguments of a list's paging URLs: the plugin's argument order, the computed date bounds, then
 * every other filter sent, then this service's additions (docs/contract.md §8).
 */
function pagingArgs(ctx: OperationContext<ListOp>, { query, urlValues }: ParsedList, status: ReturnType<typeof statusFilter>): Record<string, unknown> {
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

const pastTheEnd = () => new RestError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');

/** `GET /events` once the request is parsed: the filters' lookups, the page, its total and links. */
async function listPage(ctx: OperationContext<'listEvents'>, parsed: ParsedList): Promise<Reply<'listEvents'>> {
  const { page } = parsed;
  const { rows, total, status, changeCursor } = await findListed(ctx, parsed, page.perPage, page.offset);
  const { envelope, headers } = listEnvelope(ctx.urls.collection('events'), pagingArgs(ctx, parsed, status), page, total, pastTheEnd);
  const events = await eventRecords(ctx.repositories, rows, ctx.user, ctx.urls, { single: false });
  return { status: 200, body: { events, ...envelope }, headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor } };
}

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
    const { envelope, headers } = listEnvelope(
      `${ctx.urls.item('events', row.id)}/occurrences`,
      args,
      page,
      total,
      () => new RestError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist'),
    );
    const events = await eventRecords(repositories, rows, ctx.user, ctx.urls, { single: false });
    return { status: 200, body: { events, ...envelope }, headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor } };
  },
});

/** What an event write asks for that needs rights: its own status and author, and those of the venues and organizers it creates. */
function writeRequests(parsed: ParsedEvent): { own: WriteRequest; nested: WriteRequest[] } {
  const nested = [...(parsed.venues ?? []), ...(parsed.organizers ?? [])]
    .filter((item): item is { prepared: PreparedCreate } => 'prepared' in item)
    .map(({ prepared }) => ({ status: prepared.parsed.status, authorId: prepared.parsed.authorId }));
  return { own: { status: parsed.common.status, authorId: parsed.common.authorId }, nested };
}

/** The policy of an event write: the event's own action, and `create` for each venue or organizer it creates. */
function authorizeWrite(action: 'create' | 'edit') {
  return (user: OperationContext['user'], target: EventRow | undefined, input: { parsed: ParsedEvent }): void => {
    const { own, nested } = writeRequests(input.parsed);
    if (action === 'create' || !target) postPolicy.create(user, undefined, own);
    else postPolicy.edit(user, target, own);
    for (const request of nested) postPolicy.create(user, undefined, request);
  };
}

async function parseWrite(ctx: OperationContext<'createEvent' | UpdateOp>): Promise<{ body: Body; parsed: ParsedEvent }> {
  const body: Body = ctx.body ?? {};
  const problems: Record<string, string> = {};
  // Input that is wrong whatever the record is comes first (400), then the record (404), then the
  // right (403); checks that need the record (an end before the stored start) come last, so that a
  // caller who may not edit the record learns nothing of its dates from them.
  const parsed = await parseEventBody(body, undefined, writerOf(ctx), problems);
  if (Object.keys(problems).length) throw invalidParams(problems);
  return { body, parsed };
}

function recurrenceSettings(ctx: OperationContext): RecurrenceSettings {
  return { maxOccurrences: ctx.config.recurrenceMaxOccurrences, horizonDays: ctx.config.recurrenceHorizonDays };
}

/** A create's body, and the occurrences its `recurrence` gives (400 naming the line, before anything else is looked at). */
async function parseCreate(ctx: OperationContext<'createEvent'>) {
  const { body, parsed } = await parseWrite(ctx);
  const lines = parsed.recurrence ?? [];
  if (lines.length === 0 || !parsed.times) return { body, parsed, series: undefined };
  const timezone = parsed.timezone ?? ctx.config.siteTimezone;
  const template = { lines, timezone, startLocal: parsed.times.startLocal, endLocal: parsed.times.endLocal };
  return { body, parsed, series: { template, ...(await occurrenceStarts(template, ctx.now(), recurrenceSettings(ctx))) } };
}

const create = operation({
  parse: parseCreate,
  load: noTarget,
  authorize: authorizeWrite('create'),
  async execute(ctx: OperationContext<'createEvent'>, { body, parsed, series }) {
    const writer = writerOf(ctx);
    const columns = commonColumns(parsed.common, undefined, writer);
    // The event, its new venues, organizers, terms and image, and its links: one transaction.
    return createRecord(
      ctx,
      async (repositories) => {
        const imageId = await resolveImage(repositories, body.image, ctx.user);
        const eventId = await repositories.events.create(
          { ...(columns as Required<typeof columns>), image_id: imageId ?? null },
          parsed.common.slug ?? (sanitizeSlug(parsed.common.title ?? '') || 'event'),
          eventColumns(parsed, true, writer.siteTimezone),
        );
        const termIds = await writeLinks(repositories, eventId, parsed, writer, true);
        // A new event counts for its terms when it is published: what was just written, not read again.
        await repositories.terms.shiftCounts([], columns.status === 'publish' ? termIds : []);
        // A series: its other occurrences are copies of this first event, in the same transaction.
        if (series) await startSeries(repositories, { id: eventId, ...series.template }, series.starts, series.horizon);
        return eventId;
      },
      async (repositories, id) => {
        const row = await reload(EVENTS, repositories, id);
        return { status: 201, body: await record(ctx, row, false, repositories), headers: { Location: ctx.urls.item('events', id) }, version: versionOf('event', row) };
      },
    );
  },
});

/**
 * A single read: the row and its links are read on every request (two statements), and the reply is
 * remembered under their stamp, so writes of other records leave it valid (records/records.ts).
 */
const get = operation({
  parse: (ctx: OperationContext<ReadOp>) => singleReadInput(ctx),
  load: (ctx: OperationContext<ReadOp>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: postPolicy.read,
  async execute(ctx: OperationContext<ReadOp>, _query, row) {
    const { stamp, build } = await singleEventRecord(ctx.repositories, row, ctx.user, ctx.urls);
    return rememberedRecord(ctx, row.id, stamp, async (): Promise<Reply<ReadOp>> => ({ status: 200, body: await build(), version: versionOf('event', row) }));
  },
});

/**
 * The answer of a write of an event of a series: the event's record, and the occurrences the write
 * left as they were because the caller may not change them (docs/contract.md §14).
 */
function withSkipped<T extends object>(built: T, skipped: number[]): T & { skipped_occurrences: number[] } {
  return { ...built, skipped_occurrences: skipped };
}

const update = operation({
  parse: parseWrite,
  load: (ctx: OperationContext<UpdateOp>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: authorizeWrite('edit'),
  async execute(ctx: OperationContext<UpdateOp>, { body }, row: EventRow) {
    // A stale If-Match (412) before the checks against the stored record (docs/contract.md §10).
    await checkIfMatch(ctx, versionOf('event', row), () => currentTag(ctx, row.id));
    const writer = writerOf(ctx);
    const problems: Record<string, string> = {};
    const parsed = await parseEventBody(body, row, writer, problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    // A single event, or the scope of a series it belongs to (docs/contract.md §14).
    const scope = resolveScope(ctx.query.scope, row);
    const skipped = await conditionalWrite(
      ctx,
      versionOf('event', row),
      () => currentTag(ctx, row.id),
      (expected) => updateInScope({ db: ctx.db, writer, settings: recurrenceSettings(ctx) }, row, body, parsed, scope, expected),
    );
    const updated = await reload(EVENTS, ctx.repositories, row.id);
    const built = await record(ctx, updated);
    return { status: 200, body: scope === 'single' ? built : withSkipped(built, skipped), version: versionOf('event', updated) };
  },
});

const remove = operation({
  parse: (ctx: OperationContext<DeleteOp>) => queryInput(ctx),
  load: (ctx: OperationContext<DeleteOp>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: postPolicy.remove,
  async execute(ctx: OperationContext<DeleteOp>, query, row) {
    const modified = modifiedNow(ctx.now(), ctx.config.siteTimezone);
    // An event of a series: on the first event the whole series, else the scope asked (docs/contract.md §14).
    const scope = row.seriesId === row.id ? 'all' : resolveScope(query.scope, row);
    if (scope !== 'single') {
      const before = await record(ctx, row);
      const skipped = await conditionalWrite(
        ctx,
        versionOf('event', row),
        () => currentTag(ctx, row.id),
        (expected) => removeInScope({ db: ctx.db, writer: writerOf(ctx), settings: recurrenceSettings(ctx) }, row, scope, query.force === true, expected),
      );
      // The record as it is now, or as it was when it is gone (deleted for good, as `force` answers).
      const after = await EVENTS.findById(ctx.repositories, row.id);
      return { status: 200, body: withSkipped(after ? await record(ctx, after) : before, skipped), version: versionOf('event', after ?? row) };
    }
    const removed = await conditionalWrite(
      ctx,
      versionOf('event', row),
      () => currentTag(ctx, row.id),
      (expected) => removeRecord(EVENTS, ctx.repositories, row, { force: query.force === true, modified, expected }, (current) => record(ctx, current)),
    );
    return { status: 200, body: removed.record, version: versionOf('event', removed.row) };
  },
});

/** iCalendar answers (docs/contract.md §11). */
const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

function feedHost(ctx: OperationContext): string {
  return new URL(ctx.urls.site).hostname;
}

/** The feed's name: the site's name, "Events", and the categories (or tags) the request filters by. */
function feedName(ctx: OperationContext, categories: TermRow[], tags: TermRow[]): string {
  const site = ctx.config.siteName ?? feedHost(ctx);
  const terms = [...categories, ...tags].map((term) => term.name);
  return `${site} Events${terms.length ? `: ${[...new Set(terms)].join(', ')}` : ''}`;
}

/**
 * The rows a feed writes (docs/contract.md §14): a series appears once, as its first event with the
 * rules (at the place of its first listed occurrence, also when the first event itself falls outside
 * the list), plus each listed exception with its RECURRENCE-ID; the other occurrences follow from the
 * rules. A series whose first event the caller may not read shows its listed occurrences one by one.
 */
async function feedRows(ctx: OperationContext, rows: EventRow[]): Promise<EventRow[]> {
  const listed = new Map(rows.map((row) => [row.id, row]));
  const wanted = [...new Set(rows.map((row) => row.seriesId).filter((id): id is number => id !== null && !listed.has(id)))];
  const masters = new Map((await ctx.repositories.events.findByIds(wanted)).filter((row) => mayRead(ctx.user, row) && row.status !== 'trash').map((row) => [row.id, row]));
  for (const row of rows) if (row.seriesId === row.id) masters.set(row.id, row);
  const written = new Set<number>();
  const out: EventRow[] = [];
  for (const row of rows) {
    const master = row.seriesId === null ? undefined : masters.get(row.seriesId);
    if (!master) {
      out.push(row);
      continue;
    }
    if (!written.has(master.id)) {
      written.add(master.id);
      out.push(master);
    }
    if (row.id !== master.id && row.exception) out.push(row);
  }
  return out;
}

/** Feed entries for some rows, the masters with the span of their stored occurrences. */
async function seriesFeedEntries(ctx: OperationContext, rows: EventRow[], single: boolean) {
  const entries = await eventFeedEntries(ctx.repositories, rows, ctx.user, { single });
  const masters = rows.filter((row) => row.seriesId === row.id).map((row) => row.id);
  if (masters.length) {
    const ends = await ctx.repositories.series.lastEndUtc(masters);
    for (const entry of entries) if (entry.row.seriesId === entry.row.id) entry.seriesEndUtc = ends.get(entry.row.id);
  }
  return entries;
}

/** `GET /events.ics`: every event `GET /events` would list with the same query, up to ICAL_MAX_EVENTS, in one calendar. */
async function listFeed(ctx: OperationContext<'listEventsIcs'>, parsed: ParsedList): Promise<Reply<'listEventsIcs'>> {
  const max = ctx.config.icalMaxEvents;
  const { rows, total, changeCursor, categories, tags } = await findListed(ctx, parsed, max, 0);
  const entries = await seriesFeedEntries(ctx, await feedRows(ctx, rows), false);
  const options = { host: feedHost(ctx), uid: ctx.query.uid ?? 'id', name: feedName(ctx, categories, tags), url: ctx.urls.site } as const;
  // At most REPLY_LIMIT bytes: a feed of many events is cut as it is at ICAL_MAX_EVENTS (docs/limits.md).
  const { text: body, count } = await calendarWithin(entries, (some) => eventsCalendar(some, ctx.urls, options), ctx.config.replyLimit);
  const headers: Record<string, string> = { 'X-TEC-Change-Cursor': changeCursor };
  if (total > rows.length || count < entries.length) Object.assign(headers, { 'X-TEC-Total': String(total), 'X-TEC-Truncated': 'true' });
  return { status: 200, body, headers, contentType: CALENDAR_TYPE };
}

/** The JSON-LD feed (docs/contract.md §12). */
const JSON_LD_TYPE = 'application/ld+json; charset=utf-8';

/**
 * `GET /events.jsonld`: the page `GET /events` would list with the same query, as a schema.org
 * `ItemList` of the events' `Event`s, positioned in the whole list, with the list's paging.
 */
async function listJsonLd(ctx: OperationContext<'listEventsJsonLd'>, parsed: ParsedList): Promise<Reply<'listEventsJsonLd'>> {
  const { page } = parsed;
  const { rows, total, status, changeCursor, categories, tags } = await findListed(ctx, parsed, page.perPage, page.offset);
  const { envelope, headers } = listEnvelope(ctx.urls.collection('events.jsonld'), pagingArgs(ctx, parsed, status), page, total, pastTheEnd, { trailingSlash: false });
  const events = await eventJsonLds(ctx.repositories, rows, ctx.user, ctx.urls);
  const body = {
    '@context': 'http://schema.org',
    '@type': 'ItemList',
    name: feedName(ctx, categories, tags),
    url: envelope.rest_url,
    numberOfItems: total,
    // The list carries the context; its items do not repeat it.
    itemListElement: events.map((event, index) => ({ '@type': 'ListItem', position: page.offset + index + 1, item: withoutContext(event) })),
  } as ResponseBodyOf<'listEventsJsonLd'>;
  return { status: 200, body, headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor }, contentType: JSON_LD_TYPE };
}

/** `GET /events/{id}.ics`: one event, under the read and password rules of `GET /events/{id}`. */
const getFeed = operation({
  parse: (ctx: OperationContext<'getEventIcs'>) => singleReadInput(ctx),
  remember: byRequest,
  load: (ctx: OperationContext<'getEventIcs'>) => findRecord(EVENTS, ctx.repositories, ctx.path),
  authorize: postPolicy.read,
  async execute(ctx: OperationContext<'getEventIcs'>, _query, row) {
    const entries = await seriesFeedEntries(ctx, [row], true);
    const name = `${ctx.config.siteName ?? feedHost(ctx)} Events: ${htmlToText(row.title)}`;
    const body = await eventsCalendar(entries, ctx.urls, { host: feedHost(ctx), uid: ctx.query.uid ?? 'id', name, url: ctx.urls.site });
    return { status: 200, body, contentType: CALENDAR_TYPE, version: versionOf('event', row) };
  },
});

/** Every event operation and the policy action it is judged by (policies/posts.ts). */
export const eventOperations = {
  listEvents: operation({
    parse: parseList,
    remember: listDependsOn,
    load: noTarget,
    authorize: (user, _target, input) => postPolicy.list(user, undefined, input.query),
    execute: listPage,
  }),
  listEventsIcs: operation({
    parse: parseList,
    remember: listDependsOn,
    load: noTarget,
    authorize: (user, _target, input) => postPolicy.list(user, undefined, input.query),
    execute: listFeed,
  }),
  listEventsJsonLd: operation({
    parse: parseList,
    remember: listDependsOn,
    load: noTarget,
    authorize: (user, _target, input) => postPolicy.list(user, undefined, input.query),
    execute: listJsonLd,
  }),
  getEventIcs: getFeed,
  listEventOccurrences: listOccurrences,
  createEvent: create,
  getEvent: get,
  updateEvent: update,
  putEvent: update,
  patchEvent: update,
  deleteEvent: remove,
  getEventBySlug: get,
  updateEventBySlug: update,
  putEventBySlug: update,
  patchEventBySlug: update,
  deleteEventBySlug: remove,
} satisfies Partial<OperationTable>;
