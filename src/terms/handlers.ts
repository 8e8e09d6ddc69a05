import type { OperationContext, Operation, Reply } from '../http/operation.js';
import { allowPublic, checkedByHandler } from '../http/operation.js';
import { invalidParam, invalidParams, RestError } from '../http/errors.js';
import { rememberedRead } from '../http/replies.js';
import { pageHeaders, pageLinks, pageRequest, sentQueryNames } from '../http/paging.js';
import { requireCapability, canReadRecord } from '../auth/permissions.js';
import { can } from '../auth/capabilities.js';
import { findPostHeader } from '../posts/lookup.js';
import { sanitizeSlug } from '../text/slugs.js';
import { sanitizeUserHtml } from '../text/html.js';
import { CATEGORIES, TAGS, type Taxonomy } from './taxonomies.js';
import { TermNameTaken, TermRepository, type TermListFilter, type TermRow } from './repository.js';
import { inTransaction } from '../db/transactions.js';
import { toTermRecord } from './mapper.js';

type ListOp = 'listCategories' | 'listTags';
type CreateOp = 'createCategory' | 'createTag';
type ReadOp = 'getCategory' | 'getTag' | 'deleteCategory' | 'deleteTag';
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
 * thing). Not found: 404 `rest-term-not-found`; an id of the other taxonomy: 400 `rest-invalid-term-id`.
 */
