import type { Knex } from 'knex';
import { holdRenderedTexts } from '../db/rendered-texts.js';
import { requireTransaction } from '../db/transactions.js';
import { engineOf } from '../db/engine.js';
import { noteChange } from '../db/change-log.js';
import { indexNewSearchTexts } from '../db/search-index.js';
import { emailKey, loginKey } from '../auth/login-keys.js';
import { chunks, eventCopiesOf, noteRecordChange, type PostType } from './posts.js';
import { refreshLinkTimes } from './term-link-times.js';
import { TermRepository } from './terms.js';
import { timeFormsOf } from '../dates/event-times.js';
import { timeColumnsOf } from './event-rows.js';
import { CATEGORIES, changeTypeOf } from './taxonomies.js';
import { plainColumnsOf, plainCostOf } from '../text/plain-forms.js';

/**
 * The SQL of `cli export` and `cli import` (docs/export-format.md): every table a record lives in,
 * read whole in id order, and written back keeping ids, slugs, dates and versions. What the
 * application derives from those rows (the events' copies of their post's columns, term link times,
 * the search index, term counts, login keys, the change feed) is derived here by the same functions
 * the writes use, never copied from the file. Rows are the tables' own columns; the file's shape is
 * src/ops/portable.ts's business.
 */

export type Row = Record<string, unknown>;

/** The tables of each post type's own columns. */
const OWN_TABLES: Record<PostType, string> = { image: 'images', venue: 'venues', organizer: 'organizers', event: 'events' };

/** The tables whose ids a database hands out: the import continues their counters where the source's stood. */
const COUNTED_TABLES = ['users', 'terms', 'posts'] as const;

/**
 * The plain forms of a post type's own row that a write stores with it (text/plain-forms.ts), and an
 * event's time forms (dates/event-times.ts): never taken from the file.
 */
function ownDerivedColumns(type: PostType, own: Row): Row {
  if (type === 'venue') return plainColumnsOf('venues', own);
  if (type === 'organizer') return plainColumnsOf('organizers', own);
  if (type !== 'event') return {};
  // The cost lists come as JSON text (src/ops/portable.ts).
  const list = (value: unknown) => (typeof value === 'string' && value !== '' ? (JSON.parse(value) as unknown[]).map(String) : []);
  const times = { startLocal: String(own.start_local), endLocal: String(own.end_local), startUtc: String(own.start_utc), endUtc: String(own.end_utc) };
  return {
    cost_plain: plainCostOf(list(own.cost_raw), list(own.cost_values), String(own.currency_symbol ?? ''), String(own.currency_position ?? '')),
    ...timeColumnsOf({ ...times, ...timeFormsOf(times, String(own.timezone)) }),
  };
}

/** Rows per multi-row INSERT: well under SQLite's limit of bound values for the widest table. */
const INSERT_ROWS = 100;

export class PortableRepository {
  constructor(private readonly db: Knex) {}

  /** How many records the database holds (an import needs none). */
  async recordCounts(): Promise<{ users: number; posts: number; terms: number }> {
    const count = async (table: string) => Number((await this.db(table).count({ n: '*' }).first())?.n ?? 0);
    return { users: await count('users'), posts: await count('posts'), terms: await count('terms') };
  }

  /**
   * The id each counted table hands out next. Higher than the highest id when the newest records
   * were deleted: an import that continued from the highest id would give a deleted record's id (one
   * a client may still hold) to a new record.
   */
  async nextIds(): Promise<Record<string, number>> {
    const next: Record<string, number> = {};
    for (const table of COUNTED_TABLES) next[table] = Number((await this.db(table).max({ id: 'id' }).first())?.id ?? 0) + 1;
    if (engineOf(this.db) === 'mysql') {
      // MySQL 8 answers from statistics cached for a day unless told otherwise; MariaDB has no such setting.
      await this.db.raw('SET SESSION information_schema_stats_expiry = 0').catch(() => undefined);
      const rows = await this.db('information_schema.TABLES')
        .whereRaw('TABLE_SCHEMA = DATABASE()')
        .whereIn('TABLE_NAME', COUNTED_TABLES)
        .select('TABLE_NAME as name', 'AUTO_INCREMENT as next');
      for (const row of rows) if (row.next !== null) next[row.name] = Math.max(next[row.name], Number(row.next));
    } else {
      for (const row of await this.db('sqlite_sequence').whereIn('name', COUNTED_TABLES).select('name', 'seq')) next[row.name] = Math.max(next[row.name], Number(row.seq) + 1);
    }
    return next;
  }

