import type { Knex } from 'knex';
import type { OperationContext, Operation, OperationId, OperationTable, Reply } from '../http/operation.js';
import { allowPublic, checkedByHandler } from '../http/operation.js';
import { invalidParams, RestError, forbidden } from '../http/errors.js';
import { pageHeaders, pageLinks, pageRequest, sentQueryNames } from '../http/paging.js';
import { rememberedRead } from '../http/replies.js';
import { requireCapability, canDeleteRecord, canEditRecord, canReadRecord } from '../auth/permissions.js';
import { findPost } from '../posts/repository.js';
import { inTransaction } from '../db/transactions.js';
import { findPostHeader } from '../posts/lookup.js';
import { statusFilter } from '../posts/visibility.js';
import { commonColumns, modifiedNow } from '../posts/writes.js';
import { loadImages } from '../posts/images.js';
import { assertSingleRead } from '../posts/reads.js';
import { formatUtc } from '../db/dates.js';
import { VENUES, ORGANIZERS, type LinkedKind } from './kinds.js';
import { eventStartsMoving, LinkedRepository, type LinkedRow } from './repository.js';
import { createOrReuse, parseLinkedInput, prepareCreate, resolveImage, writeContext, type Body } from './writes.js';
import { toOrganizerRecord, toVenueRecord, type MapOptions } from './mapper.js';


const LIST_PARAMETERS = ['page', 'per_page', 'search', 'event', 'has_events', 'only_with_upcoming', 'status'];

/**
 * The venue and organizer operations, written once (contract §4-§6, plugin-behaviour §1.2-§1.3,
 * §6.1-§6.4). Order of checks on writes: credentials (the validator's security step) → parameters
 * (400) → the record (404, or 400 for an id of another type) → the caller's right on it (403).
 */
