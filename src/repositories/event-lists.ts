import type { Knex } from 'knex';
import { distanceSql } from '../db/sql-functions.js';
import { whereSearchCandidates } from '../db/search-index.js';
import { likeEscape } from '../text/slugs.js';
import { protectedTextHidden, whereReadable, type Reader } from './read-scope.js';
import { listOrder, whereModified, type Direction, type EventOrderBy, type ModifiedRange } from './list-order.js';

/**
 * The filtered set of `GET /events` as SQL (repositories/events.ts `list` reads its page and total):
 * one named helper per filter, applied in a fixed order.
 */

/** Local wall-time bounds of the list, each optional (docs/plugin-behaviour.md §5.5). */
export interface DateBounds {
  /** start ≥ */
  startFrom?: string;
  /** end ≤ */
  endTo?: string;
  startsAfter?: string;
  startsBefore?: string;
  endsAfter?: string;
  endsBefore?: string;
}

export interface EventListFilter {
  statuses: string[];
  reader: Reader;
  bounds: DateBounds;
  /** WordPress keyword search: every `include` term in title, description or excerpt; no `exclude` term. */
  search?: { include: string[]; exclude: string[] };
  /** One list per taxonomy: an event matches a list when it has any of its terms. */
  termLists: number[][];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  include?: number[];
  postParent?: number;
  /** `GET /events/{id}/occurrences`: the events of this series (or the single event itself) (docs/contract.md §14). */
  ofSeries?: { seriesId: number | null; eventId: number };
  /** `hide_subsequent_recurrences`: of each series, only its first occurrence inside the window. */
  firstOfSeries?: boolean;
  /** `geoloc=true`: a linked venue has coordinates. */
  hasCoordinates?: boolean;
  /** `geoloc_lat` + `geoloc_lng`: a linked venue within the radius; nearest first. */
  near?: { lat: number; lng: number; radiusKm: number };
  /** `modified_after` / `modified_before` (docs/contract.md §8). */
  modified?: ModifiedRange;
  /** `orderby` and `order` (docs/contract.md §8); without them the plugin's order. */
  orderBy?: EventOrderBy;
  direction?: Direction;
  limit: number;
  offset: number;
}

/** The date bounds on the events of alias `x` (docs/plugin-behaviour.md §5.5). */
function whereInWindow(query: Knex.QueryBuilder, x: string, b: DateBounds): void {
  if (b.startFrom) query.where(`${x}.start_local`, '>=', b.startFrom);
  // An event never ends before it starts (writes refuse it), so an upper bound on the end bounds the
  // start too: the redundant condition lets the index on the start serve a closed range instead of
  // reading every later event (4x faster for a two-month window at 100k events).
  if (b.endTo) query.where(`${x}.end_local`, '<=', b.endTo).where(`${x}.start_local`, '<=', b.endTo);
  if (b.startsAfter) query.where(`${x}.start_local`, '>', b.startsAfter);
  if (b.startsBefore) query.where(`${x}.start_local`, '<', b.startsBefore);
  if (b.endsAfter) query.where(`${x}.end_local`, '>', b.endsAfter);
  if (b.endsBefore) query.where(`${x}.end_local`, '<', b.endsBefore).where(`${x}.start_local`, '<', b.endsBefore);
}

/**
 * A list with a category or tag filter whose links inside the window are at most this many leaves a
 * common search word to the `LIKE` rather than the search index's filter. Measured at 1M events
 * (SQLite): a 60-day window of one category, 1,700 links, 11 ms with the `LIKE` alone against 20 ms
 * with the filter; the two cost the same near 6,000 links (the largest category's 60 days).
 */
const LINKS_JUDGED_BY_LIKE = 4000;

/** What decides a list's total: the filter without the page and its order, and who asks (what they may read). */
export function totalKey(filter: EventListFilter): string {
  const { limit: _limit, offset: _offset, orderBy: _orderBy, direction: _direction, reader, ...rest } = filter;
  return JSON.stringify({ ...rest, reader: reader.key });
}

/** Links to any of `termIds` whose event lies inside the window (all of them without one). */
function linkedInWindow(db: Knex, termIds: number[], bounds: DateBounds): Knex.QueryBuilder {
  const linked = db('event_terms as xt').whereIn('xt.term_id', termIds);
  whereInWindow(linked, 'xt', bounds);
  return linked;
}

/** Whether one of the list's term filters has at most LINKS_JUDGED_BY_LIKE links inside its window (an index range, counted up to that). */
async function fewLinked(db: Knex, filter: EventListFilter): Promise<boolean> {
  for (const termIds of filter.termLists) {
    const upTo = linkedInWindow(db, termIds, filter.bounds)
      .select('xt.event_id')
      .limit(LINKS_JUDGED_BY_LIKE + 1);
    const counted = await db.from(upTo.as('l')).count({ n: '*' }).first();
    if (Number(counted?.n) <= LINKS_JUDGED_BY_LIKE) return true;
  }
  return false;
}

