import type { Knex } from 'knex';
import { whereSlugFamily, withUniqueSlug } from '../text/slugs.js';

export type PostType = 'event' | 'venue' | 'organizer' | 'image';

/** The columns every post type shares (the `posts` registry table), with types cast. */
export interface PostRow {
  id: number;
  type: PostType;
  status: string;
  authorId: number | null;
  slug: string;
  title: string;
  description: string;
  excerpt: string;
  password: string | null;
  imageId: number | null;
  date: string;
  dateUtc: string;
  modified: string;
  modifiedUtc: string;
  /** The status before the trash, while trashed (rights over it follow that status). */
  trashedFrom: string | null;
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

export const POST_COLUMNS = ['id', 'type', 'status', 'author_id', 'slug', 'title', 'description', 'excerpt', 'password', 'image_id', 'date', 'date_utc', 'modified', 'modified_utc', 'trashed_from'];

export function toPostRow(row: Record<string, unknown>): PostRow {
  return {
    id: Number(row.id),
    type: row.type as PostType,
    status: String(row.status),
    authorId: row.author_id === null || row.author_id === undefined ? null : Number(row.author_id),
    slug: String(row.slug),
    title: String(row.title),
    description: String(row.description),
    excerpt: String(row.excerpt),
    password: row.password === null || row.password === undefined || row.password === '' ? null : String(row.password),
    imageId: row.image_id === null || row.image_id === undefined ? null : Number(row.image_id),
    date: String(row.date),
    dateUtc: String(row.date_utc),
    modified: String(row.modified),
    modifiedUtc: String(row.modified_utc),
    trashedFrom: row.trashed_from === null || row.trashed_from === undefined ? null : String(row.trashed_from),
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
 * Inserts a post under the first free slug of its type at or after `baseSlug` (unique under concurrent
 * creates too), then lets `withRow` write the type's own row in the same transaction. Returns the id.
 */
export async function insertPost(trx: Knex, type: PostType, columns: PostColumns, baseSlug: string, withRow: (id: number) => Promise<void>): Promise<number> {
  const id = await withUniqueSlug(trx, baseSlug, takenSlugs(trx, type), async (slug) => {
    const [inserted] = await trx('posts').insert({ ...columns, type, slug });
    return Number(inserted);
  });
  await withRow(id);
  return id;
}

/** Updates a post's shared columns; a new slug is made unique among the other posts of its type. */
export async function updatePost(trx: Knex, post: PostRow, columns: Partial<PostColumns>, newBaseSlug?: string): Promise<void> {
  if (newBaseSlug !== undefined && newBaseSlug !== post.slug) {
    await withUniqueSlug(trx, newBaseSlug, takenSlugs(trx, post.type, post.id), (slug) => trx('posts').where('id', post.id).update({ ...columns, slug }));
  } else if (Object.keys(columns).length) {
    await trx('posts').where('id', post.id).update(columns);
  }
}

export async function findPost(db: Knex, id: number): Promise<PostRow | undefined> {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  const row = await db('posts').where('id', id).first(POST_COLUMNS);
  return row ? toPostRow(row) : undefined;
}

export async function findPostBySlug(db: Knex, type: PostType, slug: string): Promise<PostRow | undefined> {
  const row = await db('posts').where({ type, slug }).first(POST_COLUMNS);
  return row ? toPostRow(row) : undefined;
}

/** Chunks an id list for `IN (...)`: SQLite allows a limited number of bound variables per statement. */
export function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
