import type { Knex } from 'knex';
import { loginKey } from '../auth/login-keys.js';
import { sanitizeTextField } from '../text/plain-text.js';
import { bumpDataVersion } from './data-version.js';
import type { MigrationTools } from './migrations/helpers.js';
import { insertSearchGrams, searchGramRows } from './legacy-search-grams.js';
import { indexNewSearchTexts } from './search-index.js';
import { holdRenderedTexts } from './rendered-texts.js';
import { plainColumnsOf, plainCostOf } from '../text/plain-forms.js';
import { timeFormsOf } from '../dates/event-times.js';
import * as createUsers from './migrations/20261121000001_create_users.js';
import * as createPosts from './migrations/20261121000002_create_posts.js';
import * as createTerms from './migrations/20261121000003_create_terms.js';
import * as createDataVersion from './migrations/20261122000004_create_data_version.js';
import * as seedDataVersion from './migrations/20261122000005_seed_data_version.js';
import * as addPostsTrashedFrom from './migrations/20261122000006_add_posts_trashed_from.js';
import * as addEventsPostDateUtc from './migrations/20261122000007_add_events_post_date_utc.js';
import * as fillEventsPostDateUtc from './migrations/20261122000008_fill_events_post_date_utc.js';
import * as addEventsPostStatus from './migrations/20261122000009_add_events_post_status.js';
import * as fillEventsPostStatus from './migrations/20261122000010_fill_events_post_status.js';
import * as addUsersLoginKeyEmail from './migrations/20261123000011_add_users_login_key_email.js';
import * as fillUsersLoginKey from './migrations/20261123000012_fill_users_login_key.js';
import * as cleanStoredPlainText from './migrations/20261123000013_clean_stored_plain_text.js';
import * as addModifiedIndexes from './migrations/20261123000020_add_modified_indexes.js';
import * as fillEventsPostModifiedUtc from './migrations/20261123000021_fill_events_post_modified_utc.js';
import * as addRecordVersions from './migrations/20261123000030_add_record_versions.js';
import * as createIdempotencyKeys from './migrations/20261123000031_create_idempotency_keys.js';
import * as createChanges from './migrations/20261123000050_create_changes.js';
import * as fillChanges from './migrations/20261123000051_fill_changes.js';
import * as numberChangesByAutoIncrement from './migrations/20261124000001_number_changes_by_auto_increment.js';
import * as dropChangeCounter from './migrations/20261124000002_drop_change_counter.js';
import * as createEventSeries from './migrations/20261124000100_create_event_series.js';
import * as createPostSearch from './migrations/20261125000100_create_post_search.js';
import * as fillPostSearch from './migrations/20261125000101_fill_post_search.js';
import * as addChangeSequenceWrites from './migrations/20261127000001_add_change_sequence_writes.js';
import * as addDataVersionSlots from './migrations/20261127000002_add_data_version_slots.js';
import * as addEventTermsTimes from './migrations/20261128000100_add_event_terms_times.js';
import * as fillEventTermsTimes from './migrations/20261128000101_fill_event_terms_times.js';
import * as addEventSeriesHorizonError from './migrations/20261129000100_add_event_series_horizon_error.js';
import * as createPasswordGuesses from './migrations/20261130000100_create_password_guesses.js';
import * as addChangeHistories from './migrations/20261130000200_add_change_histories.js';
import * as createWebhooks from './migrations/20261201000100_create_webhooks.js';
import * as createImportOrigins from './migrations/20261202000100_create_import_origins.js';
import * as createSubscriptions from './migrations/20261203000100_create_subscriptions.js';
import * as createSearchTexts from './migrations/20261204000100_create_search_texts.js';
import * as fillSearchTexts from './migrations/20261204000101_fill_search_texts.js';
import * as dropPostSearchGrams from './migrations/20261204000102_drop_post_search_grams.js';
import * as postSearchWithoutPositions from './migrations/20261206000100_post_search_without_positions.js';
import * as fillPostSearchAgain from './migrations/20261206000101_fill_post_search.js';
import * as createRenderedTexts from './migrations/20261207000100_create_rendered_texts.js';
import * as fillRenderedTexts from './migrations/20261207000101_fill_rendered_texts.js';
import * as addPlainTexts from './migrations/20261208000100_add_plain_texts.js';
import * as fillPlainTexts from './migrations/20261208000101_fill_plain_texts.js';
import * as addEventTimeForms from './migrations/20261209000100_add_event_time_forms.js';
import * as fillEventTimeForms from './migrations/20261209000101_fill_event_time_forms.js';
import * as eventsWindowInListOrder from './migrations/20261209000200_events_window_in_list_order.js';

interface Migration {
  up(db: Knex, tools: MigrationTools): Promise<void>;
  down(db: Knex, tools: MigrationTools): Promise<void>;
}

/** What the data migrations borrow from the application (see MigrationTools). */
export const MIGRATION_TOOLS: MigrationTools = {
  loginKey,
  sanitizeTextField,
  bumpDataVersion,
  searchGramRows,
  insertSearchGrams,
  indexNewSearchTexts,
  holdRenderedTexts,
  plainColumnsOf,
  plainCostOf,
  timeFormsOf,
};

/**
 * The migrations, in order. They are imported rather than discovered on disk so that the same list
 * runs from TypeScript sources (tests) and from the compiled build (npm start). Never edit one that
 * has shipped: add a new one. Schema and data changes never share a migration (MySQL commits DDL
 * implicitly, SQLite does not, so a mixed migration that fails leaves the engines in different states).
 */
