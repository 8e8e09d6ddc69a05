import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * Subscriptions (docs/importing.md "Subscribing to a calendar"): calendars the service fetches on a
 * schedule and applies through the import engine (source key `subscription:<id>`).
 *
 * `subscriptions`, one row per subscription: what it reads (`url`, `type` `ical` or `tec-site`), how
 * often (`refresh_minutes`), what imported events get (`categories`: JSON list of category ids,
 * `status`: null keeps the source's), the validators of the last answer (`etag`, `last_modified`,
 * sent back as If-None-Match / If-Modified-Since), and its schedule: `next_run_ms` (milliseconds
 * since the epoch; 0: now), `failures` in a row (the back-off), the lease of the process running it
 * (`lease_holder`, `lease_until_ms`), as webhooks have.
 *
 * `subscription_runs`, one row per run: when, the source's HTTP status, the engine's counts, the
 * errors (JSON list). Only the newest runs of each subscription are kept.
 *
 * `events.managed_subscription` / `events.managed_source_id`: the subscription that manages an
 * event and the event's key at the source (the `managed_by` of the API), null for other events.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('subscriptions', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.string('url', 2048).notNullable();
    t.string('type', 16).notNullable();
    t.integer('refresh_minutes').unsigned().notNullable();
    t.string('categories', 1024).notNullable();
    t.string('status', 16).nullable();
    t.integer('owner_id').unsigned().notNullable();
    t.text('etag').nullable();
    t.string('last_modified', 64).nullable();
    t.bigInteger('next_run_ms').notNullable().defaultTo(0);
    t.integer('failures').unsigned().notNullable().defaultTo(0);
    t.string('last_run_utc', 19).nullable();
    t.text('last_error').nullable();
    t.string('lease_holder', 200).nullable();
    t.bigInteger('lease_until_ms').notNullable().defaultTo(0);
    t.string('created_utc', 19).notNullable();
    t.string('modified_utc', 19).notNullable();
    t.index(['next_run_ms'], 'subscriptions_due_index');
  });
  await db.schema.createTable('subscription_runs', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.integer('subscription_id').unsigned().notNullable();
    // `schedule` or `refresh` (POST /subscriptions/{id}/refresh).
    t.string('cause', 16).notNullable();
    t.string('started_utc', 19).notNullable();
    t.integer('duration_ms').unsigned().notNullable();
    // The source's HTTP status (304: not modified), null when no answer came.
    t.integer('http_status').nullable();
    t.string('outcome', 16).notNullable();
    t.integer('created').unsigned().notNullable();
    t.integer('updated').unsigned().notNullable();
    t.integer('unchanged').unsigned().notNullable();
    t.integer('removed').unsigned().notNullable();
    t.integer('failed').unsigned().notNullable();
    t.text('errors').notNullable();
    t.index(['subscription_id', 'id'], 'subscription_runs_subscription_index');
  });
  await db.schema.alterTable('events', (t) => {
    t.integer('managed_subscription').unsigned().nullable();
    t.string('managed_source_id', 191).nullable();
    t.index(['managed_subscription'], 'events_managed_subscription_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('events', (t) => {
    t.dropIndex(['managed_subscription'], 'events_managed_subscription_index');
    t.dropColumn('managed_subscription');
    t.dropColumn('managed_source_id');
  });
  await db.schema.dropTableIfExists('subscription_runs');
  await db.schema.dropTableIfExists('subscriptions');
}
