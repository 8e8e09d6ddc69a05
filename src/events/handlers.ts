import type { Knex } from 'knex';
import type { Operation, OperationContext, OperationId, OperationTable, Reply } from '../http/operation.js';
import { allowPublic, checkedByHandler } from '../http/operation.js';
import { rememberedRead, replyKey } from '../http/replies.js';
import { forbidden, invalidParams, RestError } from '../http/errors.js';
import { pageHeaders, pageLinks, pageRequest, sentQueryNames } from '../http/paging.js';
import { canDeleteRecord, canEditRecord, requireCapability } from '../auth/permissions.js';
import { findPost } from '../posts/repository.js';
import { inTransaction } from '../db/transactions.js';
import { engineOf } from '../db/knex.js';
import { findPostHeader } from '../posts/lookup.js';
import { statusFilter } from '../posts/visibility.js';
import { assertSingleRead } from '../posts/reads.js';
import { commonColumns, modifiedNow } from '../posts/writes.js';
import { sanitizeSlug } from '../text/slugs.js';
import { createOrReuse, resolveImage, writeContext, type Body, type WriteContext } from '../linked/writes.js';
import { ORGANIZERS, VENUES } from '../linked/kinds.js';
import { LinkedRepository } from '../linked/repository.js';
import { TermNameTaken, TermRepository } from '../terms/repository.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../terms/taxonomies.js';
import { EventRepository, type EventColumns, type EventRow } from './repository.js';
import { parseEventBody, type LinkedItem, type ParsedEvent, type TermsInput } from './input.js';
import { eventRecords } from './records.js';
import { DATE_PARAMETERS, listBounds, searchTerms } from './list-window.js';

type ListQuery = OperationContext<'listEvents'>['query'];

const notFound = (what: string) => new RestError(404, 'rest-event-not-found', `Event with ${what} does not exist.`);

