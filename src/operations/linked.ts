import type { OperationContext, OperationTable, Reply } from './shared/operation.js';
import { noTarget, operation, queryInput } from './shared/operation.js';
import { invalidParams, RestError } from '../core/errors.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { byRequest, rememberedRecord } from './shared/replies.js';
import { conditionalWrite, tagOfBody, versionOf } from './shared/conditional.js';
import { createRecord } from './shared/idempotency.js';
import { singleReadInput } from './shared/password-guesses.js';
import { mayFilterByEvent, postPolicy, readerOf, statusFilter } from '../policies/posts.js';
import { HtmlElementBudget } from '../text/html-structure.js';
import { commonColumns, modifiedNow, resolveImage, type Body, type WriteContext } from '../domain/posts/writes.js';
import { formatUtc } from '../dates/storage.js';
import { inWriteTransaction } from '../repositories/registry.js';
import { linkedRecords } from '../records/records.js';
import { currentCursor } from '../records/change-feed.js';
import { findRecord, reload, removeRecord, type PostKind } from '../domain/posts/post-kind.js';
import { VENUES, ORGANIZERS, type LinkedKind } from '../repositories/linked-kinds.js';
import { eventStartsMoving, type LinkedRow } from '../repositories/linked.js';
import { createOrReuse, parseLinkedInput, prepareCreate, type PreparedCreate } from '../domain/linked/writes.js';
import { modifiedRange } from '../repositories/list-order.js';

const LIST_PARAMETERS = ['page', 'per_page', 'search', 'event', 'has_events', 'only_with_upcoming', 'status', 'modified_after', 'modified_before', 'orderby', 'order'];

type ListOp = 'listVenues' | 'listOrganizers';
type CreateOp = 'createVenue' | 'createOrganizer';
type ReadOp = 'getVenue' | 'getVenueBySlug' | 'getOrganizer' | 'getOrganizerBySlug';
type UpdateOp =
  | 'updateVenue'
  | 'putVenue'
  | 'patchVenue'
  | 'updateVenueBySlug'
  | 'putVenueBySlug'
  | 'patchVenueBySlug'
  | 'updateOrganizer'
  | 'putOrganizer'
  | 'patchOrganizer'
  | 'updateOrganizerBySlug'
  | 'putOrganizerBySlug'
  | 'patchOrganizerBySlug';
type DeleteOp = 'deleteVenue' | 'deleteVenueBySlug' | 'deleteOrganizer' | 'deleteOrganizerBySlug';

function writerOf(ctx: OperationContext): WriteContext {
  return { repositories: ctx.repositories, user: ctx.user, now: ctx.now(), siteTimezone: ctx.config.siteTimezone, html: new HtmlElementBudget() };
}

/**
 * The venue and organizer operations, written once (docs/contract.md §4-§6, docs/plugin-behaviour.md
 * §1.2-§1.3, §6.1-§6.4), in the stages of operations/shared/operation.ts.
 */
