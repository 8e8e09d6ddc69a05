import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Gives every record that exists before the change feed one change, numbered 1..n (events, venues and
 * organizers by id, then terms by id), so a client that starts the feed from its beginning receives
 * every record. Also used by the benchmark's seeder after its bulk load.
 */
export async function fillChanges(db: Knex, changedUtc: string): Promise<number> {
  await db.raw(
    `INSERT INTO changes (type, record_id, seq, deleted, changed_utc)
     SELECT type, id, ROW_NUMBER() OVER (ORDER BY id), 0, ? FROM posts WHERE type IN ('event', 'venue', 'organizer')`,
    [changedUtc],
  );
  const [{ n }] = await db('changes').count({ n: '*' });
  const posts = Number(n);
  await db.raw(
    `INSERT INTO changes (type, record_id, seq, deleted, changed_utc)
     SELECT CASE taxonomy WHEN 'post_tag' THEN 'tag' ELSE 'category' END, id, ? + ROW_NUMBER() OVER (ORDER BY id), 0, ? FROM terms`,
    [posts, changedUtc],
  );
  const [{ total }] = await db('changes').count({ total: '*' });
  return Number(total);
}

/** The counter row (a data change, kept apart from the schema change: see migrate.ts), then the existing records. */
export async function up(db: Knex): Promise<void> {
  const total = await fillChanges(db, new Date().toISOString().slice(0, 19).replace('T', ' '));
  await db('change_sequence').insert({ id: 1, value: total, purged: 0, secret: crypto.randomBytes(32).toString('hex') });
}

export async function down(db: Knex): Promise<void> {
  await db('change_sequence').delete();
  await db('changes').delete();
}
