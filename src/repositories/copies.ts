import type { Knex } from 'knex';
import { committedPosition } from '../db/committed-position.js';

/** What a database holds, as `cli backup`, `restore` and `restored` print it (docs/durability.md). */
export interface CopySummary {
  records: { events: number; venues: number; organizers: number; categories: number; tags: number; users: number };
  /** The change feed's committed position and history: where the feed continues from this data. */
  feed: { position: number; history: string };
}

async function countRows(query: Knex.QueryBuilder): Promise<number> {
  const row = (await query.count({ n: '*' }).first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/** Counts the records per kind (every status, trashed ones included) and reads the feed's position. */
export async function summarizeDatabase(db: Knex): Promise<CopySummary> {
  const posts = (type: string) => countRows(db('posts').where('type', type));
  const terms = (taxonomy: string) => countRows(db('terms').where('taxonomy', taxonomy));
  const state = await db('change_sequence').where('id', 1).first('history');
  return {
    records: {
      events: await posts('event'),
      venues: await posts('venue'),
      organizers: await posts('organizer'),
      categories: await terms('tribe_events_cat'),
      tags: await terms('post_tag'),
      users: await countRows(db('users')),
    },
    feed: { position: await committedPosition(db), history: String(state?.history ?? '') },
  };
}

/** Forgets every service lease: a restored copy carries the leases of the service it was copied from. */
export async function clearServiceLeases(db: Knex): Promise<void> {
  await db('service_leases').delete();
}
