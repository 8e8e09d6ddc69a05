import type { User } from '../auth/capabilities.js';
import type { OperationContext, OperationTable, Reply } from './shared/operation.js';
import { noTarget, operation } from './shared/operation.js';
import { RestError, invalidParams } from '../core/errors.js';
import { byRequest } from './shared/replies.js';
import { conditionalWrite, tagOfBody, versionOf } from './shared/conditional.js';
import { createRecord } from './shared/idempotency.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { termPolicy } from '../policies/terms.js';
import { inWriteTransaction, type Repositories } from '../repositories/registry.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../repositories/taxonomies.js';
import { TERM_LIST_WINDOW, type TermRow } from '../repositories/terms.js';
import { termRecords } from '../records/records.js';
import { currentCursor } from '../records/change-feed.js';
import { checkParent, checkUpdateClashes, cleanTermInput, findTerm, insertTerm, termWriteLocks, updateTerm, type TermInput } from '../domain/terms/writes.js';
import { termListFilter } from '../domain/terms/list-filter.js';

type ListOp = 'listCategories' | 'listTags';
type CreateOp = 'createCategory' | 'createTag';
type ReadOp = 'getCategory' | 'getTag';
type DeleteOp = 'deleteCategory' | 'deleteTag';
type UpdateOp = 'updateCategory' | 'putCategory' | 'patchCategory' | 'updateTag' | 'putTag' | 'patchTag';
type TermOp = ListOp | CreateOp | ReadOp | DeleteOp | UpdateOp;

/**
 * The taxonomy each term operation acts on. Categories and tags are the same kind of thing: the
 * operations below are written once for both, in the stages of operations/shared/operation.ts, and
 * each `parse` passes the taxonomy on with the input.
 */
const TAXONOMY_OF: Record<TermOp, Taxonomy> = {
  listCategories: CATEGORIES,
  createCategory: CATEGORIES,
  getCategory: CATEGORIES,
  updateCategory: CATEGORIES,
  putCategory: CATEGORIES,
  patchCategory: CATEGORIES,
  deleteCategory: CATEGORIES,
  listTags: TAGS,
  createTag: TAGS,
  getTag: TAGS,
  updateTag: TAGS,
  putTag: TAGS,
  patchTag: TAGS,
  deleteTag: TAGS,
};

/** What every term operation's `parse` returns: the taxonomy and the operation's own input. */
interface TermRequest<Input> {
  taxonomy: Taxonomy;
  input: Input;
}

function termRequest<Op extends TermOp, Input>(ctx: OperationContext<Op>, input: Input): TermRequest<Input> {
  return { taxonomy: TAXONOMY_OF[ctx.operationId], input };
}

/** The taxonomy's policy action (policies/terms.ts): `read` is anyone, `manage` the taxonomy's right. */
function judgedBy(action: 'read' | 'manage') {
  return (user: User | undefined, _target: unknown, { taxonomy }: TermRequest<unknown>) => termPolicy(taxonomy)[action](user);
}

const LIST_PARAMETERS = ['page', 'per_page', 'search', 'exclude', 'include', 'order', 'orderby', 'hide_empty', 'parent', 'post', 'event', 'slug'];

async function record(ctx: OperationContext, taxonomy: Taxonomy, row: TermRow, repositories = ctx.repositories) {
  const [built] = await termRecords(repositories, taxonomy, [row], ctx.urls);
  return built;
}

/** The `ETag` a GET of the term would get now (a 412's answer: operations/shared/conditional.ts). */
async function currentTag(ctx: OperationContext, taxonomy: Taxonomy, id: number): Promise<string | undefined> {
  const term = await ctx.repositories.terms.findById(id);
  return term && tagOfBody(versionOf(kindOf(taxonomy), term), await record(ctx, taxonomy, term));
}

/** The kind of record a term's `ETag` names (operations/shared/conditional.ts). */
function kindOf(taxonomy: Taxonomy) {
  return taxonomy.hierarchical ? ('category' as const) : ('tag' as const);
}

/** Only the list arguments the client sent (validated and normalised), for the paging URLs. */
function sentArguments(ctx: OperationContext<ListOp>, taxonomy: Taxonomy): Record<string, unknown> {
  const query: Record<string, unknown> = ctx.query;
  const known = taxonomy.hierarchical ? LIST_PARAMETERS : LIST_PARAMETERS.filter((name) => name !== 'parent');
  const sent = sentQueryNames(ctx.req).filter((name) => known.includes(name));
  return Object.fromEntries(sent.map((name) => [name, query[name]]));
}

async function listPage(ctx: OperationContext<ListOp>, { taxonomy, input: query }: TermRequest<OperationContext<ListOp>['query']>): Promise<Reply<ListOp>> {
  // Read before the page, so following the feed from it misses nothing (docs/contract.md §9).
  const changeCursor = await currentCursor(ctx.repositories);
  const page = pageRequest(query.page, query.per_page);
  const filter = await termListFilter(ctx.repositories, taxonomy, query, ctx.user, page);
  const { rows, counts, total } = await ctx.repositories.terms.list(taxonomy, filter);
  // A page within the list but past its first TERM_LIST_WINDOW terms (docs/limits.md "Term lists"); a page past the end stays a 404.
  if (page.offset < total && page.offset + page.perPage > TERM_LIST_WINDOW) {
    throw invalidParams({
      page: `page × per_page may be at most ${TERM_LIST_WINDOW}: a term list is paged through its first ${TERM_LIST_WINDOW} terms; narrow it with search, include, parent or slug.`,
    });
  }
  const { envelope, headers } = listEnvelope(
    ctx.urls.collection(taxonomy.collection),
    sentArguments(ctx, taxonomy),
    page,
    total,
    () => new RestError(404, 'term-archive-page-not-found', 'The requested event term archive page does not exist'),
  );
  const items = await termRecords(ctx.repositories, taxonomy, rows, ctx.urls, counts);
  // The plugin's order: totals, the terms, then the neighbouring pages. The collection's key is the
  // taxonomy's (`categories` or `tags`): the one place the compiler cannot follow it.
  const { rest_url, total: count, total_pages, ...neighbours } = envelope;
  return {
    status: 200,
    body: { rest_url, total: count, total_pages, [taxonomy.collection]: items, ...neighbours } as Reply<ListOp>['body'],
    headers: { ...headers, 'X-TEC-Change-Cursor': changeCursor },
  };
}

