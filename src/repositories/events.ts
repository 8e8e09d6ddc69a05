import { slugLookups } from '../text/slugs.js';
import type { Knex } from 'knex';
import { listTotal, totalFromPage, type VersionedCache } from '../db/versioned-cache.js';
import { chunks, eventCopiesOf, type PostColumns, type PostRepository, type PostRow } from './posts.js';
import { engineOf } from '../db/engine.js';
import { requireTransaction } from '../db/transactions.js';
import { noteChange } from '../db/change-log.js';
import { linkTimesOf, movesTimes, refreshLinkTimes } from './term-link-times.js';
import { lockTermRows } from './terms.js';
import { filteredEvents, totalKey, type EventListFilter } from './event-lists.js';
import { EVENT_SELECT as SELECT, toEventRow, type EventColumns, type EventRow } from './event-rows.js';
import { slicesInTurns } from '../core/loop-turns.js';
import { whereIdIn } from '../db/id-lists.js';

export type { EventColumns, EventRow } from './event-rows.js';
export { TIME_COLUMNS, timeColumnsOf } from './event-rows.js';

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

/** Rows of a list page read in one statement at most (`EventRepository.list`): more are read in slices. */
const ROWS_PER_SLICE = 100;

/** Events among posts: written into the statement, not bound (see `EventRepository.findById`). */
const EVENT_TYPE = "p.type = 'event'";

/** An event's row and its links, read in one statement (`EventRepository.findWithLinks`). */
export type EventWithLinks = EventRow & { links: EventLink[] };

/**
 * One JSON array per kind of link, of `[id, position, version, count]` arrays, in link order: the
 * same rows as `EventRepository.links` reads, aggregated in the event's own statement. SQLite's
 * `json_group_array` gives `[]` for no rows, MariaDB's `JSON_ARRAYAGG` gives NULL (read as `[]`).
 * MariaDB bounds `JSON_ARRAYAGG` by `group_concat_max_len` (1 MB by default): an event's links (the
 * document allows at most a few hundred, each under 40 bytes here) stay far below it.
 */
function linkSubqueries(db: Knex): Knex.Raw[] {
  const aggregate = engineOf(db) === 'mysql' ? 'json_arrayagg' : 'json_group_array';
  const linked = (table: string, column: string, alias: string) =>
    db.raw(`(select ${aggregate}(json_array(l.${column}, l.position, v.version, 0)) from ${table} l join posts v on v.id = l.${column} where l.event_id = x.post_id) as ${alias}`);
  return [
    linked('event_venues', 'venue_id', 'venue_links'),
    linked('event_organizers', 'organizer_id', 'organizer_links'),
    db.raw(
      `(select ${aggregate}(json_array(l.term_id, 0, t.version, t.published_count)) from event_terms l join terms t on t.id = l.term_id where l.event_id = x.post_id) as term_links`,
    ),
  ];
}

/** The text of `findWithLinks`' statement, by engine and the column it finds the event by. */
const withLinksStatements = new Map<string, string>();

