import type { Knex } from 'knex';
import { totalFromPage, totalsOf } from '../db/versioned-cache.js';
import { distanceSql } from '../db/sql-functions.js';
import { likeEscape } from '../text/slugs.js';
import { chunks, eventCopiesOf, POST_COLUMNS, toPostRow, type PostColumns, type PostRepository, type PostRow } from './posts.js';
import { protectedTextHidden, whereReadable, type Reader } from './read-scope.js';
import { engineOf } from '../db/engine.js';
import { whereSearchCandidates } from '../db/search-index.js';
import { requireTransaction } from '../db/transactions.js';
import { noteChange } from '../db/change-log.js';
import { linkTimesOf, movesTimes, refreshLinkTimes } from './term-link-times.js';
import { listOrder, whereModified, type Direction, type EventOrderBy, type ModifiedRange } from './list-order.js';
import { TEXT_LIMITS, boundedList, boundedText } from '../text/limits.js';

/** An event: the shared post columns plus its own. */
export interface EventRow extends PostRow {
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
  timezone: string;
  allDay: boolean;
  costRaw: string[];
  costValues: string[];
  currencySymbol: string;
  currencyPosition: string;
  currencyCode: string;
  website: string;
  showMap: boolean;
  showMapLink: boolean;
  hideFromListings: boolean;
  sticky: boolean;
  featured: boolean;
  postParent: number | null;
  /** The series' first event (itself for the first event), or null for a single event (docs/contract.md §14). */
  seriesId: number | null;
  /** The series' rules (RFC 5545 content lines), or null for a single event. */
  recurrence: string[] | null;
  /** The local start the rules give this occurrence (its RECURRENCE-ID). */
  recurrenceStart: string | null;
  /** Why the rolling horizon could not extend the event's series (docs/contract.md §14), or null. */
  horizonError: string | null;
  /** Edited on its own: later edits of the series leave it alone. */
  exception: boolean;
}

/** A link from an event to a venue, organizer or term its record embeds (`EventRepository.links`). */
export interface EventLink {
  eventId: number;
  kind: 'venue' | 'organizer' | 'term';
  id: number;
  /** Link order of venues and organizers (0 for terms). */
  position: number;
  /** The linked record's version now. */
  version: number;
  /** A term's published count now (0 for venues and organizers). */
  count: number;
}

/** Columns of `events` as written. */
export type EventColumns = Partial<{
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  all_day: boolean;
  cost_raw: string;
  cost_values: string;
  cost_min: number | null;
  cost_max: number | null;
  currency_symbol: string;
  currency_position: string;
  currency_code: string;
  website: string;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
}>;

const EVENT_COLUMNS = [
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'all_day',
  'cost_raw',
  'cost_values',
  'currency_symbol',
  'currency_position',
  'currency_code',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'post_parent',
  'series_id',
  'recurrence_start',
  'exception',
];

const SELECT = [...POST_COLUMNS.map((c) => `p.${c}`), ...EVENT_COLUMNS.map((c) => `x.${c}`), 's.rules as series_rules', 's.horizon_error as series_horizon_error'];

