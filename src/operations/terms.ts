import type { OperationContext, OperationTable, Reply } from './shared/operation.js';
import { noTarget, operation, queryInput } from './shared/operation.js';
import { invalidParam, invalidParams, RestError } from '../core/errors.js';
import { byRequest } from './shared/replies.js';
import { conditionalWrite, tagOfBody, versionOf } from './shared/conditional.js';
import { createRecord } from './shared/idempotency.js';
import { listEnvelope, pageRequest, sentQueryNames } from './shared/paging.js';
import { mayFilterByEvent, mayWriteUnfilteredHtml, readerOf } from '../policies/posts.js';
import { termPolicy } from '../policies/terms.js';
import { sanitizeSlug } from '../text/slugs.js';
import { htmlInput } from '../text/html.js';
import { HtmlElementBudget } from '../text/html-structure.js';
import { inWriteTransaction, type Repositories } from '../repositories/registry.js';
import { sanitizeTextField } from '../text/plain-text.js';
import { TEXT_LIMITS, tooLong } from '../text/limits.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../repositories/taxonomies.js';
import { TermNameTaken, type TermListFilter, type TermRow } from '../repositories/terms.js';
import { termRecords } from '../records/records.js';
import { currentCursor } from '../records/change-feed.js';

type ListOp = 'listCategories' | 'listTags';
type CreateOp = 'createCategory' | 'createTag';
type ReadOp = 'getCategory' | 'getTag';
type DeleteOp = 'deleteCategory' | 'deleteTag';
type UpdateOp = 'updateCategory' | 'putCategory' | 'patchCategory' | 'updateTag' | 'putTag' | 'patchTag';

/** Term fields a create or update body may carry (tags have no `parent`). */
interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  parent?: number;
}

const LIST_PARAMETERS = ['page', 'per_page', 'search', 'exclude', 'include', 'order', 'orderby', 'hide_empty', 'parent', 'post', 'event', 'slug'];

/**
 * The five term operations, once, for both taxonomies (categories and tags are the same kind of
 * thing), in the stages of operations/shared/operation.ts. Not found: 404 `rest-term-not-found`; an id of the other
 * taxonomy: 400 `rest-invalid-term-id`.
 */
