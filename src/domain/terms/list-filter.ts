import type { operations } from '../../../generated/openapi.js';
import type { User } from '../../auth/capabilities.js';
import { invalidParams } from '../../core/errors.js';
import { readerOf } from '../../policies/posts.js';
import { eventFilter } from '../posts/event-filter.js';
import type { Repositories } from '../../repositories/registry.js';
import type { Taxonomy } from '../../repositories/taxonomies.js';
import type { TermListFilter } from '../../repositories/terms.js';

/** The validated query of `GET /categories` or `GET /tags`. */
type TermListQuery = NonNullable<operations['listCategories']['parameters']['query']> | NonNullable<operations['listTags']['parameters']['query']>;

/**
 * What a term list selects, once its parameters that name records are checked: every one naming
 * nothing of the right kind is reported together (400).
 */
export async function termListFilter(
  repositories: Repositories,
  taxonomy: Taxonomy,
  query: TermListQuery,
  user: User | undefined,
  page: { perPage: number; offset: number },
): Promise<TermListFilter> {
  const repo = repositories.terms;
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
  // `event` is an alias of `post` and wins when both are sent.
  const eventParam = query.event !== undefined ? 'event' : query.post !== undefined ? 'post' : undefined;
  const eventId = query.event ?? query.post;
  const byEvent = eventParam && eventId !== undefined ? await eventFilter(repositories, eventParam, eventId, user, problems) : undefined;
  if (Object.keys(problems).length) throw invalidParams(problems);

  return {
    search: query.search,
    include: query.include,
    // WordPress ignores `exclude` when `include` is given (get_terms).
    exclude: query.include?.length ? undefined : query.exclude,
    parent: parentFilter,
    eventId,
    eventHidden: byEvent?.eventHidden,
    protectedText: readerOf(user).protectedText,
    slug: query.slug,
    // WordPress lists an event's terms whatever their counts: `hide_empty` does not apply then.
    hideEmpty: eventId === undefined && (query.hide_empty ?? true),
    orderBy: query.orderby ?? 'name',
    order: query.order ?? 'asc',
    limit: page.perPage,
    offset: page.offset,
  };
}