function jsonList(value: unknown): string[] {
  const parsed = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

function toEventRow(row: Record<string, unknown>): EventRow {
  const flag = (name: string) => Boolean(Number(row[name]));
  return {
    ...toPostRow(row),
    startLocal: String(row.start_local),
    endLocal: String(row.end_local),
    startUtc: String(row.start_utc),
    endUtc: String(row.end_utc),
    timezone: String(row.timezone),
    allDay: flag('all_day'),
    // Within the limits whatever was stored (text/limits.ts).
    costRaw: boundedList(jsonList(row.cost_raw), TEXT_LIMITS.cost),
    costValues: boundedList(jsonList(row.cost_values), TEXT_LIMITS.cost),
    currencySymbol: String(row.currency_symbol),
    currencyPosition: String(row.currency_position),
    currencyCode: String(row.currency_code),
    website: boundedText(String(row.website), TEXT_LIMITS.url),
    showMap: flag('show_map'),
    showMapLink: flag('show_map_link'),
    hideFromListings: flag('hide_from_listings'),
    sticky: flag('sticky'),
    featured: flag('featured'),
    postParent: row.post_parent === null || row.post_parent === undefined ? null : Number(row.post_parent),
    seriesId: row.series_id === null || row.series_id === undefined ? null : Number(row.series_id),
    recurrence:
      row.series_id === null || row.series_id === undefined || typeof row.series_rules !== 'string' ? null : boundedList(jsonList(row.series_rules), TEXT_LIMITS.recurrence),
    recurrenceStart: row.recurrence_start === null || row.recurrence_start === undefined ? null : String(row.recurrence_start),
    horizonError: typeof row.series_horizon_error === 'string' ? row.series_horizon_error : null,
    exception: flag('exception'),
  };
}

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
function totalKey(filter: EventListFilter): string {
  const { limit: _limit, offset: _offset, orderBy: _orderBy, direction: _direction, reader, ...rest } = filter;
  return JSON.stringify({ ...rest, reader: reader.key });
}

/** All Knex for events and their links. */
export class EventRepository {
  constructor(
    private readonly db: Knex,
    private readonly posts: PostRepository,
  ) {}

  private base(): Knex.QueryBuilder {
    return this.db('posts as p').join('events as x', 'x.post_id', 'p.id').leftJoin('event_series as s', 's.id', 'x.series_id').where('p.type', 'event');
  }

  async findById(id: number): Promise<EventRow | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.base().where('p.id', id).first(SELECT);
    return row ? toEventRow(row) : undefined;
  }

  /** Events by id, in one query per 500 ids (ids that are not events are left out). */
  async findByIds(ids: number[]): Promise<EventRow[]> {
    const rows: EventRow[] = [];
    for (const part of chunks(ids.filter((id) => Number.isSafeInteger(id)))) rows.push(...(await this.base().whereIn('p.id', part).select(SELECT)).map(toEventRow));
    return rows;
  }

  async findBySlug(slug: string): Promise<EventRow | undefined> {
    const row = await this.base().where('p.slug', slug).first(SELECT);
    return row ? toEventRow(row) : undefined;
  }

  /**
   * One page of the list and the size of the filtered set: one query for the page, one for the count.
   * In `orderBy`/`direction`, then by id (docs/contract.md §8); without `orderBy`, the plugin's order
   * (docs/plugin-behaviour.md §5.7): local start, then publication date; with `include` publication
   * date; near a point, nearest first.
   */
  async list(filter: EventListFilter): Promise<{ rows: EventRow[]; total: number }> {
    // The filters read `events` alone where they can (status and publication date are copied there),
    // so an anonymous list is counted from one index; posts are joined only when a filter needs them
    // (a search, or the read rule of a logged-in caller), and for the page's columns.
    const query = this.db('events as x').whereIn('x.post_status', filter.statuses).where('x.hide_from_listings', false);
    let postsJoined = false;
    const joinPosts = () => {
      if (!postsJoined) query.join('posts as p', 'p.id', 'x.post_id');
      postsJoined = true;
    };
    // The read rule needs posts only for the caller's own records (their author); published is the
    // events' status copy, so an anonymous list is counted from the events' index alone.
    if (!filter.reader.scope.everything && filter.reader.scope.ownerId !== undefined) joinPosts();
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
    // Whether a term filter has few links inside the window (asked at most once, and only when it matters).
    let few: Promise<boolean> | undefined;
    const fewLinked = () => (few ??= this.fewLinked(filter));
    if (filter.search) {
      joinPosts();
      // Text behind a password is not searchable by callers who could not read it (WordPress leaves
      // protected posts out of searches for them): for those, only the title of a protected event counts.
      const hidden = protectedTextHidden('p', filter.reader.protectedText);
      const matches = (q: Knex.QueryBuilder, pattern: string) =>
        q.whereRaw("lower(p.title) like ? escape '!'", [pattern]).orWhere((body) => {
          body.where((f) => f.whereRaw("lower(p.description) like ? escape '!'", [pattern]).orWhereRaw("lower(p.excerpt) like ? escape '!'", [pattern]));
          if (hidden) body.whereNot(hidden);
        });
      const include = filter.search.include.map((term) => term.toLowerCase());
      // The search index first names the events that can contain the terms (an index read instead of
      // every event of the window); the LIKE below stays the judge (docs/contract.md §15).
      // A word too common to list is a filter that reads every event it matches (25,000 of 1M events
      // for a word in 2.5 % of them); a category or tag with few links inside the window names fewer,
      // and then the LIKE alone judges those (their links carry the event's times: term-link-times.ts).
      await whereSearchCandidates(this.db, query, 'x.post_id', include, { filterWhenMany: async () => !(await fewLinked()) });
      for (const term of include) {
        const pattern = `%${likeEscape(term)}%`;
        query.where((q) => matches(q, pattern));
      }
      for (const term of filter.search.exclude) {
        const pattern = `%${likeEscape(term.toLowerCase())}%`;
        query.whereNot((q) => matches(q, pattern));
      }
    }
    // Link filters as `IN (events linked to …)` rather than a correlated EXISTS: the planner may then
    // start from the term's (venue's, organizer's) events and read the posts of only those, instead of
    // reading every event of the date window first (3x faster for a category with a search at 100k).
    // The links keep a copy of their event's start and end (term-link-times.ts), so with a window
    // the term's links are read only inside it (index event_terms_term_start_index), not all of them.
    for (const termIds of filter.termLists) query.whereIn('x.post_id', this.linkedInWindow(termIds, filter.bounds).select('xt.event_id'));
    if (filter.venueIds) query.whereIn('x.post_id', this.db('event_venues').whereIn('venue_id', filter.venueIds).select('event_id'));
    if (filter.organizerIds) query.whereIn('x.post_id', this.db('event_organizers').whereIn('organizer_id', filter.organizerIds).select('event_id'));
    // A password-protected event's links and flags are masked for a caller who may not edit it
    // (docs/plugin-behaviour.md §1.10); for the filters on them it has no venue, organizer, term or located
    // venue and is not featured: a filter asking for one leaves it out, one asking for none keeps it.
    const masked = protectedTextHidden('p', filter.reader.protectedText);
    const asksForLinks = filter.termLists.length > 0 || filter.venueIds || filter.organizerIds || filter.featured === true || filter.hasCoordinates === true || filter.near;
    const orMasked = (q: Knex.QueryBuilder, condition: (c: Knex.QueryBuilder) => void) =>
      q.where((either) => (masked ? either.where(condition).orWhere(masked) : either.where(condition)));
    if (masked && (asksForLinks || filter.featured === false || filter.hasCoordinates === false)) joinPosts();
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
    let distance: Knex.QueryBuilder | undefined;
    if (filter.near) {
      const { lat, lng, radiusKm } = filter.near;
      distance = this.db('event_venues as dv')
        .join('venues as dvv', 'dvv.post_id', 'dv.venue_id')
        .whereRaw('dv.event_id = x.post_id')
        .whereNotNull('dvv.geo_lat')
        .whereNotNull('dvv.geo_lng')
        .min({ km: distanceSql(this.db, 'dvv.geo_lat', 'dvv.geo_lng', lat, lng) });
      query.where(this.db.raw('(?)', [distance.clone()]), '<=', radiusKm);
    }

    const page = query.clone();
    if (!postsJoined) page.join('posts as p', 'p.id', 'x.post_id');
    page.leftJoin('event_series as s', 's.id', 'x.series_id').select(SELECT);
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
    // A term filter with few links inside the window bounds the whole set, which the page reads to
    // sort it anyway: the page counts it too, one statement instead of two (docs/performance.md "What limits it").
    const countedByPage = filter.termLists.length > 0 && (await fewLinked());
    if (countedByPage) page.select(this.db.raw('count(*) over () as list_total'));
    const found: Array<Record<string, unknown>> = await page;
    const rows = found.map((row) => toEventRow(row));
    const total =
      totalFromPage(rows.length, filter.limit, filter.offset) ??
      (countedByPage && found.length ? Number(found[0].list_total) : undefined) ??
      (await totalsOf(this.db).get(`events ${totalKey(filter)}`, async () => {
        const [{ n }] = await query.clone().count({ n: '*' });
        return Number(n);
      }));
    return { rows, total };
  }

  /** Links to any of `termIds` whose event lies inside the window (all of them without one). */
  private linkedInWindow(termIds: number[], bounds: DateBounds): Knex.QueryBuilder {
    const linked = this.db('event_terms as xt').whereIn('xt.term_id', termIds);
    whereInWindow(linked, 'xt', bounds);
    return linked;
  }

  /** Whether one of the list's term filters has at most LINKS_JUDGED_BY_LIKE links inside its window (an index range, counted up to that). */
  private async fewLinked(filter: EventListFilter): Promise<boolean> {
    for (const termIds of filter.termLists) {
      const upTo = this.linkedInWindow(termIds, filter.bounds)
        .select('xt.event_id')
        .limit(LINKS_JUDGED_BY_LIKE + 1);
      const counted = await this.db.from(upTo.as('l')).count({ n: '*' }).first();
      if (Number(counted?.n) <= LINKS_JUDGED_BY_LIKE) return true;
    }
    return false;
  }

  async create(columns: PostColumns, baseSlug: string, own: EventColumns): Promise<number> {
    return this.posts.insert('event', columns, baseSlug, async (id) => {
      await requireTransaction(this.db)('events').insert({ ...own, post_id: id, ...eventCopiesOf(columns) });
    });
  }

  /** Updates the shared columns (posts.update keeps the copies) and the event's own. */
  async update(post: PostRow, columns: Partial<PostColumns>, newBaseSlug: string | undefined, own: EventColumns, expected?: number): Promise<void> {
    await this.posts.update(post, columns, newBaseSlug, expected);
    const trx = requireTransaction(this.db);
    if (Object.keys(own).length) await trx('events').where('post_id', post.id).update(own);
    if (movesTimes(own)) await refreshLinkTimes(trx, [post.id]);
    noteChange(this.db, 'event', post.id);
  }

  /**
   * Replaces the event's links of one kind, keeping the given order. A new event has none to delete
   * (skipping that DELETE avoids gap locks that make concurrent creates deadlock on MySQL).
   */
  async setLinks(eventId: number, table: 'event_venues' | 'event_organizers', column: 'venue_id' | 'organizer_id', ids: number[], isNew = false): Promise<void> {
    const trx = requireTransaction(this.db);
    if (!isNew) await trx(table).where('event_id', eventId).delete();
    const rows = [...new Set(ids)].map((id, position) => ({ event_id: eventId, [column]: id, position }));
    if (rows.length) await trx(table).insert(rows);
    noteChange(trx, 'event', eventId);
  }

  /** Replaces the event's terms of one taxonomy. */
  async setTerms(eventId: number, taxonomy: string, termIds: number[], isNew = false): Promise<void> {
    const trx = requireTransaction(this.db);
    if (!isNew) {
      const current = trx('terms').where('taxonomy', taxonomy).select('id');
      await trx('event_terms').where('event_id', eventId).whereIn('term_id', current).delete();
    }
    const rows = [...new Set(termIds)].map((termId) => ({ event_id: eventId, term_id: termId, ...linkTimesOf(trx, eventId) }));
    if (rows.length) await trx('event_terms').insert(rows);
    noteChange(trx, 'event', eventId);
  }

  /**
   * The terms an event counts for in its terms' `count` (published events only), read under a lock
   * on the event's row on MySQL, so that concurrent writes to one event adjust the counts one after
   * the other from what the previous one left. (SQLite runs one write transaction at a time.)
   */
  async countedTerms(eventId: number): Promise<number[]> {
    const trx = requireTransaction(this.db);
    const locking = engineOf(trx) === 'mysql';
    const post = trx('posts').where('id', eventId);
    const status = await (locking ? post.forUpdate() : post).first('status');
    if (status?.status !== 'publish') return [];
    const links = trx('event_terms').where('event_id', eventId);
    return (await (locking ? links.forUpdate() : links).pluck('term_id')).map(Number);
  }

  /**
   * What the records of some events embed, in one statement: each event's venue, organizer and term
   * links with the linked record's current version (and a term's published count, which moves
   * without its version). Links to records that no longer exist are left out. Venues and organizers
   * come in link order (position, then id).
   */
  async links(eventIds: number[]): Promise<EventLink[]> {
    const links: EventLink[] = [];
    for (const part of chunks(eventIds)) {
      const linked = (table: string, column: string, kind: string) =>
        this.db(`${table} as l`)
          .join('posts as p', 'p.id', `l.${column}`)
          .whereIn('l.event_id', part)
          .select('l.event_id', this.db.raw(`'${kind}' as kind`), { id: `l.${column}` }, 'l.position', 'p.version', this.db.raw('0 as count'));
      const rows = await linked('event_venues', 'venue_id', 'venue').unionAll(
        [
          linked('event_organizers', 'organizer_id', 'organizer'),
          this.db('event_terms as l')
            .join('terms as t', 't.id', 'l.term_id')
            .whereIn('l.event_id', part)
            .select('l.event_id', this.db.raw("'term' as kind"), { id: 'l.term_id' }, this.db.raw('0 as position'), 't.version', { count: 't.published_count' }),
        ],
        false,
      );
      for (const row of rows) {
        links.push({ eventId: Number(row.event_id), kind: row.kind, id: Number(row.id), position: Number(row.position), version: Number(row.version), count: Number(row.count) });
      }
    }
    return links.sort((a, b) => a.position - b.position || a.id - b.id);
  }
}