const list = operation({
  parse: (ctx: OperationContext<ListOp>) => termRequest(ctx, ctx.query),
  cache: byRequest,
  load: noTarget,
  authorize: judgedBy('read'),
  execute: listPage,
});

/** A create or update body, cleaned (domain/terms/writes.ts). */
function parseBody(ctx: OperationContext<CreateOp | UpdateOp>): TermRequest<TermInput> {
  const taxonomy = TAXONOMY_OF[ctx.operationId];
  const body: TermInput = ctx.body ?? {};
  return { taxonomy, input: cleanTermInput(taxonomy, body) };
}

const create = operation({
  async parse(ctx: OperationContext<CreateOp>) {
    const request = parseBody(ctx);
    await checkParent(ctx.repositories, request.taxonomy, request.input.parent ?? 0);
    return request;
  },
  load: noTarget,
  authorize: judgedBy('manage'),
  async execute(ctx: OperationContext<CreateOp>, { taxonomy, input }) {
    return createRecord(
      ctx,
      (repositories) => insertTerm(repositories, taxonomy, input),
      async (repositories: Repositories, id) => {
        const term = await findTerm(repositories, taxonomy, id);
        return {
          status: 201,
          body: await record(ctx, taxonomy, term, repositories),
          headers: { Location: ctx.urls.item(taxonomy.collection, id) },
          version: versionOf(kindOf(taxonomy), term),
        };
      },
      termWriteLocks(taxonomy, input),
    );
  },
});

const get = operation({
  parse: (ctx: OperationContext<ReadOp>) => termRequest(ctx, ctx.query),
  cache: byRequest,
  load: (ctx: OperationContext<ReadOp>, { taxonomy }) => findTerm(ctx.repositories, taxonomy, ctx.path.id),
  authorize: judgedBy('read'),
  async execute(ctx: OperationContext<ReadOp>, { taxonomy }, term) {
    return { status: 200, body: await record(ctx, taxonomy, term), version: versionOf(kindOf(taxonomy), term) };
  },
});

const update = operation({
  parse: (ctx: OperationContext<UpdateOp>) => parseBody(ctx),
  permit: (user, request) => judgedBy('manage')(user, undefined, request),
  async load(ctx: OperationContext<UpdateOp>, { taxonomy, input }) {
    const term = await findTerm(ctx.repositories, taxonomy, ctx.path.id);
    if (input.parent !== undefined) await checkParent(ctx.repositories, taxonomy, input.parent, term.id);
    return term;
  },
  authorize: judgedBy('manage'),
  async execute(ctx: OperationContext<UpdateOp>, { taxonomy, input }, term) {
    await checkUpdateClashes(ctx.repositories, taxonomy, term, input);
    await conditionalWrite(
      ctx,
      versionOf(kindOf(taxonomy), term),
      () => currentTag(ctx, taxonomy, term.id),
      (expected) => inWriteTransaction(ctx.db, (repositories) => updateTerm(repositories, taxonomy, term, input, expected), termWriteLocks(taxonomy, input)),
    );
    const updated = await findTerm(ctx.repositories, taxonomy, term.id);
    return { status: 200, body: await record(ctx, taxonomy, updated), version: versionOf(kindOf(taxonomy), updated) };
  },
});

const remove = operation({
  parse: (ctx: OperationContext<DeleteOp>) => termRequest(ctx, ctx.query),
  permit: (user, request) => judgedBy('manage')(user, undefined, request),
  load: (ctx: OperationContext<DeleteOp>, { taxonomy }) => findTerm(ctx.repositories, taxonomy, ctx.path.id),
  authorize: judgedBy('manage'),
  async execute(ctx: OperationContext<DeleteOp>, { taxonomy }, term) {
    // The answer is the term as it was, with its last count (docs/plugin-behaviour.md §6.6).
    const body = await record(ctx, taxonomy, term);
    await conditionalWrite(
      ctx,
      versionOf(kindOf(taxonomy), term),
      () => currentTag(ctx, taxonomy, term.id),
      (expected) => inWriteTransaction(ctx.db, (repositories) => repositories.terms.delete(term, expected), termWriteLocks(taxonomy, {}, true)),
    );
    return { status: 200, body, version: versionOf(kindOf(taxonomy), term) };
  },
});

/** Every category and tag operation and the policy action it is judged by (policies/terms.ts). */
export const termOperations = {
  listCategories: list,
  createCategory: create,
  getCategory: get,
  updateCategory: update,
  putCategory: update,
  patchCategory: update,
  deleteCategory: remove,
  listTags: list,
  createTag: create,
  getTag: get,
  updateTag: update,
  putTag: update,
  patchTag: update,
  deleteTag: remove,
} satisfies Partial<OperationTable>;