/** A list's statement on `events as x` as the filters build it, and whether it has joined `posts as p` yet. */
class FilteredEvents {
  readonly query: Knex.QueryBuilder;
  postsJoined = false;
  /** Near a point: each event's distance to its nearest located venue, in km (a correlated subquery). */
  distance: Knex.QueryBuilder | undefined;
  private few: Promise<boolean> | undefined;

  constructor(
    private readonly db: Knex,
    readonly filter: EventListFilter,
  ) {
    // The filters read `events` alone where they can (status and publication date are copied there),
    // so an anonymous list is counted from one index; posts are joined only when a filter needs them
    // (a search, or the read rule of a logged-in caller), and for the page's columns.
    this.query = db('events as x').whereIn('x.post_status', filter.statuses).where('x.hide_from_listings', false);
  }

  joinPosts(): void {
    if (!this.postsJoined) this.query.join('posts as p', 'p.id', 'x.post_id');
    this.postsJoined = true;
  }

  /** Whether a term filter has few links inside the window (asked at most once, and only when it matters). */
  fewLinked(): Promise<boolean> {
    return (this.few ??= fewLinked(this.db, this.filter));
  }

  /** The read rule, the date window, the series and the modification range. */
  whereReadableInWindow(): void {
    const { query, filter } = this;
    // The read rule needs posts only for the caller's own records (their author); published is the
    // events' status copy, so an anonymous list is counted from the events' index alone.
    if (!filter.reader.scope.everything && filter.reader.scope.ownerId !== undefined) this.joinPosts();
    whereReadable(query, 'p', filter.reader.scope, 'x.post_status');
    whereInWindow(query, 'x', filter.bounds);
    if (filter.ofSeries) {
      if (filter.ofSeries.seriesId === null) query.where('x.post_id', filter.ofSeries.eventId);
      else query.where('x.series_id', filter.ofSeries.seriesId);
    }
    if (filter.firstOfSeries) {
      // No earlier occurrence of the same series inside the window with a listed status (ties by id).
      const earlier = this.db('events as y')
        .whereRaw('y.series_id = x.series_id')
        .whereIn('y.post_status', filter.statuses)
        .where('y.hide_from_listings', false)
        .where((q) => q.whereRaw('y.start_local < x.start_local').orWhere((same) => same.whereRaw('y.start_local = x.start_local').whereRaw('y.post_id < x.post_id')));
      whereInWindow(earlier, 'y', filter.bounds);
      query.where((q) => q.whereNull('x.series_id').orWhereNotExists(earlier));
    }
    // On the copy of `posts.modified_utc`, indexed after the status and listing flag (events_modified_index).
    if (filter.modified) whereModified(query, 'x.post_modified_utc', filter.modified);
  }

  /** `search`: every included word in the title, description or excerpt, no excluded word (docs/contract.md §15). */
  async whereSearched(search: { include: string[]; exclude: string[] }): Promise<void> {
    const { query, filter } = this;
    this.joinPosts();
    // Text behind a password is not searchable by callers who could not read it (WordPress leaves
    // protected posts out of searches for them): for those, only the title of a protected event counts.
    const hidden = protectedTextHidden('p', filter.reader.protectedText);
    const matches = (q: Knex.QueryBuilder, pattern: string) =>
      q.whereRaw("lower(p.title) like ? escape '!'", [pattern]).orWhere((body) => {
        body.where((f) => f.whereRaw("lower(p.description) like ? escape '!'", [pattern]).orWhereRaw("lower(p.excerpt) like ? escape '!'", [pattern]));
        if (hidden) body.whereNot(hidden);
      });
    const include = search.include.map((term) => term.toLowerCase());
    // The search index first names the events that can contain the terms (an index read instead of
    // every event of the window); the LIKE below stays the judge (docs/contract.md §15).
    // A word too common to list is a filter that reads every event it matches (25,000 of 1M events
    // for a word in 2.5 % of them); a category or tag with few links inside the window names fewer,
    // and then the LIKE alone judges those (their links carry the event's times: term-link-times.ts).
    // On MySQL such a term filter is also where MariaDB best starts, so the matches are not listed first.
    const othersMany = async () => !(await this.fewLinked());
    await whereSearchCandidates(this.db, query, 'x.post_id', include, { filterWhenMany: othersMany, listFirst: othersMany });
    for (const term of include) {
      const pattern = `%${likeEscape(term)}%`;
      query.where((q) => matches(q, pattern));
    }
    for (const term of search.exclude) {
      const pattern = `%${likeEscape(term.toLowerCase())}%`;
      query.whereNot((q) => matches(q, pattern));
    }
  }

