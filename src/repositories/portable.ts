import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { engineOf } from '../db/engine.js';
import { noteChange } from '../db/change-log.js';
import { indexSearchText } from '../db/search-index.js';
import { emailKey, loginKey } from '../auth/login-keys.js';
import { chunks, eventCopiesOf, noteRecordChange, PostRepository, type PostType } from './posts.js';
import { EventRepository } from './events.js';
import { TermRepository, changeTypeOf } from './terms.js';
import { CATEGORIES, TAGS } from './taxonomies.js';

/**
 * The SQL of `cli export` and `cli import` (docs/export-format.md): every table a record lives in,
 * read whole in id order, and written back keeping ids, slugs, dates and versions. What the
 * application derives from those rows (the events' copies of their post's columns, term link times,
 * the search index, term counts, login keys, the change feed) is derived here by the same functions
 * the writes use, never copied from the file. Rows are the tables' own columns; the file's shape is
 * src/portable.ts's business.
 */

export type Row = Record<string, unknown>;

/** The tables of each post type's own columns. */
const OWN_TABLES: Record<PostType, string> = { image: 'images', venue: 'venues', organizer: 'organizers', event: 'events' };

/** Columns of the own tables that the import derives instead of reading them from the file. */
const DERIVED = new Set(['post_id', 'url_hash', 'post_status', 'post_date_utc', 'post_modified_utc']);

/** The tables whose ids a database hands out: the import continues their counters where the source's stood. */
export const COUNTED_TABLES = ['users', 'terms', 'posts'] as const;

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

  /** Posts of a type with their own table's columns (`own_*`), in id order. */
  async posts(type: PostType): Promise<Row[]> {
    return this.db('posts as p').join(`${OWN_TABLES[type]} as o`, 'o.post_id', 'p.id').where('p.type', type).orderBy('p.id').select('p.*', 'o.*');
  }

  /** Each event's linked venue, organizer and term ids, in link order (position, then id). */
  async eventLinks(): Promise<Map<number, { venues: number[]; organizers: number[]; categories: number[]; tags: number[] }>> {
    const links = new Map<number, { venues: number[]; organizers: number[]; categories: number[]; tags: number[] }>();
    const of = (id: unknown) => {
      const key = Number(id);
      if (!links.has(key)) links.set(key, { venues: [], organizers: [], categories: [], tags: [] });
      return links.get(key)!;
    };
    for (const row of await this.db('event_venues').orderBy(['event_id', 'position', 'venue_id']).select('event_id', 'venue_id'))
      of(row.event_id).venues.push(Number(row.venue_id));
    for (const row of await this.db('event_organizers').orderBy(['event_id', 'position', 'organizer_id']).select('event_id', 'organizer_id'))
      of(row.event_id).organizers.push(Number(row.organizer_id));
    const terms = await this.db('event_terms as et')
      .join('terms as t', 't.id', 'et.term_id')
      .orderBy(['et.event_id', 'et.term_id'])
      .select('et.event_id', 'et.term_id', 't.taxonomy');
    for (const row of terms) (row.taxonomy === CATEGORIES.name ? of(row.event_id).categories : of(row.event_id).tags).push(Number(row.term_id));
    return links;
  }

  /** The recurring series' rows by id (the id of their first event). */
  async series(): Promise<Map<number, Row>> {
    const rows = await this.db('event_series').orderBy('id').select('id', 'rules', 'timezone', 'materialised_until', 'horizon_error');
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
    for (const part of chunks(rows, INSERT_ROWS)) await trx('terms').insert(part.map((row) => ({ ...row, taxonomy, published_count: 0 })));
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
      await trx('posts').insert(part.map(({ post }) => ({ ...post, type })));
      const own = part.map(({ post, own }) => {
        const row: Row = { ...own, post_id: post.id };
        for (const column of DERIVED) if (column !== 'post_id') delete row[column];
        if (type === 'image') row.url_hash = urlHash(String(own.url));
        if (type === 'event') Object.assign(row, eventCopiesOf({ status: String(post.status), date_utc: String(post.date_utc), modified_utc: String(post.modified_utc) }));
        return row;
      });
      await trx(OWN_TABLES[type]).insert(own);
    }
    for (const { post } of records) {
      if (type === 'event')
        await indexSearchText(trx, [Number(post.id)], { title: String(post.title), description: String(post.description), excerpt: String(post.excerpt) }, true);
      noteRecordChange(trx, type, Number(post.id));
    }
  }

  /** Writes an event's links through the event repository (link order, term link times). */
  async insertLinks(eventId: number, links: { venues: number[]; organizers: number[]; categories: number[]; tags: number[] }): Promise<void> {
    const events = new EventRepository(this.db, new PostRepository(this.db));
    if (links.venues.length) await events.setLinks(eventId, 'event_venues', 'venue_id', links.venues, true);
    if (links.organizers.length) await events.setLinks(eventId, 'event_organizers', 'organizer_id', links.organizers, true);
    if (links.categories.length) await events.setTerms(eventId, CATEGORIES.name, links.categories, true);
    if (links.tags.length) await events.setTerms(eventId, TAGS.name, links.tags, true);
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