  /**
   * Sets the counters to hand out `next` ids (never below what the rows need). On MySQL an ALTER TABLE
   * commits on its own: call it after the import's transaction.
   */
  async continueIds(next: Record<string, number>): Promise<void> {
    for (const table of COUNTED_TABLES) {
      const wanted = Number(next[table] ?? 0);
      if (!Number.isSafeInteger(wanted) || wanted < 1) continue;
      if (engineOf(this.db) === 'mysql') {
        await this.db.raw(`ALTER TABLE \`${table}\` AUTO_INCREMENT = ${wanted}`);
      } else {
        const trx = requireTransaction(this.db);
        await trx('sqlite_sequence')
          .where('name', table)
          .update({ seq: trx.raw('MAX(seq, ?)', [wanted - 1]) });
        await trx.raw('INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)', [table, wanted - 1, table]);
      }
    }
  }

  async users(): Promise<Row[]> {
    return this.db('users').orderBy('id').select('id', 'login', 'role', 'email', 'created_at');
  }

  /** Terms of a taxonomy (`tribe_events_cat` or `post_tag`) in id order. */
  async terms(taxonomy: string): Promise<Row[]> {
    return this.db('terms').where('taxonomy', taxonomy).orderBy('id').select('id', 'name', 'slug', 'description', 'parent', 'name_key', 'published_count', 'version');
  }