const MIGRATIONS: Array<[string, Migration]> = [
  ['20261121000001_create_users', createUsers],
  ['20261121000002_create_posts', createPosts],
  ['20261121000003_create_terms', createTerms],
  ['20261122000004_create_data_version', createDataVersion],
  ['20261122000005_seed_data_version', seedDataVersion],
  ['20261122000006_add_posts_trashed_from', addPostsTrashedFrom],
  ['20261122000007_add_events_post_date_utc', addEventsPostDateUtc],
  ['20261122000008_fill_events_post_date_utc', fillEventsPostDateUtc],
  ['20261122000009_add_events_post_status', addEventsPostStatus],
  ['20261122000010_fill_events_post_status', fillEventsPostStatus],
  ['20261123000011_add_users_login_key_email', addUsersLoginKeyEmail],
  ['20261123000012_fill_users_login_key', fillUsersLoginKey],
  ['20261123000013_clean_stored_plain_text', cleanStoredPlainText],
  ['20261123000020_add_modified_indexes', addModifiedIndexes],
  ['20261123000021_fill_events_post_modified_utc', fillEventsPostModifiedUtc],
  ['20261123000030_add_record_versions', addRecordVersions],
  ['20261123000031_create_idempotency_keys', createIdempotencyKeys],
  ['20261123000050_create_changes', createChanges],
  ['20261123000051_fill_changes', fillChanges],
  ['20261124000001_number_changes_by_auto_increment', numberChangesByAutoIncrement],
  ['20261124000002_drop_change_counter', dropChangeCounter],
  ['20261124000100_create_event_series', createEventSeries],
  ['20261125000100_create_post_search', createPostSearch],
  ['20261125000101_fill_post_search', fillPostSearch],
  ['20261127000001_add_change_sequence_writes', addChangeSequenceWrites],
  ['20261127000002_add_data_version_slots', addDataVersionSlots],
  ['20261128000100_add_event_terms_times', addEventTermsTimes],
  ['20261128000101_fill_event_terms_times', fillEventTermsTimes],
  ['20261129000100_add_event_series_horizon_error', addEventSeriesHorizonError],
  ['20261130000100_create_password_guesses', createPasswordGuesses],
  ['20261130000200_add_change_histories', addChangeHistories],
  ['20261201000100_create_webhooks', createWebhooks],
  ['20261202000100_create_import_origins', createImportOrigins],
  ['20261203000100_create_subscriptions', createSubscriptions],
  ['20261204000100_create_search_texts', createSearchTexts],
  ['20261204000101_fill_search_texts', fillSearchTexts],
  ['20261204000102_drop_post_search_grams', dropPostSearchGrams],
  ['20261206000100_post_search_without_positions', postSearchWithoutPositions],
  ['20261206000101_fill_post_search', fillPostSearchAgain],
  ['20261207000100_create_rendered_texts', createRenderedTexts],
  ['20261207000101_fill_rendered_texts', fillRenderedTexts],
  ['20261208000100_add_plain_texts', addPlainTexts],
  ['20261208000101_fill_plain_texts', fillPlainTexts],
  ['20261209000100_add_event_time_forms', addEventTimeForms],
  ['20261209000101_fill_event_time_forms', fillEventTimeForms],
  ['20261209000200_events_window_in_list_order', eventsWindowInListOrder],
];

const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => ({ up: (db: Knex) => migration.up(db, MIGRATION_TOOLS), down: (db: Knex) => migration.down(db, MIGRATION_TOOLS) }),
};

/**
 * Brings the schema up to date; returns the names of the migrations it ran. Processes often start
 * together (every replica of a deployment, one per cluster node), so this is safe to run at once from
 * many: a process that finds nothing pending takes no lock and writes nothing (knex's `latest` always
 * takes its lock row, and on a Galera cluster two nodes updating that row at once is a certification
 * conflict, a deadlock error); one that finds work pending but the lock taken, or loses a deadlock,
 * waits and looks again, and then usually finds the work done by the process that held the lock.
 */
export async function migrateLatest(db: Knex, { waitSeconds = 300 } = {}): Promise<string[]> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    try {
      if (await migrationsCurrent(db)) return [];
      const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
      return applied;
    } catch (err) {
      // A lock that stays taken past the wait is left by a migrator that died: say how to free it.
      if (!isMigrationContention(err)) throw err;
      if (Date.now() > deadline)
        throw new Error(`${(err as Error).message} (for ${waitSeconds} s: if no process is migrating, a migration was interrupted; clear knex_migrations_lock.is_locked)`, {
          cause: err,
        });
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
    }
  }
}

/**
 * Another process is migrating, or was setting up the bookkeeping tables at the same moment: the
 * lock is taken (knex's MigrationLocked, which also wraps a deadlock met while taking it), a deadlock
 * or lock wait timeout, or a bookkeeping table or row that the other process created first.
 */
function isMigrationContention(err: unknown): boolean {
  const { name, errno, code } = (err ?? {}) as { name?: string; errno?: number; code?: string };
  return name === 'MigrationLocked' || errno === 1213 || errno === 1205 || errno === 1050 || code === 'ER_DUP_ENTRY' || code === 'SQLITE_BUSY';
}

/** True when every known migration has run (creates knex's bookkeeping tables when missing). */
export async function migrationsCurrent(db: Knex): Promise<boolean> {
  const [, pending] = (await db.migrate.list({ migrationSource })) as [unknown[], unknown[]];
  return pending.length === 0;
}

/** True when every known migration is among the names knex recorded as run (a readiness check reads them itself). */
export function everyMigrationIn(applied: readonly string[]): boolean {
  const ran = new Set(applied);
  return MIGRATIONS.every(([name]) => ran.has(name));
}
