import type { Knex } from 'knex';
import type { User } from '../auth/capabilities.js';
import { totalFromPage, totalsOf, type Moving } from '../db/versioned-cache.js';
import { likeEscape } from '../text/slugs.js';
import { POST_COLUMNS, insertPost, toPostRow, updatePost, type PostColumns, type PostRow } from '../posts/repository.js';
import { protectedTextHidden, readerKey, whereReadable } from '../posts/visibility.js';
import type { LinkedKind } from './kinds.js';

/** A venue or organizer: the shared post columns plus the type's own. */
export interface LinkedRow extends PostRow {
  /** The type's text fields (`address`, `phone`, `email`...), `''` when empty. */
  fields: Record<string, string>;
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
  user: User | undefined;
  search?: string;
  eventId?: number;
  hasEvents?: boolean;
  /** `only_with_upcoming`: linked to an event the caller may see that starts at or after this UTC time. */
  upcomingFrom?: string;
  upcomingStatuses?: string[];
  limit: number;
  offset: number;
}

/** Statuses of events that count for `has_events` (plugin-behaviour §6.4: not drafts or pending). */
const EVENT_STATUSES_NOT_COUNTED = ['draft', 'pending'];

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
  constructor(
    private readonly db: Knex,
    private readonly kind: LinkedKind,
  ) {}

  private toRow(row: Record<string, unknown>): LinkedRow {
    const fields: Record<string, string> = {};
    for (const field of this.kind.textFields) fields[field] = String(row[field] ?? '');
    return {
      ...toPostRow(row),
      fields,
      showMap: row.show_map === undefined ? true : Boolean(Number(row.show_map)),
      showMapLink: row.show_map_link === undefined ? true : Boolean(Number(row.show_map_link)),
      geoLat: row.geo_lat === null || row.geo_lat === undefined ? null : Number(row.geo_lat),
      geoLng: row.geo_lng === null || row.geo_lng === undefined ? null : Number(row.geo_lng),
    };
  }

  /** posts ⨝ the kind's table, aliased `p` and `k`. */
  private base(db: Knex = this.db): Knex.QueryBuilder {
    return db('posts as p').join(`${this.kind.table} as k`, 'k.post_id', 'p.id').where('p.type', this.kind.type);
  }

  private columns(): string[] {
    const own = this.kind.type === 'venue' ? [...this.kind.textFields, 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'] : this.kind.textFields;
    return [...POST_COLUMNS.map((c) => `p.${c}`), ...own.map((c) => `k.${c}`)];
  }

  async findById(id: number, db: Knex = this.db): Promise<LinkedRow | undefined> {
    const row = await this.base(db).where('p.id', id).first(this.columns());
    return row ? this.toRow(row) : undefined;
  }

  async findBySlug(slug: string): Promise<LinkedRow | undefined> {
    const row = await this.base().where('p.slug', slug).first(this.columns());
    return row ? this.toRow(row) : undefined;
  }

  async findByIds(ids: number[]): Promise<LinkedRow[]> {
    if (ids.length === 0) return [];
    return (await this.base().whereIn('p.id', ids).select(this.columns())).map((row: Record<string, unknown>) => this.toRow(row));
  }

  /** One page of the filtered list and the size of the whole filtered set (post date descending, id as tiebreaker). */
  async list(filter: LinkedListFilter): Promise<{ rows: LinkedRow[]; total: number }> {
    const query = this.base().whereIn('p.status', filter.statuses);
    whereReadable(query, 'p', filter.user);
    if (filter.search !== undefined) this.whereSearch(query, filter.search, filter.user);
    if (filter.eventId !== undefined) {
      query.whereExists(this.db(`${this.kind.linkTable} as le`).whereRaw(`le.${this.kind.linkColumn} = p.id`).where('le.event_id', filter.eventId));
    }
    if (filter.hasEvents !== undefined) {
      const linked = this.db(`${this.kind.linkTable} as lh`)
        .join('posts as eh', 'eh.id', 'lh.event_id')
        .whereRaw(`lh.${this.kind.linkColumn} = p.id`)
        .whereNotIn('eh.status', EVENT_STATUSES_NOT_COUNTED);
      if (filter.hasEvents) query.whereExists(linked);
      else query.whereNotExists(linked);
    }
    if (filter.upcomingFrom !== undefined) {
      // One EXISTS over every upcoming event, whatever their number (the plugin only looks at the first page).
      const upcoming = this.db(`${this.kind.linkTable} as lu`)
        .join('posts as eu', 'eu.id', 'lu.event_id')
        .join('events as xu', 'xu.post_id', 'eu.id')
        .whereRaw(`lu.${this.kind.linkColumn} = p.id`)
        .where('xu.start_utc', '>=', filter.upcomingFrom)
        .whereIn('eu.status', filter.upcomingStatuses ?? ['publish']);
      whereReadable(upcoming, 'eu', filter.user);
      query.whereExists(upcoming);
    }
    const rows = await query.clone().select(this.columns()).orderBy('p.date_utc', 'desc').orderBy('p.id', 'desc').limit(filter.limit).offset(filter.offset);
    const { limit, offset, user, ...rest } = filter;
    const key = JSON.stringify({ ...rest, upcomingFrom: rest.upcomingFrom !== undefined, reader: readerKey(user) });
    const total =
      totalFromPage(rows.length, limit, offset) ??
      (await totalsOf(this.db).get(
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
  private whereSearch(query: Knex.QueryBuilder, search: string, user: User | undefined): void {
    const words = (search.match(/[A-Za-z0-9-]+/g) ?? []).map((w) => `%${likeEscape(w.toLowerCase())}%`);
    if (words.length === 0) return;
    const allWordsIn = (q: Knex.QueryBuilder, field: string) => q.where((all) => words.forEach((word) => all.whereRaw(`lower(${field}) like ? escape '!'`, [word])));
    // Fields behind a password only count for callers who could read them; the name always does.
    const hidden = protectedTextHidden(this.db, 'p', user);
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
   * Duplicate detection on create (plugin-behaviour §6.3): the oldest record, not trashed and
   * readable by the caller, whose title and every other compared field that was sent non-empty
   * equal the sent values (case-insensitive).
   */
  async findDuplicate(title: string, sent: Record<string, string>, user: User | undefined): Promise<LinkedRow | undefined> {
    const query = this.base().whereNot('p.status', 'trash').whereRaw('lower(p.title) = ?', [title.toLowerCase()]);
    whereReadable(query, 'p', user);
    for (const [field, value] of Object.entries(sent)) {
      if (value === '') continue;
      const column = field === 'description' ? 'p.description' : `k.${field}`;
      query.whereRaw(`lower(${column}) = ?`, [value.toLowerCase()]);
    }
    const row = await query.orderBy('p.id').first(this.columns());
    return row ? this.toRow(row) : undefined;
  }

  async create(trx: Knex, columns: PostColumns, baseSlug: string, own: KindColumns): Promise<number> {
    return insertPost(trx, this.kind.type, columns, baseSlug, async (id) => {
      await trx(this.kind.table).insert({ ...own, post_id: id });
    });
  }

  async update(trx: Knex, post: PostRow, columns: Partial<PostColumns>, newBaseSlug: string | undefined, own: KindColumns): Promise<void> {
    await updatePost(trx, post, columns, newBaseSlug);
    if (Object.keys(own).length) await trx(this.kind.table).where('post_id', post.id).update(own);
  }

  /** Moves a record to the trash and unlinks it from every event (plugin-behaviour §5.15). */
  async trash(trx: Knex, row: PostRow, modified: Partial<PostColumns>): Promise<void> {
    await trx('posts').where('id', row.id).update({ ...modified, status: 'trash', trashed_from: row.status });
    await trx(this.kind.linkTable).where(this.kind.linkColumn, row.id).delete();
  }

  /** Deletes a record for good; its row and links go with it (foreign keys cascade). */
  async destroy(trx: Knex, id: number): Promise<void> {
    await trx('posts').where('id', id).delete();
  }
}