function linkedOperations(kind: LinkedKind) {
  const records: PostKind<LinkedRow> = {
    type: kind.type,
    label: kind.label,
    Label: kind.Label,
    findById: (repositories, id) => repositories.linked(kind).findById(id),
    findBySlug: (repositories, slug) => repositories.linked(kind).findBySlug(slug),
    trash: (repositories, row, modified, expected) => repositories.linked(kind).trash(row, modified, expected),
    destroy: (repositories, row, expected) => repositories.posts.destroy(row, expected),
  };

  async function record(ctx: OperationContext, row: LinkedRow, options = { single: false, unmasked: false }, repositories = ctx.repositories) {
    const [built] = await linkedRecords(repositories, kind, [row], ctx.user, ctx.urls, options);
    return built;
  }

  /** The `ETag` a GET of the record by this caller would get now (a 412's answer: operations/shared/conditional.ts). */
  async function currentTag(ctx: OperationContext, id: number): Promise<string | undefined> {
    const row = await records.findById(ctx.repositories, id);
    return row && tagOfBody(versionOf(kind.type, row), await record(ctx, row, { single: true, unmasked: true }));
  }

  // `only_with_upcoming` depends on the clock: its reply holds until an event starts.
  const upcomingFrom = (ctx: OperationContext<ListOp>) => (ctx.query.only_with_upcoming ? formatUtc(ctx.now()) : undefined);

  /** The query and its modification range (docs/contract.md §8); a value that is not a date-time with an offset is 400. */
  function parseList(ctx: OperationContext<ListOp>) {
    const query = queryInput(ctx);
    const problems: Record<string, string> = {};
    const modified = modifiedRange(query, problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    return { query, modified };
  }

  async function listPage(ctx: OperationContext<ListOp>, { query, modified }: ReturnType<typeof parseList>): Promise<Reply<ListOp>> {
    // Read before the page, so following the feed from it misses nothing (docs/contract.md §9).
    const changeCursor = await currentCursor(ctx.repositories);
    const page = pageRequest(query.page, query.per_page);
    const status = statusFilter(query.status, ctx.user);
    if (query.event !== undefined) {
      const event = await ctx.repositories.posts.header(query.event);
      if (!event || event.type !== 'event' || !mayFilterByEvent(ctx.user, event)) throw invalidParams({ event: `event ${query.event} is not an event.` });
    }
    const { rows, total } = await ctx.repositories.linked(kind).list({
      statuses: status.statuses,
      reader: readerOf(ctx.user),
      search: query.search,
      eventId: query.event,
      hasEvents: query.has_events,
      upcomingFrom: upcomingFrom(ctx),
      upcomingStatuses: statusFilter(undefined, ctx.user).statuses,
      modified,
      orderBy: query.orderby,
      direction: query.order,
      limit: page.perPage,
      offset: page.offset,
    });
    const sent = sentQueryNames(ctx.req).filter((name) => LIST_PARAMETERS.includes(name) && name !== 'status');
    const q: Record<string, unknown> = query;
    const args: Record<string, unknown> = Object.fromEntries(sent.map((name) => [name, q[name]]));
    args.status = status.urlValue;
    const { envelope, headers } = listEnvelope(
      ctx.urls.collection(kind.collection).replace(/\/$/, ''),
      args,
      page,
      total,
      () => new RestError(404, `${kind.type}-archive-page-not-found`, `The requested ${kind.label} archive page does not exist`),
    );
    const items = await linkedRecords(ctx.repositories, kind, rows, ctx.user, ctx.urls, { single: false });
    // The collection's key is the kind's (`venues` or `organizers`): the one place the compiler cannot follow it.
    return { status: 200, body: { [kind.collection]: items, ...envelope } as Reply<ListOp>['body'], headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor } };
  }

  const list = operation({
    parse: parseList,
    // byRequest's parts hold the query as parsed: `modified_*`, `orderby` and `order` are in the key.
    remember(ctx: OperationContext<ListOp>) {
      const from = upcomingFrom(ctx);
      return { parts: byRequest(ctx).parts, moving: from === undefined ? undefined : eventStartsMoving(ctx.db, from) };
    },
    load: noTarget,
    authorize: (user, _target, input) => postPolicy.list(user, undefined, input.query),
    execute: (ctx: OperationContext<ListOp>, input) => listPage(ctx, input),
  });

  const create = operation({
    async parse(ctx: OperationContext<CreateOp>): Promise<PreparedCreate> {
      const problems: Record<string, string> = {};
      const prepared = await prepareCreate(kind, ctx.body, writerOf(ctx), problems);
      if (Object.keys(problems).length) throw invalidParams(problems);
      return prepared;
    },
    load: noTarget,
    authorize: (user, _target, prepared) => postPolicy.create(user, undefined, { status: prepared.parsed.status, authorId: prepared.parsed.authorId }),
    async execute(ctx: OperationContext<CreateOp>, prepared) {
      // A duplicate (docs/contract.md §6) comes back unchanged, with 201 like a new record.
      return createRecord(
        ctx,
        (repositories) => createOrReuse(repositories, prepared, writerOf(ctx)),
        async (repositories, id) => {
          const created = await reload(records, repositories, id);
          return {
            status: 201,
            body: await record(ctx, created, undefined, repositories),
            headers: { Location: ctx.urls.item(kind.collection, id) },
            version: versionOf(kind.type, created),
          };
        },
      );
    },
  });

  const get = operation({
    parse: (ctx: OperationContext<ReadOp>) => singleReadInput(ctx),
    load: (ctx: OperationContext<ReadOp>) => findRecord(records, ctx.repositories, ctx.path),
    authorize: postPolicy.read,
    async execute(ctx: OperationContext<ReadOp>, _query, row) {
      // The record is its row and its image, which never changes once recorded: the row as read is
      // the stamp its reply is remembered under (docs/contract.md §16). The read passed the password
      // check: nothing is masked.
      return rememberedRecord(ctx, row.id, JSON.stringify(row), async (): Promise<Reply<ReadOp>> => ({
        status: 200,
        body: await record(ctx, row, { single: true, unmasked: true }),
        version: versionOf(kind.type, row),
      }));
    },
  });

  const update = operation({
    async parse(ctx: OperationContext<UpdateOp>) {
      const body: Body = ctx.body ?? {};
      const problems: Record<string, string> = {};
      // Parameters (400) first, then the record (404), then the right (403): docs/contract.md §4.
      const { common } = await parseLinkedInput(kind, body, undefined, writerOf(ctx), problems);
      if (Object.keys(problems).length) throw invalidParams(problems);
      return { body, common };
    },
    load: (ctx: OperationContext<UpdateOp>) => findRecord(records, ctx.repositories, ctx.path),
    authorize: (user, row: LinkedRow, { common }) => postPolicy.edit(user, row, { status: common.status, authorId: common.authorId }),
    async execute(ctx: OperationContext<UpdateOp>, { body }, row) {
      const writer = writerOf(ctx);
      const { common, own } = await parseLinkedInput(kind, body, row, writer, {});
      const columns = commonColumns(common, row, writer);
      await conditionalWrite(
        ctx,
        versionOf(kind.type, row),
        () => currentTag(ctx, row.id),
        (expected) =>
          inWriteTransaction(ctx.db, async (repositories) => {
            const imageId = await resolveImage(repositories, body.image, ctx.user);
            if (imageId !== undefined) columns.image_id = imageId;
            await repositories.linked(kind).update(row, columns, common.slug, own, expected);
          }),
      );
      const updated = await reload(records, ctx.repositories, row.id);
      return { status: 200, body: await record(ctx, updated), version: versionOf(kind.type, updated) };
    },
  });

  const remove = operation({
    parse: (ctx: OperationContext<DeleteOp>) => queryInput(ctx),
    load: (ctx: OperationContext<DeleteOp>) => findRecord(records, ctx.repositories, ctx.path),
    authorize: postPolicy.remove,
    async execute(ctx: OperationContext<DeleteOp>, query, row) {
      const modified = modifiedNow(ctx.now(), ctx.config.siteTimezone);
      const removed = await conditionalWrite(
        ctx,
        versionOf(kind.type, row),
        () => currentTag(ctx, row.id),
        (expected) => removeRecord(records, ctx.repositories, row, { force: query.force === true, modified, expected }, (current) => record(ctx, current)),
      );
      return { status: 200, body: removed.record, version: versionOf(kind.type, removed.row) };
    },
  });

  return { list, create, get, update, remove };
}

