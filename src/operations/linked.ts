import type { OperationContext, OperationTable, Reply } from './shared/operation.js';
import { noTarget, operation, queryInput, writerOf } from './shared/operation.js';
import { invalidParams, RestError } from '../core/errors.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { byRequest, bySingleRead } from './shared/replies.js';
import { conditionalWrite, tagOfBody, versionOf } from './shared/conditional.js';
import { createRecord } from './shared/idempotency.js';
import { singleReadInput } from './shared/password-guesses.js';
import { postPolicy, statusFilter } from '../policies/posts.js';
import { modifiedNow, type Body } from '../domain/posts/writes.js';
import { formatUtc } from '../dates/storage.js';
import { inWriteTransaction } from '../repositories/registry.js';
import { linkedRecords } from '../records/records.js';
import { currentCursor } from '../records/change-feed.js';
import { findRecord, reload, removeRecord } from '../domain/posts/post-kind.js';
import { VENUES, ORGANIZERS, type LinkedKind } from '../repositories/linked-kinds.js';
import { eventStartsMoving, type LinkedRow } from '../repositories/linked.js';
import { createOrReuse, duplicateLocks, parseLinkedInput, prepareCreate, prepareUpdate, writeUpdate, type PreparedCreate } from '../domain/linked/writes.js';
import { LINKED_POST_KINDS } from '../domain/linked/post-kind.js';
import { linkedListFilter } from '../domain/linked/list-filter.js';
import { modifiedRange } from '../repositories/list-order.js';

const LIST_PARAMETERS = ['page', 'per_page', 'search', 'event', 'has_events', 'only_with_upcoming', 'status', 'modified_after', 'modified_before', 'orderby', 'order'];

type Kind = 'Venue' | 'Organizer';
type ListOp = 'listVenues' | 'listOrganizers';
type CreateOp = `create${Kind}`;
type ReadOp = `get${Kind}${'' | 'BySlug'}`;
type UpdateOp = `${'update' | 'put' | 'patch'}${Kind}${'' | 'BySlug'}`;
type DeleteOp = `delete${Kind}${'' | 'BySlug'}`;
type LinkedOp = ListOp | CreateOp | ReadOp | UpdateOp | DeleteOp;

/**
 * The kind each venue or organizer operation acts on. Venues and organizers are the same kind of
 * thing with different fields: the operations below are written once for both (docs/contract.md
 * §4-§6, docs/plugin-behaviour.md §1.2-§1.3, §6.1-§6.4), in the stages of operations/shared/operation.ts.
 */
const KIND_OF: Record<LinkedOp, LinkedKind> = {
  listVenues: VENUES,
  createVenue: VENUES,
  getVenue: VENUES,
  getVenueBySlug: VENUES,
  updateVenue: VENUES,
  putVenue: VENUES,
  patchVenue: VENUES,
  updateVenueBySlug: VENUES,
  putVenueBySlug: VENUES,
  patchVenueBySlug: VENUES,
  deleteVenue: VENUES,
  deleteVenueBySlug: VENUES,
  listOrganizers: ORGANIZERS,
  createOrganizer: ORGANIZERS,
  getOrganizer: ORGANIZERS,
  getOrganizerBySlug: ORGANIZERS,
  updateOrganizer: ORGANIZERS,
  putOrganizer: ORGANIZERS,
  patchOrganizer: ORGANIZERS,
  updateOrganizerBySlug: ORGANIZERS,
  putOrganizerBySlug: ORGANIZERS,
  patchOrganizerBySlug: ORGANIZERS,
  deleteOrganizer: ORGANIZERS,
  deleteOrganizerBySlug: ORGANIZERS,
};

function kindOf<Op extends LinkedOp>(ctx: OperationContext<Op>): LinkedKind {
  return KIND_OF[ctx.operationId];
}

async function record(ctx: OperationContext, kind: LinkedKind, row: LinkedRow, options = { single: false, unmasked: false }, repositories = ctx.repositories) {
  const [built] = await linkedRecords(repositories, kind, [row], ctx.user, ctx.urls, options);
  return built;
}

/** The `ETag` a GET of the record by this caller would get now (a 412's answer: operations/shared/conditional.ts). */
async function currentTag(ctx: OperationContext, kind: LinkedKind, id: number): Promise<string | undefined> {
  const row = await LINKED_POST_KINDS[kind.type].findById(ctx.repositories, id);
  return row && tagOfBody(versionOf(kind.type, row), await record(ctx, kind, row, { single: true, unmasked: true }));
}

