import type { Knex } from 'knex';
import { listTotal, totalFromPage, type Moving, type VersionedCache } from '../db/versioned-cache.js';
import { likeEscape, slugLookups } from '../text/slugs.js';
import { noteRecordChange, POST_COLUMNS, toPostRow, type PostColumns, type PostRepository, type PostRow } from './posts.js';
import { protectedTextHidden, whereReadable, type Reader } from './read-scope.js';
import { requireTransaction } from '../db/transactions.js';
import type { LinkedKind } from './linked-kinds.js';
import { listOrder, whereModified, type Direction, type LinkedOrderBy, type ModifiedRange } from './list-order.js';
import { boundedText, linkedFieldLimit } from '../text/limits.js';
import { whereIdIn } from '../db/id-lists.js';
import { PLAIN_FIELDS, plainColumnsOf } from '../text/plain-forms.js';

/** A venue or organizer: the shared post columns plus the type's own. */
export interface LinkedRow extends PostRow {
  /** The type's text fields (`address`, `phone`, `email`...), `''` when empty. */
  fields: Record<string, string>;
  /** The plain forms of those of `fields` that have one (text/plain-forms.ts), stored when written; null for a row written past the repositories. */
  plainFields: Record<string, string | null>;
  /** Venues only: map flags and coordinates. */
  showMap: boolean;
  showMapLink: boolean;
  geoLat: number | null;
  geoLng: number | null;
}

/** Columns of the type's own table as written. */
export type KindColumns = Record<string, string | number | boolean | null>;

export interface LinkedListFilter {
  statuses: string[];
  reader: Reader;
  search?: string;
  eventId?: number;
  /** The event `eventId` names is one the caller may not read: nothing is listed. */
  eventHidden?: boolean;
  hasEvents?: boolean;
  /** `only_with_upcoming`: linked to an event the caller may see that starts at or after this UTC time. */
  upcomingFrom?: string;
  upcomingStatuses?: string[];
  /** `modified_after` / `modified_before` (docs/contract.md §8). */
  modified?: ModifiedRange;
  /** `orderby` and `order` (docs/contract.md §8); without them publication date, newest first. */
  orderBy?: LinkedOrderBy;
  direction?: Direction;
  limit: number;
  offset: number;
}

/** Statuses of events that count for `has_events` (docs/plugin-behaviour.md §6.4: not drafts or pending). */
const EVENT_STATUSES_NOT_COUNTED = ['draft', 'pending'];

/** Each kind among posts, written into statements (`LinkedRepository.base`). */
const TYPE_CLAUSES: Record<LinkedKind['type'], string> = { venue: "p.type = 'venue'", organizer: "p.type = 'organizer'" };

/**
 * "Has an upcoming event" changes with time only when an event starts: what was computed at an
 * earlier moment still holds when no event at all started between then and now.
 */
export function eventStartsMoving(db: Knex, moment: string): Moving {
  return {
    moment,
    unchangedBetween: async (earlier, later) => !(await db('events').where('start_utc', '>=', earlier).where('start_utc', '<', later).first('post_id')),
  };
}

/** All Knex for venues and organizers, parameterised by kind. */
export class LinkedRepository {
  /** @param totals the app's cache of list totals (db/versioned-cache.ts): reads of requests only. */
  constructor(
    private readonly db: Knex,
    private readonly kind: LinkedKind,
    private readonly posts: PostRepository,
    private readonly totals?: VersionedCache<number>,
  ) {}

  private toRow(row: Record<string, unknown>): LinkedRow {
    const fields: Record<string, string> = {};
    // Within the limits whatever was stored (text/limits.ts).
    for (const field of this.kind.textFields) fields[field] = boundedText(String(row[field] ?? ''), linkedFieldLimit(field));
    const plainFields: Record<string, string | null> = {};
    for (const field of PLAIN_FIELDS[this.kind.table])
      plainFields[field] = row[`${field}_plain`] === null || row[`${field}_plain`] === undefined ? null : String(row[`${field}_plain`]);
    // Added to the post's new object rather than spread with it: see repositories/event-rows.ts `toEventRow`.
    return Object.assign(toPostRow(row), {
      fields,
      plainFields,
      showMap: row.show_map === undefined ? true : Boolean(Number(row.show_map)),
      showMapLink: row.show_map_link === undefined ? true : Boolean(Number(row.show_map_link)),
      geoLat: row.geo_lat === null || row.geo_lat === undefined ? null : Number(row.geo_lat),
      geoLng: row.geo_lng === null || row.geo_lng === undefined ? null : Number(row.geo_lng),
    });
  }

  /**
   * posts ⨝ the kind's table, aliased `p` and `k`. The type is written into the statement, not bound:
   * see `findById`.
   */
  private base(): Knex.QueryBuilder {
    return this.db('posts as p').join(`${this.kind.table} as k`, 'k.post_id', 'p.id').whereRaw(TYPE_CLAUSES[this.kind.type]);
  }