function toEventWithLinks(row: Record<string, unknown>): EventWithLinks {
  const eventId = Number(row.id);
  const links: EventLink[] = [];
  for (const [kind, column] of [
    ['venue', 'venue_links'],
    ['organizer', 'organizer_links'],
    ['term', 'term_links'],
  ] as const) {
    const value = row[column];
    const items = (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as unknown[][];
    for (const [id, position, version, count] of items) links.push({ eventId, kind, id: Number(id), position: Number(position), version: Number(version), count: Number(count) });
  }
  // Added to the new row rather than spread with it (see `toEventRow`).
  return Object.assign(toEventRow(row), { links: sortLinks(links) });
}

/** Link order: venues and organizers by position, then id (`EventRepository.links`). */
function sortLinks(links: EventLink[]): EventLink[] {
  return links.sort((a, b) => a.position - b.position || a.id - b.id);
}

/** All Knex for events and their links. */
export class EventRepository {
  /** @param totals the app's cache of list totals (db/versioned-cache.ts): reads of requests only. */
  constructor(
    private readonly db: Knex,
    private readonly posts: PostRepository,
    private readonly totals?: VersionedCache<number>,
  ) {}

  /** posts ⨝ events ⟕ event_series, events only (the type written out: see `findById`). */
  private base(): Knex.QueryBuilder {
    return this.db('posts as p').join('events as x', 'x.post_id', 'p.id').leftJoin('event_series as s', 's.id', 'x.series_id').whereRaw(EVENT_TYPE);
  }

  /**
   * One event by id, with only the id bound and no `limit` (the id is unique): on a SQLite database
   * with planner statistics (`ANALYZE`, as the benchmark's seeder runs it) SQLite prepares a
   * statement again on every run where a bound value could change its plan (`p.type = ?`,
   * `limit ?`), which cost more than reading the row.
   */
  async findById(id: number): Promise<EventRow | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const [row] = await this.base().where('p.id', id).select(SELECT);
    return row ? toEventRow(row) : undefined;
  }

  /** Events by id, in one query per 500 ids (ids that are not events are left out). */
  async findByIds(ids: number[]): Promise<EventRow[]> {
    const rows: EventRow[] = [];
    for (const part of chunks(ids.filter((id) => Number.isSafeInteger(id)))) rows.push(...(await whereIdIn(this.base(), this.db, 'p.id', part).select(SELECT)).map(toEventRow));
    return rows;
  }

  /** The event of a slug as given, else of its encoded form (text/slugs.ts `slugLookups`). */
  async findBySlug(slug: string): Promise<EventRow | undefined> {
    for (const candidate of slugLookups(slug, 'query')) {
      const [row] = await this.base().where('p.slug', candidate).select(SELECT);
      if (row) return toEventRow(row);
    }
    return undefined;
  }

  /**
   * An event with its links (what `links` reads), in one statement: what a single read's record is
   * built from, besides the rows the links point to (records/related-rows.ts).
   */
  async findWithLinks(id: number): Promise<EventWithLinks | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    return this.oneWithLinks('p.id', id);
  }

  /** `findWithLinks` by slug, as `findBySlug` finds it. */
  async findBySlugWithLinks(slug: string): Promise<EventWithLinks | undefined> {
    for (const candidate of slugLookups(slug, 'query')) {
      const found = await this.oneWithLinks('p.slug', candidate);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * The statement of `findWithLinks`, its text built once per engine and column, with only the id or
   * slug bound (see `findById`: a bound type and limit tripled its cost).
   */
  private async oneWithLinks(column: 'p.id' | 'p.slug', value: number | string): Promise<EventWithLinks | undefined> {
    const key = `${engineOf(this.db)} ${column}`;
    let sql = withLinksStatements.get(key);
    if (sql === undefined) {
      sql = this.base()
        .whereRaw(`${column} = ?`, [value])
        .select([...SELECT, ...linkSubqueries(this.db)])
        .toSQL().sql;
      withLinksStatements.set(key, sql);
    }
    const result = await this.db.raw(sql, [value]);
    // A raw statement's answer: the rows on SQLite, [rows, fields] on MySQL. The id and the slug are unique among events.
    const [row] = (engineOf(this.db) === 'mysql' ? result[0] : result) as Array<Record<string, unknown>>;
    return row ? toEventWithLinks(row) : undefined;
  }

  /**
   * One page of the list and the size of the filtered set (repositories/event-lists.ts): one query
   * for the page, one for the count. A page of more than ROWS_PER_SLICE events (an iCalendar feed)
   * is read as its ids first, then its rows in slices (`rowsInSlices`).
   */
  async list(filter: EventListFilter): Promise<{ rows: EventRow[]; total: number }> {
    const listed = await filteredEvents(this.db, filter);
    const page = listed.query.clone();
    if (!listed.postsJoined) page.join('posts as p', 'p.id', 'x.post_id');
    const sliced = filter.limit > ROWS_PER_SLICE;
    // The ids alone need no series: its columns are read with the rows.
    if (sliced) page.select('p.id');
    else page.leftJoin('event_series as s', 's.id', 'x.series_id').select(SELECT);
    listed.orderPage(page);
    // A term filter with few links inside the window bounds the whole set, which the page reads to
    // sort it anyway: the page counts it too, one statement instead of two (docs/performance.md "What limits it").
    const countedByPage = filter.termLists.length > 0 && (await listed.fewLinked());
    if (countedByPage) page.select(this.db.raw('count(*) over () as list_total'));
    const found: Array<Record<string, unknown>> = await page;
    const rows = sliced
      ? await this.rowsInSlices(
          listed.query,
          listed.postsJoined,
          found.map((row) => Number(row.id)),
        )
      : found.map((row) => toEventRow(row));
    // Known from the page itself, less the events a slice left out (they stopped matching after the
    // ids were read); counted afresh otherwise, after the rows, so it already leaves them out.
    const fromPage = totalFromPage(found.length, filter.limit, filter.offset) ?? (countedByPage && found.length ? Number(found[0].list_total) : undefined);
    const total =
      fromPage !== undefined
        ? fromPage - (found.length - rows.length)
        : await listTotal(this.totals, `events ${totalKey(filter)}`, async () => {
            const [{ n }] = await listed.query.clone().count({ n: '*' });
            return Number(n);
          });
    return { rows, total };
  }

  /**
   * The rows of a page whose ids were read first, in their order, ROWS_PER_SLICE per statement with a
   * turn of the event loop between statements once they have held it for TURN_BUDGET_MS (docs/limits.md
   * "Large pages are read in slices"): on SQLite, whose driver reads on the loop, 2,000 events with long
   * descriptions in one statement held it for hundreds of milliseconds. Each slice is read through the
   * list's whole filter again, so an event that stopped matching it in between (trashed, unpublished,
   * moved out of the window) is left out rather than shown.
   */
  private async rowsInSlices(filtered: Knex.QueryBuilder, postsJoined: boolean, ids: number[]): Promise<EventRow[]> {
    const byId = new Map<number, EventRow>();
    await slicesInTurns(ids, ROWS_PER_SLICE, async (part) => {
      const slice = filtered.clone();
      if (!postsJoined) slice.join('posts as p', 'p.id', 'x.post_id');
      whereIdIn(slice.leftJoin('event_series as s', 's.id', 'x.series_id'), this.db, 'x.post_id', part).select(SELECT);
      for (const row of (await slice) as Array<Record<string, unknown>>) byId.set(Number(row.id), toEventRow(row));
    });
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async create(columns: PostColumns, baseSlug: string, own: EventColumns, id?: number): Promise<number> {
    return this.posts.insert(
      'event',
      columns,
      baseSlug,
      async (newId) => {
        await requireTransaction(this.db)('events').insert({ ...own, post_id: newId, ...eventCopiesOf(columns) });
      },
      id,
    );
  }

  /** Updates the shared columns (posts.update keeps the copies) and the event's own. */
  async update(post: PostRow, columns: Partial<PostColumns>, newBaseSlug: string | undefined, own: EventColumns, expected?: number): Promise<void> {
    // The event's own columns go with its copies of the post's (one UPDATE of `events`).
    await this.posts.update(post, columns, newBaseSlug, expected, own);
    const trx = requireTransaction(this.db);
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
   * Every term an event links to, whatever its status, for the terms a write locks first
   * (domain/events/writes.ts `TermCounting`). A plain read: a locking one would also lock the gap
   * where the next event's links go, which a writer of that event holding its terms then waits for
   * (a deadlock seen in test/api/terms/counts.test.ts). The caller holds the event's row, so no other
   * write changes these links meanwhile.
   */
  async linkedTermIds(eventId: number): Promise<number[]> {
    return (await requireTransaction(this.db)('event_terms').where('event_id', eventId).pluck('term_id')).map(Number);
  }

  /**
   * The terms an event counts for in its terms' `count` (published events only), read under a lock
   * on the event's row on MySQL, so that concurrent writes to one event adjust the counts one after
   * the other from what the previous one left. (SQLite runs one write transaction at a time.)
   *
   * On MySQL the terms come first: the locking read of the links also locks the gap where the next
   * event's links go, and a writer of that event that holds one of these terms waits for that gap
   * while this transaction would wait for the term (a deadlock). So the terms the links name in a
   * plain read are locked before the locking read, as every write takes them (terms, then links); a
   * term the locking read finds beyond those (a link committed since this transaction's snapshot) is
   * locked after it.
   */
  async countedTerms(eventId: number): Promise<number[]> {
    const trx = requireTransaction(this.db);
    const locking = engineOf(trx) === 'mysql';
    const post = trx('posts').where('id', eventId);
    const status = await (locking ? post.forUpdate() : post).first('status');
    if (status?.status !== 'publish') return [];
    const links = () => trx('event_terms').where('event_id', eventId);
    if (!locking) return (await links().pluck('term_id')).map(Number);
    const seen = (await links().pluck('term_id')).map(Number);
    await lockTermRows(trx, seen);
    const counted = (await links().forUpdate().pluck('term_id')).map(Number);
    await lockTermRows(
      trx,
      counted.filter((id) => !seen.includes(id)),
    );
    return counted;
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
        whereIdIn(this.db(`${table} as l`).join('posts as p', 'p.id', `l.${column}`), this.db, 'l.event_id', part).select(
          'l.event_id',
          this.db.raw(`'${kind}' as kind`),
          { id: `l.${column}` },
          'l.position',
          'p.version',
          this.db.raw('0 as count'),
        );
      const rows = await linked('event_venues', 'venue_id', 'venue').unionAll(
        [
          linked('event_organizers', 'organizer_id', 'organizer'),
          whereIdIn(this.db('event_terms as l').join('terms as t', 't.id', 'l.term_id'), this.db, 'l.event_id', part).select(
            'l.event_id',
            this.db.raw("'term' as kind"),
            { id: 'l.term_id' },
            this.db.raw('0 as position'),
            't.version',
            { count: 't.published_count' },
          ),
        ],
        false,
      );
      for (const row of rows) {
        links.push({ eventId: Number(row.event_id), kind: row.kind, id: Number(row.id), position: Number(row.position), version: Number(row.version), count: Number(row.count) });
      }
    }
    return sortLinks(links);
  }
}