function termHandlers(taxonomy: Taxonomy) {
  const manage = (ctx: OperationContext): void => requireCapability(ctx.user, taxonomy.manageCapability);

  async function records(ctx: OperationContext, rows: TermRow[], knownCounts?: Map<number, number>) {
    const repo = new TermRepository(ctx.db);
    const counts = knownCounts ?? (await repo.countsFor(rows.map((row) => row.id)));
    const ancestors = taxonomy.hierarchical ? await repo.ancestorsOf(rows) : new Map<number, TermRow>();
    return rows.map((row) => toTermRecord(row, taxonomy, counts.get(row.id) ?? 0, ancestors, ctx.urls));
  }

  async function findTerm(ctx: OperationContext, id: number): Promise<TermRow> {
    const term = await new TermRepository(ctx.db).findById(id);
    if (!term) throw new RestError(404, 'rest-term-not-found', `Term with ID ${id} does not exist.`);
    if (term.taxonomy !== taxonomy.name) throw new RestError(400, 'rest-invalid-term-id', 'The specified ID is not a valid term.');
    return term;
  }

  /** The parent must be 0 or an existing term of this taxonomy, and never the term itself or below it. */
  async function checkParent(ctx: OperationContext, parent: number, termId?: number): Promise<void> {
    if (parent === 0) return;
    const repo = new TermRepository(ctx.db);
    const found = await repo.findById(parent);
    if (!found || found.taxonomy !== taxonomy.name) throw invalidParam('parent', `parent ${parent} is not an existing ${taxonomy.collection === 'categories' ? 'category' : 'tag'}.`);
    if (termId !== undefined && (await repo.descendantIds(termId)).has(parent)) {
      throw invalidParam('parent', 'parent cannot be the term itself or one of its descendants.');
    }
  }

  /** Term names are plain text; descriptions are HTML, cleaned for users without `unfiltered_html`. */
  function cleanInput(ctx: OperationContext, body: TermInput): TermInput {
    const out: TermInput = { ...body };
    if (body.name !== undefined) {
      out.name = body.name.replace(/<[^>]*>/g, '').trim();
      if (out.name === '') throw invalidParam('name', 'name must not be empty.');
    }
    if (body.slug !== undefined) {
      out.slug = sanitizeSlug(body.slug);
      if (out.slug === '') throw invalidParam('slug', 'slug must contain a letter or a digit.');
    }
    if (body.description !== undefined && !can(ctx.user, 'unfiltered_html')) out.description = sanitizeUserHtml(body.description);
    if (!taxonomy.hierarchical && 'parent' in (ctx.body as object)) {
      throw new RestError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');
    }
    return out;
  }

  const list = rememberedRead(async (ctx: OperationContext<ListOp>): Promise<Reply> => {
    const query = ctx.query as OperationContext<'listCategories'>['query'];
    const repo = new TermRepository(ctx.db);
    const page = pageRequest(query.page, query.per_page);

    const problems: Record<string, string> = {};
    for (const name of ['include', 'exclude'] as const) {
      const unknown = await repo.unknownIds(taxonomy, query[name] ?? []);
      if (unknown.length) problems[name] = `${name} contains IDs that are not ${taxonomy.collection}: ${unknown.join(', ')}.`;
    }
    // Only categories have `parent`; on tags it is an unknown parameter, ignored like any other.
    const parentFilter = taxonomy.hierarchical ? query.parent : undefined;
    if (parentFilter !== undefined && parentFilter !== 0) {
      const parent = await repo.findById(parentFilter);
      if (!parent || parent.taxonomy !== taxonomy.name) problems.parent = `parent ${query.parent} is not an existing category.`;
    }
    // `event` is an alias of `post` and wins when both are sent. An event the caller may not read is
    // reported like one that does not exist, so its terms do not leak.
    const eventParam = query.event !== undefined ? 'event' : query.post !== undefined ? 'post' : undefined;
    const eventId = query.event ?? query.post;
    if (eventParam && eventId !== undefined) {
      const event = await findPostHeader(ctx.db, eventId);
      if (!event || event.type !== 'event' || !canReadRecord(ctx.user, event)) problems[eventParam] = `${eventParam} ${eventId} is not an event.`;
    }
    if (Object.keys(problems).length) throw invalidParams(problems);

    const filter: TermListFilter = {
      search: query.search,
      include: query.include,
      exclude: query.exclude,
      parent: parentFilter,
      eventId,
      slug: query.slug,
      hideEmpty: query.hide_empty ?? true,
      orderBy: query.orderby ?? 'name',
      order: query.order ?? 'asc',
      limit: page.perPage,
      offset: page.offset,
    };
    const { rows, counts, total } = await repo.list(taxonomy, filter);
    const links = pageLinks(ctx.urls.collection(taxonomy.collection), sentArguments(ctx, taxonomy), page, total);
    if (page.page > 1 && page.page > links.totalPages) {
      throw new RestError(404, 'term-archive-page-not-found', 'The requested event term archive page does not exist');
    }
    const body: Record<string, unknown> = {
      rest_url: links.restUrl,
      total: links.total,
      total_pages: links.totalPages,
      [taxonomy.collection]: await records(ctx, rows, counts),
    };
    if (links.nextUrl) body.next_rest_url = links.nextUrl;
    if (links.previousUrl) body.previous_rest_url = links.previousUrl;
    return { status: 200, body, headers: pageHeaders(links) };
  });

  const create = async (ctx: OperationContext<CreateOp>): Promise<Reply> => {
    const input = cleanInput(ctx, ctx.body as TermInput);
    const repo = new TermRepository(ctx.db);
    const parent = input.parent ?? 0;
    await checkParent(ctx, parent);
    manage(ctx);
    const name = input.name as string;
    const exists = (term: TermRow) => new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: term.id });
    const id = await inTransaction(ctx.db, async (trx) => {
      const terms = new TermRepository(trx);
      // WordPress refuses a second term with the same name at the same level, unless the caller
      // gives it a different slug that is still free.
      const sameName = await terms.findByName(taxonomy, parent, name);
      if (sameName && (input.slug === undefined || (await terms.findBySlug(taxonomy, input.slug)))) throw exists(sameName);
      try {
        return await terms.insert(taxonomy, { name, description: input.description ?? '', parent }, input.slug ?? (sanitizeSlug(name) || taxonomy.fallbackSlug), sameName !== undefined);
      } catch (err) {
        throw err instanceof TermNameTaken ? exists(err.existing) : err;
      }
    });
    const [record] = await records(ctx, [(await repo.findById(id)) as TermRow]);
    return { status: 201, body: record, headers: { Location: ctx.urls.item(taxonomy.collection, id) } };
  };

  const get = rememberedRead(async (ctx: OperationContext<ReadOp>): Promise<Reply> => {
    const term = await findTerm(ctx, (ctx.path as { id: number }).id);
    const [record] = await records(ctx, [term]);
    return { status: 200, body: record };
  });

  const update = async (ctx: OperationContext<UpdateOp>): Promise<Reply> => {
    const input = cleanInput(ctx, (ctx.body ?? {}) as TermInput);
    const term = await findTerm(ctx, (ctx.path as { id: number }).id);
    const repo = new TermRepository(ctx.db);
    if (input.parent !== undefined) await checkParent(ctx, input.parent, term.id);
    manage(ctx);
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
    await repo.update(term, changes, async () => {
      const clash = (input.slug !== undefined && (await repo.findBySlug(taxonomy, input.slug))) || (await repo.findByName(taxonomy, parent, input.name ?? term.name));
      return new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: clash ? clash.id : term.id });
    });
    const [record] = await records(ctx, [(await repo.findById(term.id)) as TermRow]);
    return { status: 200, body: record };
  };

  const remove = async (ctx: OperationContext<ReadOp>): Promise<Reply> => {
    const term = await findTerm(ctx, (ctx.path as { id: number }).id);
    manage(ctx);
    // The answer is the term as it was, with its last count (plugin-behaviour §6.6).
    const [record] = await records(ctx, [term]);
    await new TermRepository(ctx.db).delete(term);
    return { status: 200, body: record };
  };

  return { list, create, get, update, remove };
}