/** The record a path names (404, or 400 for an id of another type). */
function load(ctx: OperationContext<ReadOp | UpdateOp | DeleteOp>): Promise<LinkedRow> {
  return findRecord(LINKED_POST_KINDS[kindOf(ctx).type], ctx.repositories, ctx.path);
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
  const kind = kindOf(ctx);
  // Read before the page, so following the feed from it misses nothing (docs/contract.md §9).
  const changeCursor = await currentCursor(ctx.repositories);
  const page = pageRequest(query.page, query.per_page);
  const status = statusFilter(query.status, ctx.user);
  const filter = await linkedListFilter(ctx.repositories, query, { user: ctx.user, statuses: status.statuses, modified, upcomingFrom: upcomingFrom(ctx), page });
  const { rows, total } = await ctx.repositories.linked(kind).list(filter);
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
  cache(ctx: OperationContext<ListOp>) {
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
    const prepared = await prepareCreate(kindOf(ctx), ctx.body, writerOf(ctx), problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    return prepared;
  },
  load: noTarget,
  authorize: (user, _target, prepared) => postPolicy.create(user, undefined, { status: prepared.parsed.status, authorId: prepared.parsed.authorId }),
  async execute(ctx: OperationContext<CreateOp>, prepared) {
    const kind = prepared.kind;
    // A duplicate (docs/contract.md §6) comes back unchanged, with 201 like a new record.
    return createRecord(
      ctx,
      (repositories) => createOrReuse(repositories, prepared, writerOf(ctx)),
      async (repositories, id) => {
        const created = await reload(LINKED_POST_KINDS[kind.type], repositories, id);
        return {
          status: 201,
          body: await record(ctx, kind, created, undefined, repositories),
          headers: { Location: ctx.urls.item(kind.collection, id) },
          version: versionOf(kind.type, created),
        };
      },
      duplicateLocks([prepared]),
    );
  },
});

const get = operation({
  parse: (ctx: OperationContext<ReadOp>) => singleReadInput(ctx),
  cache: bySingleRead,
  load,
  authorize: postPolicy.read,
  async execute(ctx: OperationContext<ReadOp>, _query, row): Promise<Reply<ReadOp>> {
    const kind = kindOf(ctx);
    // The read passed the password check: nothing is masked.
    return { status: 200, body: await record(ctx, kind, row, { single: true, unmasked: true }), version: versionOf(kind.type, row) };
  },
});

const update = operation({
  async parse(ctx: OperationContext<UpdateOp>) {
    const body: Body = ctx.body ?? {};
    const problems: Record<string, string> = {};
    // Parameters (400) first, then the record (404), then the right (403): docs/contract.md §4.
    const { common } = await parseLinkedInput(kindOf(ctx), body, undefined, writerOf(ctx), problems);
    if (Object.keys(problems).length) throw invalidParams(problems);
    return { body, common };
  },
  permit: postPolicy.mayTryEdit,
  load,
  authorize: (user, row: LinkedRow, { common }) => postPolicy.edit(user, row, { status: common.status, authorId: common.authorId }),
  async execute(ctx: OperationContext<UpdateOp>, { body }, row) {
    const kind = kindOf(ctx);
    const writer = writerOf(ctx);
    const prepared = await prepareUpdate(kind, body, row, writer);
    await conditionalWrite(
      ctx,
      versionOf(kind.type, row),
      () => currentTag(ctx, kind, row.id),
      (expected) => inWriteTransaction(ctx.db, (repositories) => writeUpdate(repositories, prepared, writer, expected)),
    );
    const updated = await reload(LINKED_POST_KINDS[kind.type], ctx.repositories, row.id);
    return { status: 200, body: await record(ctx, kind, updated), version: versionOf(kind.type, updated) };
  },
});

const remove = operation({
  parse: (ctx: OperationContext<DeleteOp>) => queryInput(ctx),
  permit: postPolicy.mayTryRemove,
  load,
  authorize: postPolicy.remove,
  async execute(ctx: OperationContext<DeleteOp>, query, row) {
    const kind = kindOf(ctx);
    const modified = modifiedNow(ctx.now(), ctx.config.siteTimezone);
    const removed = await conditionalWrite(
      ctx,
      versionOf(kind.type, row),
      () => currentTag(ctx, kind, row.id),
      (expected) => removeRecord(LINKED_POST_KINDS[kind.type], ctx.repositories, row, { force: query.force === true, modified, expected }, (current) => record(ctx, kind, current)),
    );
    return { status: 200, body: removed.record, version: versionOf(kind.type, removed.row) };
  },
});

/** Every venue and organizer operation and the policy action it is judged by (policies/posts.ts). */
export const linkedOperations = {
  listVenues: list,
  createVenue: create,
  getVenue: get,
  updateVenue: update,
  putVenue: update,
  patchVenue: update,
  deleteVenue: remove,
  getVenueBySlug: get,
  updateVenueBySlug: update,
  putVenueBySlug: update,
  patchVenueBySlug: update,
  deleteVenueBySlug: remove,
  listOrganizers: list,
  createOrganizer: create,
  getOrganizer: get,
  updateOrganizer: update,
  putOrganizer: update,
  patchOrganizer: update,
  deleteOrganizer: remove,
  getOrganizerBySlug: get,
  updateOrganizerBySlug: update,
  putOrganizerBySlug: update,
  patchOrganizerBySlug: update,
  deleteOrganizerBySlug: remove,
} satisfies Partial<OperationTable>;