/** The event named by the path: `{id}` (404 if nothing, 400 if another type) or `{slug}` (404). */
async function findTarget(ctx: OperationContext): Promise<EventRow> {
  const path = ctx.path as { id?: number; slug?: string };
  const events = new EventRepository(ctx.db);
  if (path.slug !== undefined) {
    const row = await events.findBySlug(path.slug);
    if (!row) throw notFound(`slug ${path.slug}`);
    return row;
  }
  const id = path.id as number;
  const row = await events.findById(id);
  if (row) return row;
  if (await findPost(ctx.db, id)) throw new RestError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');
  throw new RestError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`);
}

async function single(ctx: OperationContext, row: EventRow, options = { single: false }): Promise<unknown> {
  const [record] = await eventRecords(ctx.db, [row], ctx.user, ctx.urls, options);
  return record;
}

async function reload(ctx: OperationContext, id: number): Promise<EventRow> {
  return (await new EventRepository(ctx.db).findById(id)) as EventRow;
}

/** The list's `categories`/`tags`: each item a slug, an id or a name of an existing term (400 otherwise). */
async function resolveFilterTerms(db: Knex, taxonomy: Taxonomy, items: string[] | undefined, problems: Record<string, string>): Promise<number[] | undefined> {
  if (!items) return undefined;
  const repo = new TermRepository(db);
  const ids: number[] = [];
  const unknown: string[] = [];
  for (const item of items.map((i) => String(i).trim())) {
    const term =
      (await repo.findBySlug(taxonomy, item)) ??
      (/^\d+$/.test(item) ? await repo.findById(Number(item)).then((t) => (t?.taxonomy === taxonomy.name ? t : undefined)) : undefined) ??
      (await repo.findByNameAnyLevel(taxonomy, item));
    if (term) ids.push(term.id);
    else unknown.push(item);
  }
  if (unknown.length) problems[taxonomy.collection] = `${taxonomy.collection} contains unknown ${taxonomy.collection}: ${unknown.join(', ')}.`;
  return ids;
}

const list = async (ctx: OperationContext<'listEvents'>): Promise<Reply> => {
  const query = ctx.query as ListQuery;
  const page = pageRequest(query.page, query.per_page);
  const status = statusFilter(query.status, ctx.user);
  const problems: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  if (query.ticketed === true) {
    problems.ticketed = 'Event Tickets plugin is not activated.';
    details.ticketed = { code: 'event-tickets-not-active', message: 'Event Tickets plugin is not activated.', data: { param: 'ticketed' } };
  }
  if ((query.geoloc_lat === undefined) !== (query.geoloc_lng === undefined)) {
    problems[query.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng'] = 'geoloc_lat and geoloc_lng must be given together.';
  }
  const { bounds, urlValues, invalid } = listBounds(query, {
    strict: query.strict_dates === true,
    include: query.include !== undefined,
    now: ctx.now(),
    siteTimezone: ctx.config.siteTimezone,
  });
  for (const name of invalid) problems[name] = `${name} is not a date this service understands.`;
  // The reply depends on the request through the computed date bounds (not the raw, relative dates)
  // and on which parameters were sent (paging URLs carry only those).
  const asked = Object.fromEntries(Object.entries(query).filter(([name]) => !(DATE_PARAMETERS as readonly string[]).includes(name)));
  const key = replyKey(ctx, [asked, bounds, urlValues, problems, sentQueryNames(ctx.req)]);
  return ctx.replies.get(key, () => listPage(ctx, { query, page, status, problems, details, bounds, urlValues }));
};

/** A `GET /events` request as parsed before its reply is looked up (the rest needs the database). */
interface ParsedList {
  query: ListQuery;
  page: ReturnType<typeof pageRequest>;
  status: ReturnType<typeof statusFilter>;
  /** Parameters already known to be wrong, reported together with those the lookups find. */
  problems: Record<string, string>;
  details: Record<string, unknown>;
  bounds: ReturnType<typeof listBounds>['bounds'];
  urlValues: ReturnType<typeof listBounds>['urlValues'];
}

/** `GET /events` once the request is parsed: the filters' lookups, the page, its total and links. */
async function listPage(ctx: OperationContext<'listEvents'>, { query, page, status, problems, details, bounds, urlValues }: ParsedList): Promise<Reply> {
  const categories = await resolveFilterTerms(ctx.db, CATEGORIES, query.categories, problems);
  const tags = await resolveFilterTerms(ctx.db, TAGS, query.tags, problems);
  for (const [name, kind] of [['venue', VENUES], ['organizer', ORGANIZERS]] as const) {
    const ids = query[name];
    if (!ids) continue;
    const found = new Set((await new LinkedRepository(ctx.db, kind).findByIds(ids)).map((row) => row.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) problems[name] = `${name} contains IDs that are not ${kind.collection}: ${missing.join(', ')}.`;
  }
  if (query.post_parent !== undefined) {
    const parent = await findPostHeader(ctx.db, query.post_parent);
    if (!parent || parent.type !== 'event') problems.post_parent = `post_parent ${query.post_parent} is not an event.`;
  }
  if (Object.keys(problems).length) {
    const error = invalidParams(problems);
    Object.assign((error.data as { details: Record<string, unknown> }).details, details);
    throw error;
  }

  const { rows, total } = await new EventRepository(ctx.db).list({
    statuses: status.statuses,
    user: ctx.user,
    bounds,
    search: query.search !== undefined ? searchTerms(query.search) : undefined,
    termLists: [categories, tags].filter((ids): ids is number[] => ids !== undefined),
    venueIds: query.venue,
    organizerIds: query.organizer,
    featured: query.featured,
    include: query.include,
    postParent: query.post_parent,
    hasCoordinates: query.geoloc,
    near:
      query.geoloc_lat !== undefined && query.geoloc_lng !== undefined
        ? { lat: query.geoloc_lat, lng: query.geoloc_lng, radiusKm: query.geoloc_radius ?? 10 }
        : undefined,
    limit: page.perPage,
    offset: page.offset,
  });

  // Paging URLs: the plugin's argument order, the computed date bounds, then every other filter sent.
  const sent = new Set(sentQueryNames(ctx.req));
  const q = query as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const name of DATE_PARAMETERS.slice(0, 2)) args[name] = urlValues[name];
  for (const name of ['search', 'geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius']) if (sent.has(name)) args[name] = q[name];
  args.status = status.urlValue;
  for (const name of ['post_parent', 'include', 'strict_dates']) if (sent.has(name)) args[name] = q[name];
  for (const name of DATE_PARAMETERS.slice(2)) args[name] = urlValues[name];
  for (const name of ['ticketed', 'venue', 'organizer', 'featured', 'categories', 'tags']) if (sent.has(name)) args[name] = q[name];
  const links = pageLinks(ctx.urls.collection('events'), args, page, total);
  if (page.page > 1 && page.page > links.totalPages) {
    throw new RestError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');
  }
  const body: Record<string, unknown> = { events: await eventRecords(ctx.db, rows, ctx.user, ctx.urls, { single: false }), rest_url: links.restUrl };
  if (links.nextUrl) body.next_rest_url = links.nextUrl;
  if (links.previousUrl) body.previous_rest_url = links.previousUrl;
  body.total = links.total;
  body.total_pages = links.totalPages;
  return { status: 200, body, headers: pageHeaders(links) };
}

/** The `events` columns a parsed body sets. */
function eventColumns(parsed: ParsedEvent, creating: boolean, siteTimezone: string): EventColumns {
  const own: EventColumns = {};
  if (parsed.times) {
    own.start_local = parsed.times.startLocal;
    own.end_local = parsed.times.endLocal;
    own.start_utc = parsed.times.startUtc;
    own.end_utc = parsed.times.endUtc;
  }
  if (parsed.timezone !== undefined) own.timezone = parsed.timezone;
  else if (creating) own.timezone = siteTimezone;
  if (parsed.allDay !== undefined) own.all_day = parsed.allDay;
  const cost = parsed.cost ?? (creating ? { raw: [], values: [], min: null, max: null, symbol: '', position: '' as const } : undefined);
  if (cost) {
    own.cost_raw = JSON.stringify(cost.raw);
    own.cost_values = JSON.stringify(cost.values);
    own.cost_min = cost.min;
    own.cost_max = cost.max;
    own.currency_symbol = cost.symbol;
    own.currency_position = cost.position;
  }
  if (parsed.website !== undefined) own.website = parsed.website;
  else if (creating) own.website = '';
  Object.assign(own, parsed.flags);
  return own;
}

/** Writes the venue/organizer/term links of a parsed body, creating what it asks to create. */
async function writeLinks(trx: Knex, eventId: number, parsed: ParsedEvent, writer: WriteContext, isNew = false): Promise<void> {
  const events = new EventRepository(trx);
  const ids = async (items: LinkedItem[]) => {
    const out: number[] = [];
    for (const item of items) out.push('id' in item ? item.id : (await createOrReuse(trx, item.prepared, writer)).id);
    return out;
  };
  if (parsed.venues) await events.setLinks(trx, eventId, 'event_venues', 'venue_id', await ids(parsed.venues), isNew);
  if (parsed.organizers) await events.setLinks(trx, eventId, 'event_organizers', 'organizer_id', await ids(parsed.organizers), isNew);
  for (const [taxonomy, input] of [[CATEGORIES, parsed.categories], [TAGS, parsed.tags]] as Array<[Taxonomy, TermsInput | undefined]>) {
    if (!input) continue;
    const termIds = [...input.ids];
    const repo = new TermRepository(trx);
    for (const name of input.create) {
      const existing = await repo.findByName(taxonomy, 0, name);
      if (existing) {
        termIds.push(existing.id);
        continue;
      }
      try {
        termIds.push(await repo.insert(taxonomy, { name, description: '', parent: 0 }, sanitizeSlug(name) || taxonomy.fallbackSlug, false));
      } catch (err) {
        if (!(err instanceof TermNameTaken)) throw err;
        termIds.push(err.existing.id);
      }
    }
    await events.setTerms(trx, eventId, taxonomy.name, termIds, isNew);
  }
}

/**
 * The terms an event counts for in its terms' `count` (published events only), read under a lock
 * on the event's row on MySQL, so that concurrent writes to one event adjust the counts one after
 * the other from what the previous one left. (SQLite runs one write transaction at a time.)
 */
async function countedTerms(trx: Knex, eventId: number): Promise<number[]> {
  const locking = engineOf(trx) === 'mysql';
  const post = locking ? await trx('posts').where('id', eventId).forUpdate().first('status') : await trx('posts').where('id', eventId).first('status');
  if (post?.status !== 'publish') return [];
  const links = trx('event_terms').where('event_id', eventId);
  return (await (locking ? links.forUpdate() : links).pluck('term_id')).map(Number);
}

const create = async (ctx: OperationContext): Promise<Reply> => {
  const body = ctx.body as Body;
  const writer = writeContext(ctx);
  const problems: Record<string, string> = {};
  const parsed = await parseEventBody(body, undefined, writer, problems);
  if (Object.keys(problems).length) throw invalidParams(problems);
  requireCapability(ctx.user, 'edit_posts');
  const columns = commonColumns(parsed.common, undefined, ctx.user, writer.now, writer.siteTimezone);
  // The event, its new venues, organizers, terms and image, and its links: one transaction.
  const id = await inTransaction(ctx.db, async (trx) => {
    const imageId = await resolveImage(trx, body.image, ctx.user);
    const eventId = await new EventRepository(trx).create(
      trx,
      { ...(columns as Required<typeof columns>), image_id: imageId ?? null },
      parsed.common.slug ?? (sanitizeSlug(parsed.common.title as string) || 'event'),
      eventColumns(parsed, true, writer.siteTimezone),
    );
    await writeLinks(trx, eventId, parsed, writer, true);
    await new TermRepository(trx).shiftCounts([], await countedTerms(trx, eventId));
    return eventId;
  });
  return { status: 201, body: await single(ctx, await reload(ctx, id)), headers: { Location: ctx.urls.item('events', id) } };
};

const get = rememberedRead(async (ctx: OperationContext): Promise<Reply> => {
  const row = await findTarget(ctx);
  assertSingleRead(ctx.user, row, 'event', (ctx.query as { password?: string }).password);
  return { status: 200, body: await single(ctx, row, { single: true }) };
});

const update = async (ctx: OperationContext): Promise<Reply> => {
  const body = (ctx.body ?? {}) as Body;
  const writer = writeContext(ctx);
  const problems: Record<string, string> = {};
  // Input that is wrong whatever the record is comes first (400), then the record (404), then the
  // right (403); checks that need the record (an end before the stored start) come last, so that a
  // caller who may not edit the record learns nothing of its dates from them.
  await parseEventBody(body, undefined, writer, problems);
  if (Object.keys(problems).length) throw invalidParams(problems);
  const row = await findTarget(ctx);
  if (!canEditRecord(ctx.user, row)) throw forbidden(ctx.user !== undefined);
  const parsed = await parseEventBody(body, row, writer, problems);
  if (Object.keys(problems).length) throw invalidParams(problems);
  const columns = commonColumns(parsed.common, row, ctx.user, writer.now, writer.siteTimezone);
  await inTransaction(ctx.db, async (trx) => {
    const imageId = await resolveImage(trx, body.image, ctx.user);
    if (imageId !== undefined) columns.image_id = imageId;
    const countedBefore = await countedTerms(trx, row.id);
    await new EventRepository(trx).update(trx, row, columns, parsed.common.slug, eventColumns(parsed, false, writer.siteTimezone));
    await writeLinks(trx, row.id, parsed, writer);
    await new TermRepository(trx).shiftCounts(countedBefore, await countedTerms(trx, row.id));
  });
  return { status: 200, body: await single(ctx, await reload(ctx, row.id)) };
};

const remove = async (ctx: OperationContext): Promise<Reply> => {
  const row = await findTarget(ctx);
  if (!canDeleteRecord(ctx.user, row)) throw forbidden(ctx.user !== undefined);
  const events = new EventRepository(ctx.db);
  if ((ctx.query as { force?: boolean }).force === true) {
    const last = await single(ctx, row);
    await inTransaction(ctx.db, async (trx) => {
      const countedBefore = await countedTerms(trx, row.id);
      await events.destroy(trx, row.id);
      await new TermRepository(trx).shiftCounts(countedBefore, []);
    });
    return { status: 200, body: last };
  }
  if (row.status === 'trash') throw new RestError(410, 'event-is-in-trash', 'The event is already trashed');
  await inTransaction(ctx.db, async (trx) => {
    const countedBefore = await countedTerms(trx, row.id);
    await new EventRepository(trx).trash(trx, row, modifiedNow(ctx.now(), ctx.config.siteTimezone));
    await new TermRepository(trx).shiftCounts(countedBefore, []);
  });
  return { status: 200, body: await single(ctx, await reload(ctx, row.id)) };
};

function read<Op extends OperationId>(handler: (ctx: OperationContext) => Promise<Reply>): Operation<Op> {
  return { permission: allowPublic, handler };
}

function write<Op extends OperationId>(handler: (ctx: OperationContext) => Promise<Reply>): Operation<Op> {
  return { permission: checkedByHandler, handler };
}

export const eventOperations = {
  listEvents: { permission: allowPublic, handler: list },
  createEvent: write<'createEvent'>(create),
  getEvent: read<'getEvent'>(get),
  updateEvent: write<'updateEvent'>(update),
  putEvent: write<'putEvent'>(update),
  patchEvent: write<'patchEvent'>(update),
  deleteEvent: write<'deleteEvent'>(remove),
  getEventBySlug: read<'getEventBySlug'>(get),
  updateEventBySlug: write<'updateEventBySlug'>(update),
  putEventBySlug: write<'putEventBySlug'>(update),
  patchEventBySlug: write<'patchEventBySlug'>(update),
  deleteEventBySlug: write<'deleteEventBySlug'>(remove),
} satisfies Partial<OperationTable>;
