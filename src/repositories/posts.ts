import type { Knex } from 'knex';
import type { components } from '../../generated/openapi.js';
import { whereSlugFamily, withUniqueSlug } from './unique-slugs.js';
import { requireTransaction } from '../db/transactions.js';
import { readDataVersion } from '../db/data-version.js';
import { noteChange } from '../db/change-log.js';
import { RecordGone, StaleVersion } from '../db/errors.js';
import { indexSearchText, SEARCHED_FIELDS, unindexSearchText } from '../db/search-index.js';
import { TEXT_LIMITS, boundedHtml, boundedText } from '../text/limits.js';
import { idsPresentNow, whereIdIn } from '../db/id-lists.js';
import { loadRenderedTexts, namedRenderedTexts, releaseRenderedTexts, textFieldsOf, textKeyColumns } from '../db/rendered-texts.js';
import { RenderedTexts, type RenderedForms } from '../text/rendered-forms.js';
import { plainColumnsOf } from '../text/plain-forms.js';

export type PostType = 'event' | 'venue' | 'organizer' | 'image';

/** The columns every post type shares (the `posts` registry table), with types cast. */
export interface PostRow {
  id: number;
  type: PostType;
  status: string;
  authorId: number | null;
  slug: string;
  title: string;
  /** The title's plain form, stored when written (text/plain-forms.ts); null for a row written past the repositories. */
  titlePlain: string | null;
  description: string;
  excerpt: string;
  /** The keys of the description's and excerpt's rendered forms (db/rendered-texts.ts); null for an empty text. */
  descriptionHash: string | null;
  excerptHash: string | null;
  password: string | null;
  imageId: number | null;
  date: string;
  dateUtc: string;
  modified: string;
  modifiedUtc: string;
  /** The status before the trash, while trashed (rights over it follow that status). */
  trashedFrom: string | null;
  /** Grows by one on every write of the post (docs/contract.md §10). */
  version: number;
}

/** The `posts` columns as written by the repositories. */
export interface PostColumns {
  status: string;
  author_id: number | null;
  title: string;
  description: string;
  excerpt: string;
  password: string | null;
  image_id: number | null;
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
}

export const POST_COLUMNS = [
  'id',
  'type',
  'status',
  'author_id',
  'slug',
  'title',
  'title_plain',
  'description',
  'excerpt',
  'description_hash',
  'excerpt_hash',
  'password',
  'image_id',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'trashed_from',
  'version',
];

export function toPostRow(row: Record<string, unknown>): PostRow {
  return {
    id: Number(row.id),
    type: row.type as PostType,
    status: String(row.status),
    authorId: row.author_id === null || row.author_id === undefined ? null : Number(row.author_id),
    slug: String(row.slug),
    // Within the limits whatever was stored (text/limits.ts): a row written before them cannot
    // make a reply too large.
    title: boundedText(String(row.title), TEXT_LIMITS.title),
    titlePlain: row.title_plain === null || row.title_plain === undefined ? null : String(row.title_plain),
    description: boundedHtml(String(row.description), TEXT_LIMITS.description),
    excerpt: boundedHtml(String(row.excerpt), TEXT_LIMITS.excerpt),
    descriptionHash: row.description_hash === null || row.description_hash === undefined ? null : String(row.description_hash),
    excerptHash: row.excerpt_hash === null || row.excerpt_hash === undefined ? null : String(row.excerpt_hash),
    password: row.password === null || row.password === undefined || row.password === '' ? null : String(row.password),
    imageId: row.image_id === null || row.image_id === undefined ? null : Number(row.image_id),
    date: String(row.date),
    dateUtc: String(row.date_utc),
    modified: String(row.modified),
    modifiedUtc: String(row.modified_utc),
    trashedFrom: row.trashed_from === null || row.trashed_from === undefined ? null : String(row.trashed_from),
    version: Number(row.version ?? 1),
  };
}

/** Slugs of a type that start with `base` (candidates for clashes). */
function takenSlugs(db: Knex, type: PostType, exceptId?: number) {
  return async (base: string): Promise<string[]> => {
    const query = whereSlugFamily(db('posts').where('type', type), 'slug', base);
    if (exceptId !== undefined) query.whereNot('id', exceptId);
    return query.pluck('slug');
  };
}

/**
 * The copies of `posts` columns that events keep on their own row, so that lists filter, order and
 * count from the `events` index alone: the status, the publication date and the last modification
 * date. The one place they are derived; the repositories, the benchmark's seeder and the test
 * fixtures all write them through it.
 */
export function eventCopiesOf(columns: Partial<Pick<PostColumns, 'status' | 'date_utc' | 'modified_utc'>>): {
  post_status?: string;
  post_date_utc?: string;
  post_modified_utc?: string;
} {
  return {
    ...(columns.status === undefined ? {} : { post_status: columns.status }),
    ...(columns.date_utc === undefined ? {} : { post_date_utc: columns.date_utc }),
    ...(columns.modified_utc === undefined ? {} : { post_modified_utc: columns.modified_utc }),
  };
}

export type ImageRecord = components['schemas']['Image'];