const venues = linkedOperations(VENUES);
const organizers = linkedOperations(ORGANIZERS);

/** Every venue operation and the policy action it is judged by (policies/posts.ts). */
export const venueOperations = {
  listVenues: venues.list,
  createVenue: venues.create,
  getVenue: venues.get,
  updateVenue: venues.update,
  putVenue: venues.update,
  patchVenue: venues.update,
  deleteVenue: venues.remove,
  getVenueBySlug: venues.get,
  updateVenueBySlug: venues.update,
  putVenueBySlug: venues.update,
  patchVenueBySlug: venues.update,
  deleteVenueBySlug: venues.remove,
} satisfies Partial<OperationTable>;

/** Every organizer operation and the policy action it is judged by (policies/posts.ts). */
export const organizerOperations = {
  listOrganizers: organizers.list,
  createOrganizer: organizers.create,
  getOrganizer: organizers.get,
  updateOrganizer: organizers.update,
  putOrganizer: organizers.update,
  patchOrganizer: organizers.update,
  deleteOrganizer: organizers.remove,
  getOrganizerBySlug: organizers.get,
  updateOrganizerBySlug: organizers.update,
  putOrganizerBySlug: organizers.update,
  patchOrganizerBySlug: organizers.update,
  deleteOrganizerBySlug: organizers.remove,
} satisfies Partial<OperationTable>;