  private columns(): string[] {
    const own = this.kind.type === 'venue' ? [...this.kind.textFields, 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'] : this.kind.textFields;
    const plain = PLAIN_FIELDS[this.kind.table].map((field) => `${field}_plain`);
    return [...POST_COLUMNS.map((c) => `p.${c}`), ...[...own, ...plain].map((c) => `k.${c}`)];
  }

  /**
   * One record by id, with only the id bound and no `limit` (the id is unique): on a SQLite database
   * with planner statistics (`ANALYZE`) SQLite prepares a statement again on every run where a bound
   * value could change its plan (`p.type = ?`, `limit ?`), which cost more than reading the row.
   */
  async findById(id: number): Promise<LinkedRow | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const [row] = await this.base().where('p.id', id).select(this.columns());
    return row ? this.toRow(row) : undefined;
  }

  /** The record of a slug as given, else of its encoded form (text/slugs.ts `slugLookups`). */
  async findBySlug(slug: string): Promise<LinkedRow | undefined> {
    for (const candidate of slugLookups(slug, 'query')) {
      const [row] = await this.base().where('p.slug', candidate).select(this.columns());
      if (row) return this.toRow(row);
    }
    return undefined;
  }

  async findByIds(ids: number[]): Promise<LinkedRow[]> {
    if (ids.length === 0) return [];
    return (await whereIdIn(this.base(), this.db, 'p.id', ids).select(this.columns())).map((row: Record<string, unknown>) => this.toRow(row));
  }

  /**
   * One page of the filtered list and the size of the whole filtered set: in `orderBy`/`direction`,
   * publication date descending by default (docs/plugin-behaviour.md §5.7), then by id in the same
   * direction (docs/contract.md §8).
   */
  async list(filter: LinkedListFilter): Promise<{ rows: LinkedRow[]; total: number }> {
    const query = this.base().whereIn('p.status', filter.statuses);
    whereReadable(query, 'p', filter.reader.scope);
    // posts_modified_index (type, status, modified_utc, id) reads a sync page.
    if (filter.modified) whereModified(query, 'p.modified_utc', filter.modified);
    if (filter.search !== undefined) this.whereSearch(query, filter.search, filter.reader);
    // The events (aliased `alias`) linked to the record. A password-protected event has no links for
    // a caller who may not edit it (its record masks them), so it is left out of every link filter.
    const linkedEvents = (alias: string) => {
      const events = this.db(`${this.kind.linkTable} as l${alias}`)
        .join(`posts as ${alias}`, `${alias}.id`, `l${alias}.event_id`)
        .whereRaw(`l${alias}.${this.kind.linkColumn} = p.id`);
      const linksHidden = protectedTextHidden(alias, filter.reader.protectedText);
      if (linksHidden) events.whereNot(linksHidden);
      return events;
    };
    if (filter.eventId !== undefined) query.whereExists(linkedEvents('ee').where('ee.id', filter.eventId));
    if (filter.eventHidden) query.whereRaw('1 = 0');
    if (filter.hasEvents !== undefined) {
      // Events the caller may read (the plugin counts any event but drafts and pending ones).
      const linked = linkedEvents('eh').whereNotIn('eh.status', EVENT_STATUSES_NOT_COUNTED);
      whereReadable(linked, 'eh', filter.reader.scope);
      if (filter.hasEvents) query.whereExists(linked);
      else query.whereNotExists(linked);
    }
    if (filter.upcomingFrom !== undefined) {
      // One EXISTS over every upcoming event, whatever their number (the plugin only looks at the first page).
      const upcoming = linkedEvents('eu')
        .join('events as xu', 'xu.post_id', 'eu.id')
        .where('xu.start_utc', '>=', filter.upcomingFrom)
        .whereIn('eu.status', filter.upcomingStatuses ?? ['publish']);
      whereReadable(upcoming, 'eu', filter.reader.scope);
      query.whereExists(upcoming);
    }
    const page = query.clone().select(this.columns());
    const { by, direction } = listOrder<LinkedOrderBy>(filter.orderBy, filter.direction, { by: 'date', direction: 'desc' });
    if (by === 'date') page.orderBy('p.date_utc', direction);
    else if (by === 'modified') page.orderBy('p.modified_utc', direction);
    // Case-insensitive on both engines (MySQL's collation is; SQLite compares bytes), as term names.
    else if (by === 'title') page.orderByRaw(`lower(p.title) ${direction === 'desc' ? 'desc' : 'asc'}`);
    const rows = await page.orderBy('p.id', direction).limit(filter.limit).offset(filter.offset);
    // The total does not depend on the order.
    const { limit, offset, reader, orderBy: _orderBy, direction: _direction, ...rest } = filter;
    const key = JSON.stringify({ ...rest, upcomingFrom: rest.upcomingFrom !== undefined, reader: reader.key });
    const total =
      totalFromPage(rows.length, limit, offset) ??
      (await listTotal(
        this.totals,
        `${this.kind.type} ${key}`,
        async () => {
          const [{ n }] = await query.clone().count({ n: '*' });
          return Number(n);
        },
        filter.upcomingFrom !== undefined ? eventStartsMoving(this.db, filter.upcomingFrom) : undefined,
      ));
    return { rows: rows.map((row: Record<string, unknown>) => this.toRow(row)), total };
  }