/** Only the list arguments the client sent (validated and normalised), for the paging URLs. */
function sentArguments(ctx: OperationContext, taxonomy: Taxonomy): Record<string, unknown> {
  const query = ctx.query as Record<string, unknown>;
  const known = taxonomy.hierarchical ? LIST_PARAMETERS : LIST_PARAMETERS.filter((name) => name !== 'parent');
  const sent = sentQueryNames(ctx.req).filter((name) => known.includes(name));
  return Object.fromEntries(sent.map((name) => [name, query[name]]));
}

const categories = termHandlers(CATEGORIES);
const tags = termHandlers(TAGS);

function edit<Op extends UpdateOp>(handlers: ReturnType<typeof termHandlers>): Operation<Op> {
  return { permission: checkedByHandler, handler: handlers.update };
}

export const categoryOperations = {
  listCategories: { permission: allowPublic, handler: categories.list },
  createCategory: { permission: checkedByHandler, handler: categories.create },
  getCategory: { permission: allowPublic, handler: categories.get },
  updateCategory: edit<'updateCategory'>(categories),
  putCategory: edit<'putCategory'>(categories),
  patchCategory: edit<'patchCategory'>(categories),
  deleteCategory: { permission: checkedByHandler, handler: categories.remove },
} satisfies { [Op in ListOp | CreateOp | ReadOp | UpdateOp as Op extends `${string}Category` | 'listCategories' ? Op : never]: Operation<Op> };

export const tagOperations = {
  listTags: { permission: allowPublic, handler: tags.list },
  createTag: { permission: checkedByHandler, handler: tags.create },
  getTag: { permission: allowPublic, handler: tags.get },
  updateTag: edit<'updateTag'>(tags),
  putTag: edit<'putTag'>(tags),
  patchTag: edit<'patchTag'>(tags),
  deleteTag: { permission: checkedByHandler, handler: tags.remove },
} satisfies { [Op in ListOp | CreateOp | ReadOp | UpdateOp as Op extends `${string}Tag` | 'listTags' ? Op : never]: Operation<Op> };