  /** Categories and tags, venues and organizers: the events linked to any of the given ones. */
  whereLinked(): void {
    const { query, filter } = this;
    // Link filters as `IN (events linked to …)` rather than a correlated EXISTS: the planner may then
    // start from the term's (venue's, organizer's) events and read the posts of only those, instead of
    // reading every event of the date window first (3x faster for a category with a search at 100k).
    // The links keep a copy of their event's start and end (term-link-times.ts), so with a window
    // the term's links are read only inside it (index event_terms_term_start_index), not all of them.
    for (const termIds of filter.termLists) query.whereIn('x.post_id', linkedInWindow(this.db, termIds, filter.bounds).select('xt.event_id'));
    if (filter.venueIds) query.whereIn('x.post_id', this.db('event_venues').whereIn('venue_id', filter.venueIds).select('event_id'));
    if (filter.organizerIds) query.whereIn('x.post_id', this.db('event_organizers').whereIn('organizer_id', filter.organizerIds).select('event_id'));
  }

  /** `featured`, `include`, `post_parent`, `geoloc` and the point with its radius, with a protected event's links masked. */
  whereFlagsAndPlace(): void {
    const { query, filter } = this;
    // A password-protected event's links and flags are masked for a caller who may not edit it
    // (docs/plugin-behaviour.md §1.10); for the filters on them it has no venue, organizer, term or located
    // venue and is not featured: a filter asking for one leaves it out, one asking for none keeps it.
    const masked = protectedTextHidden('p', filter.reader.protectedText);
    const asksForLinks = filter.termLists.length > 0 || filter.venueIds || filter.organizerIds || filter.featured === true || filter.hasCoordinates === true || filter.near;
    const orMasked = (q: Knex.QueryBuilder, condition: (c: Knex.QueryBuilder) => void) =>
      q.where((either) => (masked ? either.where(condition).orWhere(masked) : either.where(condition)));
    if (masked && (asksForLinks || filter.featured === false || filter.hasCoordinates === false)) this.joinPosts();
    if (masked && asksForLinks) query.whereNot(masked);
    if (filter.featured === true) query.where('x.featured', true);
    if (filter.featured === false) orMasked(query, (q) => q.where('x.featured', false));
    if (filter.include) query.whereIn('x.post_id', filter.include);
    if (filter.postParent !== undefined) query.where('x.post_parent', filter.postParent);
    if (filter.hasCoordinates !== undefined) {
      const located = this.db('event_venues as gv')
        .join('venues as gvv', 'gvv.post_id', 'gv.venue_id')
        .whereRaw('gv.event_id = x.post_id')
        .whereNotNull('gvv.geo_lat')
        .whereNotNull('gvv.geo_lng');
      if (filter.hasCoordinates) query.whereExists(located);
      else orMasked(query, (q) => q.whereNotExists(located));
    }
    if (filter.near) {
      const { lat, lng, radiusKm } = filter.near;
      this.distance = this.db('event_venues as dv')
        .join('venues as dvv', 'dvv.post_id', 'dv.venue_id')
        .whereRaw('dv.event_id = x.post_id')
        .whereNotNull('dvv.geo_lat')
        .whereNotNull('dvv.geo_lng')
        .min({ km: distanceSql(this.db, 'dvv.geo_lat', 'dvv.geo_lng', lat, lng) });
      query.where(this.db.raw('(?)', [this.distance.clone()]), '<=', radiusKm);
    }
  }

  /**
   * Orders a page of the set: `orderBy`/`direction`, then by id (docs/contract.md §8); without
   * `orderBy`, the plugin's order (docs/plugin-behaviour.md §5.7): local start, then publication
   * date; with `include` publication date; near a point, nearest first.
   */
  orderPage(page: Knex.QueryBuilder): void {
    const { filter, distance } = this;
    const own = distance ? 'distance' : filter.include ? 'date' : 'event_date';
    const { by, direction } = listOrder<EventOrderBy | 'distance'>(filter.orderBy, filter.direction, { by: own, direction: 'asc' });
    if (by === 'distance' && distance) page.select(distance.as('distance_km')).orderBy('distance_km', direction);
    else if (by === 'event_date') page.orderBy('x.start_local', direction).orderBy('x.post_date_utc', direction);
    else if (by === 'date') page.orderBy('x.post_date_utc', direction);
    else if (by === 'modified') page.orderBy('x.post_modified_utc', direction);
    // Case-insensitive on both engines (MySQL's collation is; SQLite compares bytes), as term names.
    else if (by === 'title') page.orderByRaw(`lower(p.title) ${direction === 'desc' ? 'desc' : 'asc'}`);
    // `x.post_date_utc` and `x.post_id` equal `p.date_utc` and `p.id`, but one table's index gives the order.
    page.orderBy('x.post_id', direction).limit(filter.limit).offset(filter.offset);
  }
}

/** The filtered set of a list, every filter applied (its page and total: repositories/events.ts `list`). */
export async function filteredEvents(db: Knex, filter: EventListFilter): Promise<FilteredEvents> {
  const listed = new FilteredEvents(db, filter);
  listed.whereReadableInWindow();
  if (filter.search) await listed.whereSearched(filter.search);
  listed.whereLinked();
  listed.whereFlagsAndPlace();
  return listed;
}