  /**
   * The plugin's venue/organizer search: words are runs of ASCII letters, digits and hyphens; a
   * record matches when one of its fields contains every word (case-insensitive).
   */
  private whereSearch(query: Knex.QueryBuilder, search: string, reader: Reader): void {
    const words = (search.match(/[A-Za-z0-9-]+/g) ?? []).map((w) => `%${likeEscape(w.toLowerCase())}%`);
    if (words.length === 0) return;
    const allWordsIn = (q: Knex.QueryBuilder, field: string) => q.where((all) => words.forEach((word) => all.whereRaw(`lower(${field}) like ? escape '!'`, [word])));
    // Fields behind a password only count for callers who could read them; the name always does.
    const hidden = protectedTextHidden('p', reader.protectedText);
    const others = ['p.description', 'p.excerpt', ...this.kind.searchFields.map((f) => `k.${f}`)];
    query.where((any) => {
      any.orWhere((q) => allWordsIn(q, 'p.title'));
      any.orWhere((q) => {
        q.where((fields) => others.forEach((field) => fields.orWhere((f) => allWordsIn(f, field))));
        if (hidden) q.whereNot(hidden);
      });
    });
  }

  /**
   * Duplicate detection on create (docs/plugin-behaviour.md §6.3): the oldest record, not trashed,
   * readable by the caller and not password-protected from them, whose title and every other compared
   * field that was sent non-empty
   * equal the sent values (case-insensitive).
   */
  async findDuplicate(title: string, sent: Record<string, string>, reader: Reader): Promise<LinkedRow | undefined> {
    const query = this.base().whereNot('p.status', 'trash').whereRaw('lower(p.title) = ?', [title.toLowerCase()]);
    // Only records the caller may read in full: a match would confirm the fields a password hides.
    whereReadable(query, 'p', reader.scope);
    const hidden = protectedTextHidden('p', reader.protectedText);
    if (hidden) query.whereNot(hidden);
    for (const [field, value] of Object.entries(sent)) {
      if (value === '') continue;
      const column = field === 'description' ? 'p.description' : `k.${field}`;
      query.whereRaw(`lower(${column}) = ?`, [value.toLowerCase()]);
    }
    // The oldest is the smallest id. Ordered by the kind's own copy of the id (the join makes them
    // equal) so that MariaDB can read the kind's table first in id order; ordered by `p.id` it chose
    // a temporary table and a sort, on disk because of the text columns (Aria), and a Galera node
    // that had just served as IST donor crashed freeing such a table (docs/mysql-and-cluster.md "A MariaDB bug to know").
    const row = await query.orderBy('k.post_id').first(this.columns());
    return row ? this.toRow(row) : undefined;
  }

  /** The oldest record, not trashed and readable by the caller, whose own `field` equals `value` (case-insensitive): an import's match by e-mail. */
  async findByOwnField(field: 'email', value: string, reader: Reader): Promise<LinkedRow | undefined> {
    const query = this.base().whereNot('p.status', 'trash').whereRaw(`lower(k.${field}) = ?`, [value.toLowerCase()]);
    whereReadable(query, 'p', reader.scope);
    const row = await query.orderBy('k.post_id').first(this.columns());
    return row ? this.toRow(row) : undefined;
  }

  async create(columns: PostColumns, baseSlug: string, own: KindColumns, id?: number): Promise<number> {
    return this.posts.insert(
      this.kind.type,
      columns,
      baseSlug,
      async (newId) => {
        await requireTransaction(this.db)(this.kind.table).insert({ ...own, ...plainColumnsOf(this.kind.table, own), post_id: newId });
      },
      id,
    );
  }

  async update(post: PostRow, columns: Partial<PostColumns>, newBaseSlug: string | undefined, own: KindColumns, expected?: number): Promise<void> {
    await this.posts.update(post, columns, newBaseSlug, expected);
    if (Object.keys(own).length)
      await requireTransaction(this.db)(this.kind.table)
        .where('post_id', post.id)
        .update({ ...own, ...plainColumnsOf(this.kind.table, own) });
    noteRecordChange(this.db, post.type, post.id);
  }

  /** Moves a record to the trash and unlinks it from every event (docs/plugin-behaviour.md §5.15). */
  async trash(row: PostRow, modified: Partial<PostColumns>, expected?: number): Promise<void> {
    await this.posts.trash(row, modified, expected);
    await requireTransaction(this.db)(this.kind.linkTable).where(this.kind.linkColumn, row.id).delete();
  }
}