function linkedHandlers(kind: LinkedKind) {
  const notFound = (what: string) => new RestError(404, `rest-${kind.type}-not-found`, `${kind.Label} with ${what} does not exist.`);

  async function records(ctx: OperationContext, rows: LinkedRow[], single: boolean): Promise<unknown[]> {
    const images = await loadImages(ctx.db, rows.map((row) => row.imageId));
    const toRecord = kind.type === 'venue' ? toVenueRecord : toOrganizerRecord;
    return rows.map((row) => {
      const options: MapOptions = { single, masked: row.password !== null && !canEditRecord(ctx.user, row) };
      return toRecord(row, kind, ctx.urls, images, options);
    });
  }

  async function record(ctx: OperationContext, row: LinkedRow, single = false, masked?: boolean): Promise<unknown> {
    const images = await loadImages(ctx.db, [row.imageId]);
    const toRecord = kind.type === 'venue' ? toVenueRecord : toOrganizerRecord;
    return toRecord(row, kind, ctx.urls, images, { single, masked: masked ?? (row.password !== null && !canEditRecord(ctx.user, row)) });
  }

  /** The record named by the path: `{id}` (404 if nothing, 400 if another type) or `{slug}` (404). */
  async function findTarget(ctx: OperationContext, db: Knex = ctx.db): Promise<LinkedRow> {
    const path = ctx.path as { id?: number; slug?: string };
    const repo = new LinkedRepository(db, kind);
    if (path.slug !== undefined) {
      const row = await repo.findBySlug(path.slug);
      if (!row) throw notFound(`slug ${path.slug}`);
      return row;
    }
    const id = path.id as number;
    const row = await repo.findById(id);
    if (row) return row;
    if (await findPost(db, id)) throw new RestError(400, `rest-invalid-${kind.type}-id`, `The specified ID is not a valid ${kind.label}.`);
    throw notFound(`ID ${id}`);
  }

  type ListQuery = { page?: number; per_page?: number; search?: string; event?: number; has_events?: boolean; only_with_upcoming?: boolean; status?: string[] };

  // `only_with_upcoming` depends on the clock: its reply holds until an event starts.
  const upcomingFrom = (ctx: OperationContext) => ((ctx.query as ListQuery).only_with_upcoming ? formatUtc(ctx.now()) : undefined);
  const list = rememberedRead(
    async (ctx: OperationContext): Promise<Reply> => listPage(ctx, upcomingFrom(ctx)),
    (ctx: OperationContext) => {
      const from = upcomingFrom(ctx);
      return from === undefined ? undefined : eventStartsMoving(ctx.db, from);
    },
  );

  const listPage = async (ctx: OperationContext, from: string | undefined): Promise<Reply> => {
    const query = ctx.query as ListQuery;
    const page = pageRequest(query.page, query.per_page);
    const status = statusFilter(query.status, ctx.user);
    if (query.event !== undefined) {
      const event = await findPostHeader(ctx.db, query.event);
      if (!event || event.type !== 'event' || !canReadRecord(ctx.user, event)) throw invalidParams({ event: `event ${query.event} is not an event.` });
    }
    const { rows, total } = await new LinkedRepository(ctx.db, kind).list({
      statuses: status.statuses,
      user: ctx.user,
      search: query.search,
      eventId: query.event,
      hasEvents: query.has_events,
      upcomingFrom: from,
      upcomingStatuses: statusFilter(undefined, ctx.user).statuses,
      limit: page.perPage,
      offset: page.offset,
    });
    const sent = sentQueryNames(ctx.req).filter((name) => LIST_PARAMETERS.includes(name) && name !== 'status');
    const args: Record<string, unknown> = Object.fromEntries(sent.map((name) => [name, (query as Record<string, unknown>)[name]]));
    args.status = status.urlValue;
    const links = pageLinks(ctx.urls.collection(kind.collection).replace(/\/$/, ''), args, page, total);
    if (page.page > 1 && page.page > links.totalPages) {
      throw new RestError(404, `${kind.type}-archive-page-not-found`, `The requested ${kind.label} archive page does not exist`);
    }
    const body: Record<string, unknown> = { [kind.collection]: await records(ctx, rows, false), rest_url: links.restUrl };
    if (links.nextUrl) body.next_rest_url = links.nextUrl;
    if (links.previousUrl) body.previous_rest_url = links.previousUrl;
    body.total = links.total;
    body.total_pages = links.totalPages;
    return { status: 200, body, headers: pageHeaders(links) };
  };

  const create = async (ctx: OperationContext): Promise<Reply> => {
    const writer = writeContext(ctx);
    const problems: Record<string, string> = {};
    const prepared = await prepareCreate(kind, ctx.body as Body, writer, problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    // Creating needs the generic edit right (contributors and up).
    requireCapability(ctx.user, 'edit_posts');
    // A duplicate (contract §6) comes back unchanged, with 201 like a new record.
    const { id } = await inTransaction(ctx.db, (trx) => createOrReuse(trx, prepared, writer));
    const created = (await new LinkedRepository(ctx.db, kind).findById(id)) as LinkedRow;
    return { status: 201, body: await record(ctx, created), headers: { Location: ctx.urls.item(kind.collection, id) } };
  };

  const get = rememberedRead(async (ctx: OperationContext): Promise<Reply> => {
    const row = await findTarget(ctx);
    assertSingleRead(ctx.user, row, kind.type, (ctx.query as { password?: string }).password);
    return { status: 200, body: await record(ctx, row, true, false) };
  });

  const update = async (ctx: OperationContext): Promise<Reply> => {
    const body = (ctx.body ?? {}) as Body;
    const writer = writeContext(ctx);
    const problems: Record<string, string> = {};
    // Parameters (400) first, then the record (404), then the right (403): contract §4.
    await parseLinkedInput(kind, body, undefined, writer, problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    const row = await findTarget(ctx);
    if (!canEditRecord(ctx.user, row)) throw forbidden(ctx.user !== undefined);
    const { common, own } = await parseLinkedInput(kind, body, row, writer, problems);
    const columns = commonColumns(common, row, ctx.user, writer.now, writer.siteTimezone);
    await inTransaction(ctx.db, async (trx) => {
      const imageId = await resolveImage(trx, body.image, ctx.user);
      if (imageId !== undefined) columns.image_id = imageId;
      await new LinkedRepository(trx, kind).update(trx, row, columns, common.slug, own);
    });
    const updated = (await new LinkedRepository(ctx.db, kind).findById(row.id)) as LinkedRow;
    return { status: 200, body: await record(ctx, updated) };
  };

  const remove = async (ctx: OperationContext): Promise<Reply> => {
    const row = await findTarget(ctx);
    if (!canDeleteRecord(ctx.user, row)) throw forbidden(ctx.user !== undefined);
    const force = (ctx.query as { force?: boolean }).force === true;
    const repo = new LinkedRepository(ctx.db, kind);
    if (force) {
      const last = await record(ctx, row);
      await inTransaction(ctx.db, (trx) => repo.destroy(trx, row.id));
      return { status: 200, body: last };
    }
    if (row.status === 'trash') throw new RestError(410, `${kind.type}-is-in-trash`, `The ${kind.label} is already trashed`);
    await inTransaction(ctx.db, (trx) => repo.trash(trx, row, modifiedNow(ctx.now(), ctx.config.siteTimezone)));
    return { status: 200, body: await record(ctx, (await repo.findById(row.id)) as LinkedRow) };
  };

  return { list, create, get, update, remove };
}

type Handler = (ctx: OperationContext) => Promise<Reply>;

function read<Op extends OperationId>(handler: Handler): Operation<Op> {
  return { permission: allowPublic, handler };
}

function write<Op extends OperationId>(handler: Handler): Operation<Op> {
  return { permission: checkedByHandler, handler };
}

const venues = linkedHandlers(VENUES);
const organizers = linkedHandlers(ORGANIZERS);

export const venueOperations = {
  listVenues: read<'listVenues'>(venues.list),
  createVenue: write<'createVenue'>(venues.create),
  getVenue: read<'getVenue'>(venues.get),
  updateVenue: write<'updateVenue'>(venues.update),
  putVenue: write<'putVenue'>(venues.update),
  patchVenue: write<'patchVenue'>(venues.update),
  deleteVenue: write<'deleteVenue'>(venues.remove),
  getVenueBySlug: read<'getVenueBySlug'>(venues.get),
  updateVenueBySlug: write<'updateVenueBySlug'>(venues.update),
  putVenueBySlug: write<'putVenueBySlug'>(venues.update),
  patchVenueBySlug: write<'patchVenueBySlug'>(venues.update),
  deleteVenueBySlug: write<'deleteVenueBySlug'>(venues.remove),
} satisfies Partial<OperationTable>;

export const organizerOperations = {
  listOrganizers: read<'listOrganizers'>(organizers.list),
  createOrganizer: write<'createOrganizer'>(organizers.create),
  getOrganizer: read<'getOrganizer'>(organizers.get),
  updateOrganizer: write<'updateOrganizer'>(organizers.update),
  putOrganizer: write<'putOrganizer'>(organizers.update),
  patchOrganizer: write<'patchOrganizer'>(organizers.update),
  deleteOrganizer: write<'deleteOrganizer'>(organizers.remove),
  getOrganizerBySlug: read<'getOrganizerBySlug'>(organizers.get),
  updateOrganizerBySlug: write<'updateOrganizerBySlug'>(organizers.update),
  putOrganizerBySlug: write<'putOrganizerBySlug'>(organizers.update),
  patchOrganizerBySlug: write<'patchOrganizerBySlug'>(organizers.update),
  deleteOrganizerBySlug: write<'deleteOrganizerBySlug'>(organizers.remove),
} satisfies Partial<OperationTable>;
