import type { Knex } from 'knex';

/** The registry entry of an id in the shared post ID space. */
export interface PostHeader {
  id: number;
  type: string;
  status: string;
  authorId: number | null;
}

/** What an id names (an event, venue, organizer or image), or undefined. */
export async function findPostHeader(db: Knex, id: number): Promise<PostHeader | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const row = await db('posts').where({ id }).first('id', 'type', 'status', 'author_id');
  return row ? { id: Number(row.id), type: row.type, status: row.status, authorId: row.author_id === null ? null : Number(row.author_id) } : undefined;
}