function termOperations(taxonomy: Taxonomy) {
  const policy = termPolicy(taxonomy);

  function records(ctx: OperationContext, rows: TermRow[], knownCounts?: Map<number, number>, repositories = ctx.repositories) {
    return termRecords(repositories, taxonomy, rows, ctx.urls, knownCounts);
  }

  async function record(ctx: OperationContext, row: TermRow, repositories = ctx.repositories) {
    const [built] = await records(ctx, [row], undefined, repositories);
    return built;
  }

  const kindOf = taxonomy.hierarchical ? ('category' as const) : ('tag' as const);

  /** The `ETag` a GET of the term would get now (a 412's answer: operations/shared/conditional.ts). */
  async function currentTag(ctx: OperationContext, id: number): Promise<string | undefined> {
    const term = await ctx.repositories.terms.findById(id);
    return term && tagOfBody(versionOf(kindOf, term), await record(ctx, term));
  }

  async function findTerm(repositories: Repositories, id: number): Promise<TermRow> {
    const term = await repositories.terms.findById(id);
    if (!term) throw new RestError(404, 'rest-term-not-found', `Term with ID ${id} does not exist.`);
    if (term.taxonomy !== taxonomy.name) throw new RestError(400, 'rest-invalid-term-id', 'The specified ID is not a valid term.');
    return term;
  }

  /** The parent must be 0 or an existing term of this taxonomy, and never the term itself or below it. */
  async function checkParent(repositories: Repositories, parent: number, termId?: number): Promise<void> {
    if (parent === 0) return;
    const repo = repositories.terms;
    const found = await repo.findById(parent);
    if (!found || found.taxonomy !== taxonomy.name)
      throw invalidParam('parent', `parent ${parent} is not an existing ${taxonomy.collection === 'categories' ? 'category' : 'tag'}.`);
    if (termId !== undefined && (await repo.descendantIds(termId)).has(parent)) {
      throw invalidParam('parent', 'parent cannot be the term itself or one of its descendants.');
    }
  }

  /** Term names are plain text; descriptions are HTML, cleaned for users without `unfiltered_html`. */
  function cleanInput(ctx: OperationContext<CreateOp | UpdateOp>): TermInput {
    const body: TermInput = ctx.body ?? {};
    const out: TermInput = { ...body };
    if (body.name !== undefined) {
      out.name = sanitizeTextField(body.name);
      if (out.name === '') throw invalidParam('name', 'name must not be empty.');
      const long = tooLong('name', out.name, TEXT_LIMITS.termName);
      if (long) throw invalidParam('name', long);
    }
    if (body.slug !== undefined) {
      out.slug = sanitizeSlug(body.slug);
      if (out.slug === '') throw invalidParam('slug', 'slug must contain a letter or a digit.');
    }
    if (body.description !== undefined) {
      const html = htmlInput('description', body.description, mayWriteUnfilteredHtml(ctx.user), new HtmlElementBudget());
      if ('problem' in html) throw invalidParam('description', html.problem);
      out.description = html.value;
    }
    const longDescription = out.description === undefined ? undefined : tooLong('description', out.description, TEXT_LIMITS.termDescription);
    if (longDescription) throw invalidParam('description', longDescription);
    if (!taxonomy.hierarchical && 'parent' in body) {
      throw new RestError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');
    }
    return out;
  }

  async function listPage(ctx: OperationContext<ListOp>, query: OperationContext<ListOp>['query']): Promise<Reply<ListOp>> {
    const repo = ctx.repositories.terms;
    // Read before the page, so following the feed from it misses nothing (docs/contract.md §9).
    const changeCursor = await currentCursor(ctx.repositories);
    const page = pageRequest(query.page, query.per_page);

    const problems: Record<string, string> = {};
    for (const name of ['include', 'exclude'] as const) {
      const unknown = await repo.unknownIds(taxonomy, query[name] ?? []);
      if (unknown.length) problems[name] = `${name} contains IDs that are not ${taxonomy.collection}: ${unknown.join(', ')}.`;
    }
    // Only categories have `parent`; on tags it is an unknown parameter, ignored like any other.
    const parentFilter = taxonomy.hierarchical && 'parent' in query && typeof query.parent === 'number' ? query.parent : undefined;
    if (parentFilter !== undefined && parentFilter !== 0) {
      const parent = await repo.findById(parentFilter);
      if (!parent || parent.taxonomy !== taxonomy.name) problems.parent = `parent ${parentFilter} is not an existing category.`;
    }
    // `event` is an alias of `post` and wins when both are sent. An event the caller may not read is
    // reported like one that does not exist, so its terms do not leak.
    const eventParam = query.event !== undefined ? 'event' : query.post !== undefined ? 'post' : undefined;
    const eventId = query.event ?? query.post;
    if (eventParam && eventId !== undefined) {
      const event = await ctx.repositories.posts.header(eventId);
      if (!event || event.type !== 'event' || !mayFilterByEvent(ctx.user, event)) problems[eventParam] = `${eventParam} ${eventId} is not an event.`;
    }
    if (Object.keys(problems).length) throw invalidParams(problems);

    const filter: TermListFilter = {
      search: query.search,
      include: query.include,
      exclude: query.exclude,
      parent: parentFilter,
      eventId,
      protectedText: readerOf(ctx.user).protectedText,
      slug: query.slug,
      hideEmpty: query.hide_empty ?? true,
      orderBy: query.orderby ?? 'name',
      order: query.order ?? 'asc',
      limit: page.perPage,
      offset: page.offset,
    };
    const { rows, counts, total } = await repo.list(taxonomy, filter);
    const { envelope, headers } = listEnvelope(
      ctx.urls.collection(taxonomy.collection),
      sentArguments(ctx, taxonomy),
      page,
      total,
      () => new RestError(404, 'term-archive-page-not-found', 'The requested event term archive page does not exist'),
    );
    const items = await records(ctx, rows, counts);
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
    parse: (ctx: OperationContext<ListOp>) => queryInput(ctx),
    remember: byRequest,
    load: noTarget,
    authorize: policy.read,
    execute: listPage,
  });

  const create = operation({
    async parse(ctx: OperationContext<CreateOp>) {
      const input = cleanInput(ctx);
      await checkParent(ctx.repositories, input.parent ?? 0);
      return input;
    },
    load: noTarget,
    authorize: policy.manage,
    async execute(ctx: OperationContext<CreateOp>, input) {
      const parent = input.parent ?? 0;
      const name = input.name ?? '';
      const exists = (term: TermRow) => new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: term.id });
      return createRecord(
        ctx,
        async (repositories) => {
          const terms = repositories.terms;
          // WordPress refuses a second term with the same name at the same level, unless the caller
          // gives it a different slug that is still free.
          const sameName = await terms.findByName(taxonomy, parent, name);
          if (sameName && (input.slug === undefined || (await terms.findBySlug(taxonomy, input.slug)))) throw exists(sameName);
          try {
            return await terms.insert(
              taxonomy,
              { name, description: input.description ?? '', parent },
              input.slug ?? (sanitizeSlug(name) || taxonomy.fallbackSlug),
              sameName !== undefined,
            );
          } catch (err) {
            throw err instanceof TermNameTaken ? exists(err.existing) : err;
          }
        },
        async (repositories, id) => {
          const term = await findTerm(repositories, id);
          return {
            status: 201,
            body: await record(ctx, term, repositories),
            headers: { Location: ctx.urls.item(taxonomy.collection, id) },
            version: versionOf(kindOf, term),
          };
        },
      );
    },
  });

  const get = operation({
    parse: (ctx: OperationContext<ReadOp>) => queryInput(ctx),
    remember: byRequest,
    load: (ctx: OperationContext<ReadOp>) => findTerm(ctx.repositories, ctx.path.id),
    authorize: policy.read,
    async execute(ctx: OperationContext<ReadOp>, _query, term) {
      return { status: 200, body: await record(ctx, term), version: versionOf(kindOf, term) };
    },
  });

  const update = operation({
    parse: (ctx: OperationContext<UpdateOp>) => cleanInput(ctx),
    async load(ctx: OperationContext<UpdateOp>, input) {
      const term = await findTerm(ctx.repositories, ctx.path.id);
      if (input.parent !== undefined) await checkParent(ctx.repositories, input.parent, term.id);
      return term;
    },
    authorize: policy.manage,
    async execute(ctx: OperationContext<UpdateOp>, input, term) {
      const repo = ctx.repositories.terms;
      const parent = input.parent ?? term.parent;
      if (input.slug !== undefined && input.slug !== term.slug) {
        const owner = await repo.findBySlug(taxonomy, input.slug);
        if (owner && owner.id !== term.id) {
          throw new RestError(400, 'term_exists', 'A term with the slug provided already exists in this taxonomy.', { term_id: owner.id });
        }
      }
      if (input.name !== undefined || input.parent !== undefined) {
        const sameName = await repo.findByName(taxonomy, parent, input.name ?? term.name);
        if (sameName && sameName.id !== term.id) throw new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: sameName.id });
      }
      const changes: Partial<TermRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.slug !== undefined) changes.slug = input.slug;
      if (input.parent !== undefined) changes.parent = input.parent;
      await conditionalWrite(
        ctx,
        versionOf(kindOf, term),
        () => currentTag(ctx, term.id),
        (expected) =>
          inWriteTransaction(ctx.db, (repositories) =>
            repositories.terms.update(
              term,
              changes,
              async () => {
                const clash =
                  (input.slug !== undefined && (await repositories.terms.findBySlug(taxonomy, input.slug))) ||
                  (await repositories.terms.findByName(taxonomy, parent, input.name ?? term.name));
                return new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: clash ? clash.id : term.id });
              },
              expected,
            ),
          ),
      );
      const updated = await findTerm(ctx.repositories, term.id);
      return { status: 200, body: await record(ctx, updated), version: versionOf(kindOf, updated) };
    },
  });

  const remove = operation({
    parse: (ctx: OperationContext<DeleteOp>) => queryInput(ctx),
    load: (ctx: OperationContext<DeleteOp>) => findTerm(ctx.repositories, ctx.path.id),
    authorize: policy.manage,
    async execute(ctx: OperationContext<DeleteOp>, _query, term) {
      // The answer is the term as it was, with its last count (docs/plugin-behaviour.md §6.6).
      const body = await record(ctx, term);
      await conditionalWrite(
        ctx,
        versionOf(kindOf, term),
        () => currentTag(ctx, term.id),
        (expected) => inWriteTransaction(ctx.db, (repositories) => repositories.terms.delete(term, expected)),
      );
      return { status: 200, body, version: versionOf(kindOf, term) };
    },
  });

  return { list, create, get, update, remove };
}

