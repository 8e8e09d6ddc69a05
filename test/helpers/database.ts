import type { Knex } from 'knex';
import { openDatabase, type DatabaseTarget } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { engineOf } from '../../src/db/engine.js';

/**
 * The database the whole run uses: in-memory SQLite by default, or the MySQL/MariaDB database named
 * by TEST_DATABASE_URL (CI sets it). It is emptied and migrated once per run, and emptied again by
 * `resetDatabase` before every test.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'sqlite::memory:';

let opened: { db: Knex; target: DatabaseTarget } | undefined;

/** Tables in an order that respects foreign keys when emptying them. */
const TABLES = [
  'subscription_runs',
  'subscriptions',
  'import_origins',
  'import_sources',
  'webhook_deliveries',
  'webhooks',
  'idempotency_keys',
  'password_guesses',
  'event_terms',
  'event_venues',
  'event_organizers',
  'terms',
  'images',
  'event_series',
  'events',
  'venues',
  'organizers',
  'posts',
  'rendered_texts',
  'secrets',
  'users',
  'changes',
  'change_history_fences',
  'service_leases',
];

export async function openTestDatabase(): Promise<{ db: Knex; target: DatabaseTarget }> {
  if (opened) return opened;
  opened = openDatabase(TEST_DATABASE_URL);
  const { db } = opened;
  // Start from nothing, so a schema left by an earlier run cannot hide a migration bug.
  if (opened.target.engine === 'mysql') await db.raw('SET FOREIGN_KEY_CHECKS = 0');
  // The search index (post_search_texts, search_text_grams and search_texts on MySQL; post_search_grams before them; post_search on SQLite) empties with `posts`.
  for (const table of [
    'post_search_texts',
    'search_text_grams',
    'search_texts',
    'post_search_grams',
    'post_search',
    ...TABLES,
    'data_version',
    'change_sequence',
    'knex_migrations',
    'knex_migrations_lock',
  ])
    await db.schema.dropTableIfExists(table);
  if (opened.target.engine === 'mysql') await db.raw('SET FOREIGN_KEY_CHECKS = 1');
  await migrateLatest(db);
  return opened;
}

export async function resetDatabase(db: Knex): Promise<void> {
  await db('posts').update({ image_id: null });
  for (const table of TABLES) await db(table).delete();
  // MySQL's shared search texts outlive their events' rows (db/search-index.ts): a test starts without them.
  if (engineOf(db) === 'mysql') for (const table of ['search_text_grams', 'search_texts']) await db(table).delete();
  // The change counter keeps growing (cursors of earlier tests stay in range); nothing is purged yet,
  // and no restore has started another history.
  await db('change_sequence').update({ purged: 0, history: '' });
  // The rows changed behind the service's back: cached replies and list totals must not survive (db/versioned-cache.ts).
  await bumpDataVersion(db);
}

export async function closeTestDatabase(): Promise<void> {
  await opened?.db.destroy();
  opened = undefined;
}

/** The SQL of every statement (each round trip) a database handle sends while `run` runs. */
export async function statementsDuring(db: Knex, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql);
  db.on('query', listener);
  try {
    await run();
  } finally {
    db.off('query', listener);
  }
  return seen;
}
