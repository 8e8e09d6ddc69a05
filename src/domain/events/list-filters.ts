import type { operations } from '../../../generated/openapi.js';
import type { Repositories } from '../../repositories/registry.js';
import type { EventListFilter } from '../../repositories/event-lists.js';
import { ORGANIZERS, VENUES } from '../../repositories/linked-kinds.js';
import { modifiedRange, type ModifiedRange } from '../../repositories/list-order.js';
import type { Reader } from '../../repositories/read-scope.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../../repositories/taxonomies.js';
import type { TermRow } from '../../repositories/terms.js';
import { listBounds, searchTerms } from './list-window.js';

/**
 * The filters of `GET /events` (and of its `.ics` and `.jsonld` feeds, which take the same ones):
 * what each parameter means, and the problems (400 `rest_invalid_param`) of those that are wrong,
 * all reported together.
 */

/** The query of `GET /events` as validated against the document. */
type EventListQuery = NonNullable<operations['listEvents']['parameters']['query']>;

/** The filters read from the query alone, before the database is asked. */
export interface ListFilters {
  /** Parameters already known to be wrong, reported together with those the lookups find. */
  problems: Record<string, string>;
  details: Record<string, unknown>;
  bounds: ReturnType<typeof listBounds>['bounds'];
  urlValues: ReturnType<typeof listBounds>['urlValues'];
  modified: ModifiedRange;
}

export function readListFilters(query: EventListQuery, now: Date, siteTimezone: string): ListFilters {
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
    now,
    siteTimezone,
  });
  for (const name of invalid) problems[name] = `${name} is not a date this service understands.`;
  return { problems, details, bounds, urlValues, modified };
}

/** The list's `categories`/`tags`: each item a slug, an id or a name of an existing term (a problem otherwise). */
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

/** The terms a list filters by (undefined: that filter was not sent). */
interface ListedTerms {
  categories: TermRow[] | undefined;
  tags: TermRow[] | undefined;
}

/**
 * The filters that name records: `categories` and `tags` resolved to their terms, and `venue`,
 * `organizer` and `post_parent` checked to name records of their kind, with a problem recorded for
 * each that does not.
 */
export async function resolveListedRecords(repositories: Repositories, query: EventListQuery, problems: Record<string, string>): Promise<ListedTerms> {
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
  return { categories, tags };
}

/** The repository's filter for a list query whose filters are all valid, for one caller and one page. */
export function eventListFilter(
  query: EventListQuery,
  { bounds, modified }: ListFilters,
  { categories, tags }: ListedTerms,
  { statuses, reader, limit, offset }: { statuses: string[]; reader: Reader; limit: number; offset: number },
): EventListFilter {
  return {
    statuses,
    reader,
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
  };
}