/** Only the list arguments the client sent (validated and normalised), for the paging URLs. */
function sentArguments(ctx: OperationContext<ListOp>, taxonomy: Taxonomy): Record<string, unknown> {
  const query: Record<string, unknown> = ctx.query;
  const known = taxonomy.hierarchical ? LIST_PARAMETERS : LIST_PARAMETERS.filter((name) => name !== 'parent');
  const sent = sentQueryNames(ctx.req).filter((name) => known.includes(name));
  return Object.fromEntries(sent.map((name) => [name, query[name]]));
}

const categories = termOperations(CATEGORIES);
const tags = termOperations(TAGS);

/** Every category operation and the policy action it is judged by (policies/terms.ts). */
export const categoryOperations = {
  listCategories: categories.list,
  createCategory: categories.create,
  getCategory: categories.get,
  updateCategory: categories.update,
  putCategory: categories.update,
  patchCategory: categories.update,
  deleteCategory: categories.remove,
} satisfies Partial<OperationTable>;

/** Every tag operation and the policy action it is judged by (policies/terms.ts). */
export const tagOperations = {
  listTags: tags.list,
  createTag: tags.create,
  getTag: tags.get,
  updateTag: tags.update,
  putTag: tags.update,
  patchTag: tags.update,
  deleteTag: tags.remove,
} satisfies Partial<OperationTable>;