  /** How many posts of a type have their own row (what `posts` reads, page by page). */
  async postCount(type: PostType): Promise<number> {
    const row = await this.db('posts as p').join(`${OWN_TABLES[type]} as o`, 'o.post_id', 'p.id').where('p.type', type).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /** Up to `limit` posts of a type after id `after`, with their own table's columns, in id order. */
  async posts(type: PostType, after: number, limit: number): Promise<Row[]> {
    return this.db('posts as p')
      .join(`${OWN_TABLES[type]} as o`, 'o.post_id', 'p.id')
      .where('p.type', type)
      .where('p.id', '>', after)
      .orderBy('p.id')
      .limit(limit)
      .select('p.*', 'o.*');
  }

  /** Some events' linked venue, organizer and term ids, in link order (position, then id). */
  async eventLinks(eventIds: number[]): Promise<Map<number, { venues: number[]; organizers: number[]; categories: number[]; tags: number[] }>> {
    const links = new Map(eventIds.map((id) => [id, { venues: [] as number[], organizers: [] as number[], categories: [] as number[], tags: [] as number[] }]));
    const of = (id: unknown) => links.get(Number(id))!;
    for (const part of chunks(eventIds)) {
      const venues = await this.db('event_venues').whereIn('event_id', part).orderBy(['event_id', 'position', 'venue_id']).select('event_id', 'venue_id');
      for (const row of venues) of(row.event_id).venues.push(Number(row.venue_id));
      const organizers = await this.db('event_organizers').whereIn('event_id', part).orderBy(['event_id', 'position', 'organizer_id']).select('event_id', 'organizer_id');
      for (const row of organizers) of(row.event_id).organizers.push(Number(row.organizer_id));
      const terms = await this.db('event_terms as et')
        .join('terms as t', 't.id', 'et.term_id')
        .whereIn('et.event_id', part)
        .orderBy(['et.event_id', 'et.term_id'])
        .select('et.event_id', 'et.term_id', 't.taxonomy');
      for (const row of terms) (row.taxonomy === CATEGORIES.name ? of(row.event_id).categories : of(row.event_id).tags).push(Number(row.term_id));
    }
    return links;
  }

  /** The rows of the series some events are the first of (a series is named by its first event's id). */
  async series(eventIds: number[]): Promise<Map<number, Row>> {
    const rows: Row[] = [];
    for (const part of chunks(eventIds)) rows.push(...(await this.db('event_series').whereIn('id', part).select('id', 'rules', 'timezone', 'materialised_until', 'horizon_error')));
    return new Map(rows.map((row: Row) => [Number(row.id), row]));
  }

  /** Writes users with their ids, without secrets; the login keys come from the login rule (auth/login-keys.ts). */
  async insertUsers(rows: Row[]): Promise<void> {
    const trx = requireTransaction(this.db);
    const withKeys = rows.map((row) => ({
      ...row,
      login_key: loginKey(String(row.login)),
      email_key: row.email === null || row.email === undefined ? null : emailKey(String(row.email)),
    }));
    for (const part of chunks(withKeys, INSERT_ROWS)) await trx('users').insert(part);
  }

  /** Writes terms with their ids and slugs; counts start at 0 and are counted by `finish`. */
  async insertTerms(taxonomy: string, rows: Row[]): Promise<void> {
    const trx = requireTransaction(this.db);
    for (const part of chunks(rows, INSERT_ROWS)) {
      // Each description's rendered forms, once per distinct text (db/rendered-texts.ts).
      const keys = await holdRenderedTexts(
        trx,
        part.map((row) => ({ field: 'termDescription', text: String(row.description ?? '') })),
      );
      await trx('terms').insert(part.map((row, i) => ({ ...row, ...plainColumnsOf('terms', row), taxonomy, published_count: 0, description_hash: keys[i] })));
    }
    for (const row of rows) noteChange(trx, changeTypeOf(taxonomy), Number(row.id));
  }

  /**
   * Writes posts of one type with their ids, slugs, dates and versions: the `posts` columns in
   * `post`, the own table's in `own`. Events get their copies (eventCopiesOf) and their search text
   * (on SQLite the triggers write it); images their URL's hash.
   */
  async insertPosts(type: PostType, records: Array<{ post: Row; own: Row }>, urlHash: (url: string) => string): Promise<void> {
    const trx = requireTransaction(this.db);
    for (const part of chunks(records, INSERT_ROWS)) {
      // Each text's rendered forms, once per distinct text (db/rendered-texts.ts).
      const keys = await holdRenderedTexts(
        trx,
        part.flatMap(({ post }) => [
          { field: 'description' as const, text: String(post.description ?? '') },
          { field: 'excerpt' as const, text: String(post.excerpt ?? '') },
        ]),
      );
      await trx('posts').insert(part.map(({ post }, i) => ({ ...post, ...plainColumnsOf('posts', post), type, description_hash: keys[2 * i], excerpt_hash: keys[2 * i + 1] })));
      const own = part.map(({ post, own }) => {
        const row: Row = { ...own, ...ownDerivedColumns(type, own), post_id: post.id };
        if (type === 'image') row.url_hash = urlHash(String(own.url));
        if (type === 'event') Object.assign(row, eventCopiesOf({ status: String(post.status), date_utc: String(post.date_utc), modified_utc: String(post.modified_utc) }));
        return row;
      });
      await trx(OWN_TABLES[type]).insert(own);
      if (type === 'event' && engineOf(trx) === 'mysql') {
        // MySQL's search index (db/search-index.ts), for many events per statement; SQLite's
        // triggers wrote its index with the rows.
        await indexNewSearchTexts(
          trx,
          part.map(({ post }) => ({ id: Number(post.id), fields: { title: String(post.title), description: String(post.description), excerpt: String(post.excerpt) } })),
        );
      }
    }
    for (const { post } of records) noteRecordChange(trx, type, Number(post.id));
  }

  /**
   * Writes events' links in multi-row statements: venues and organizers numbered in the given order
   * (each id once, as EventRepository.setLinks numbers them), terms with their copies of the events'
   * times (term-link-times.ts, the rule's own function).
   */
  async insertLinks(links: Array<{ eventId: number; venues: number[]; organizers: number[]; categories: number[]; tags: number[] }>): Promise<void> {
    const trx = requireTransaction(this.db);
    const numbered = (column: string, pick: (l: (typeof links)[number]) => number[]) =>
      links.flatMap((l) => [...new Set(pick(l))].map((id, position) => ({ event_id: l.eventId, [column]: id, position })));
    for (const part of chunks(
      numbered('venue_id', (l) => l.venues),
      INSERT_ROWS,
    ))
      await trx('event_venues').insert(part);
    for (const part of chunks(
      numbered('organizer_id', (l) => l.organizers),
      INSERT_ROWS,
    ))
      await trx('event_organizers').insert(part);
    const terms = links.flatMap((l) => [...new Set([...l.categories, ...l.tags])].map((termId) => ({ event_id: l.eventId, term_id: termId })));
    for (const part of chunks(terms, INSERT_ROWS)) await trx('event_terms').insert(part);
    await refreshLinkTimes(
      trx,
      links.map((l) => l.eventId),
    );
  }

  /** Writes series rows as they were (their occurrences are events of the file). */
  async insertSeries(rows: Row[]): Promise<void> {
    const trx = requireTransaction(this.db);
    for (const part of chunks(rows, INSERT_ROWS)) await trx('event_series').insert(part);
  }

  /** Counts every term's published events (terms.ts recount), once all links are written. */
  async finish(): Promise<void> {
    const trx = requireTransaction(this.db);
    await new TermRepository(trx).recount((await trx('terms').pluck('id')).map(Number));
  }
}