/** The registry entry of an id in the shared post ID space. */
interface PostHeader {
  id: number;
  type: string;
  status: string;
  authorId: number | null;
  password: string | null;
}

/**
 * The shared `posts` registry: lookups across types, and the writes every type shares (insert under a
 * unique slug, update, trash, delete), each keeping the events' copies (eventCopiesOf) in step.
 */
export class PostRepository {
  constructor(private readonly db: Knex) {}

  /** Any post by id, whatever its type. */
  async find(id: number): Promise<PostRow | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) return undefined;
    const row = await this.db('posts').where('id', id).first(POST_COLUMNS);
    return row ? toPostRow(row) : undefined;
  }

  /**
   * The venues and organizers an event links that are drafts, pending or scheduled: those a write
   * that leaves the event published publishes (domain/events/writes.ts `publishLinkedDrafts`).
   */
  async unpublishedLinkedTo(eventId: number): Promise<PostRow[]> {
    const trx = requireTransaction(this.db);
    const rows = await trx('posts')
      .where((q) =>
        q
          .whereIn('id', trx('event_venues').where('event_id', eventId).select('venue_id'))
          .orWhereIn('id', trx('event_organizers').where('event_id', eventId).select('organizer_id')),
      )
      .whereIn('status', ['draft', 'pending', 'future'])
      .orderBy('id')
      .select(POST_COLUMNS);
    return rows.map(toPostRow);
  }

  /** Which of these posts exist now, past the transaction's snapshot (db/id-lists.ts `idsPresentNow`). */
  presentNow(ids: readonly number[]): Promise<Set<number>> {
    return idsPresentNow(this.db, 'posts', ids);
  }

  /** What an id names (an event, venue, organizer or image), or undefined. */
  async header(id: number): Promise<PostHeader | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = await this.db('posts').where({ id }).first('id', 'type', 'status', 'author_id', 'password');
    return row
      ? { id: Number(row.id), type: row.type, status: row.status, authorId: row.author_id === null ? null : Number(row.author_id), password: row.password || null }
      : undefined;
  }

  /**
   * Inserts a post under the first free slug of its type at or after `baseSlug` (unique under
   * concurrent creates too), then lets `withRow` write the type's own row. Returns the id. `id`: the
   * id it must have (an import keeping a source's ids, docs/importing.md), free as the caller checked.
   */
  async insert(type: PostType, columns: PostColumns, baseSlug: string, withRow: (id: number) => Promise<void>, id?: number): Promise<number> {
    const trx = requireTransaction(this.db);
    const kept = id === undefined ? {} : { id, version: await keptIdVersion(trx) };
    // The description's and excerpt's forms, rendered once per distinct text (db/rendered-texts.ts), and the title's plain form.
    Object.assign(kept, await textKeyColumns(trx, columns), plainColumnsOf('posts', columns));
    const newId = await withUniqueSlug(
      trx,
      baseSlug,
      takenSlugs(trx, type),
      async (slug) => {
        const [inserted] = await trx('posts').insert({ ...columns, type, slug, ...kept });
        return id ?? Number(inserted);
      },
      `posts:${type}`,
    );
    await withRow(newId);
    if (type === 'event') await indexSearchText(trx, [newId], columns, true);
    noteRecordChange(trx, type, newId);
    return newId;
  }

  /**
   * Updates a post's shared columns; a new slug is made unique among the other posts of its type.
   * Every update grows the post's version in the same statement; with `expected` (the version an
   * `If-Match` named) the statement changes the row only at that version, else throws StaleVersion
   * (docs/contract.md §10). On MySQL the statement takes the row lock, so two conditional writes of
   * one record at one version cannot both pass.
   */
  async update(post: PostRow, columns: Partial<PostColumns>, newBaseSlug?: string, expected?: number, eventColumns: Record<string, unknown> = {}): Promise<void> {
    const trx = requireTransaction(this.db);
    // The texts the row named before (read from the row itself: `post` may be older) and the new ones' rendered forms.
    const texts = textFieldsOf(columns);
    const before = texts.length ? await namedRenderedTexts(trx, 'posts', [post.id], texts) : new Set<string>();
    const keys = await textKeyColumns(trx, columns);
    const write = async (extra: Record<string, unknown>): Promise<void> => {
      const query = trx('posts').where('id', post.id);
      if (expected !== undefined) query.where('version', expected);
      const changed = await query.update({ ...columns, ...plainColumnsOf('posts', columns), ...keys, ...extra, version: trx.raw('version + 1') });
      if (changed === 0) throw expected !== undefined ? new StaleVersion(post.id) : new RecordGone(post.type, post.id);
    };
    if (newBaseSlug !== undefined && newBaseSlug !== post.slug) {
      await withUniqueSlug(trx, newBaseSlug, takenSlugs(trx, post.type, post.id), (slug) => write({ slug }), `posts:${post.type}`);
    } else {
      await write({});
    }
    await releaseRenderedTexts(trx, 'posts', before, Object.values(keys));
    await this.copyToEvent(post, columns, eventColumns);
    // Only the fields written: `post` may be older than the row this statement locked and changed.
    if (post.type === 'event') await indexSearchText(trx, [post.id], searchedFieldsOf(columns));
    noteRecordChange(trx, post.type, post.id);
  }

  /** Moves a post to the trash, remembering the status it had (rights over it follow that status). */
  async trash(post: PostRow, modified: Partial<PostColumns>, expected?: number): Promise<void> {
    const trx = requireTransaction(this.db);
    const query = trx('posts').where('id', post.id);
    if (expected !== undefined) query.where('version', expected);
    const changed = await query.update({ ...modified, status: 'trash', trashed_from: post.status, version: trx.raw('version + 1') });
    if (changed === 0) throw expected !== undefined ? new StaleVersion(post.id) : new RecordGone(post.type, post.id);
    await this.copyToEvent(post, { ...modified, status: 'trash' });
    noteRecordChange(trx, post.type, post.id);
  }

  /**
   * Deletes a post for good (at version `expected`, if given), leaving a tombstone in the change log;
   * its own row and links go with it (foreign keys cascade).
   */
  async destroy(post: Pick<PostRow, 'id' | 'type'>, expected?: number): Promise<void> {
    const trx = requireTransaction(this.db);
    const query = trx('posts').where('id', post.id);
    if (expected !== undefined) query.where('version', expected);
    // MySQL's search texts no other event names go with it (db/search-index.ts); a refused delete rolls this back.
    if (post.type === 'event') await unindexSearchText(trx, [post.id]);
    const texts = await namedRenderedTexts(trx, 'posts', [post.id]);
    const deleted = await query.delete();
    if (expected !== undefined && deleted === 0) throw new StaleVersion(post.id);
    await releaseRenderedTexts(trx, 'posts', texts);
    noteRecordChange(trx, post.type, post.id, true);
  }

  /** Whether an id names a recorded image. */
  async isImage(id: number): Promise<boolean> {
    return Number.isSafeInteger(id) && (await this.db('posts').where({ id, type: 'image' }).first('id')) !== undefined;
  }

  /** The image recorded for a URL (by the SHA-256 of the URL), if any. */
  async imageIdByUrlHash(urlHash: string): Promise<number | undefined> {
    const row = await this.db('images').where('url_hash', urlHash).first('post_id');
    return row ? Number(row.post_id) : undefined;
  }

  /** The `images` row of a new image post (posts.insert's `withRow`). */
  async insertImage(image: { post_id: number; url: string; url_hash: string; extension: string; width?: number | null; height?: number | null }): Promise<void> {
    await requireTransaction(this.db)('images').insert({ width: null, height: null, ...image });
  }

  /** The stored `forms` of the texts of some keys (posts' and terms'), in one query per 200 distinct keys, none without any. */
  async renderedTexts(keys: Iterable<string | null>, forms: Array<keyof RenderedForms>): Promise<RenderedTexts> {
    return new RenderedTexts(await loadRenderedTexts(this.db, keys, forms));
  }

  /** The image objects of some ids, in one query per 500 ids. */
  async loadImages(ids: Array<number | null>): Promise<Map<number, ImageRecord>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    const images = new Map<number, ImageRecord>();
    for (const part of chunks(wanted)) {
      for (const row of await whereIdIn(this.db('images'), this.db, 'post_id', part).select('post_id', 'url', 'extension', 'width', 'height')) {
        const image: ImageRecord = { url: row.url, id: Number(row.post_id), extension: row.extension };
        if (row.width !== null) image.width = Number(row.width);
        if (row.height !== null) image.height = Number(row.height);
        images.set(image.id, image);
      }
    }
    return images;
  }

  /** The event row's copies of the post's columns, and its own columns written (`own`), in one statement. */
  private async copyToEvent(post: PostRow, columns: Partial<PostColumns>, own: Record<string, unknown> = {}): Promise<void> {
    const copies = { ...eventCopiesOf(columns), ...own };
    if (post.type === 'event' && Object.keys(copies).length) await this.db('events').where('post_id', post.id).update(copies);
  }
}

/** The searched fields (db/search-index.ts) among some written columns. */
export function searchedFieldsOf(columns: Record<string, unknown>): Partial<Record<(typeof SEARCHED_FIELDS)[number], string>> {
  return Object.fromEntries(SEARCHED_FIELDS.filter((field) => typeof columns[field] === 'string').map((field) => [field, columns[field] as string]));
}

/** Notes a post's change for the change feed (db/change-log.ts); images have no feed of their own. */
export function noteRecordChange(trx: Knex, type: PostType, id: number, deleted = false): void {
  if (type !== 'image') noteChange(trx, type, id, deleted);
}

/** Chunks an id list for `IN (...)`: SQLite allows a limited number of bound variables per statement. */
export function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The first version of a record written under an id it is given (an import keeping a source's ids):
 * above every version a record of that id can have had, so a row or reply a running service kept
 * under (id, version) for an earlier record of the same id is never taken for this one
 * (docs/importing.md). The data version grows with every write, so it is past any record's version.
 */
export async function keptIdVersion(trx: Knex): Promise<number> {
  return (await readDataVersion(trx)) + 1;
}
