import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * Webhooks (docs/webhooks.md): subscriptions that receive the change feed as signed POSTs.
 *
 * `webhooks`, one row per subscription. Its delivery state lives in the row, so a restart, a crash or
 * another process taking over continues exactly where the last acknowledged message left it:
 * - `position`: the feed position (`changes.seq`) of the last change acknowledged (or skipped as not
 *   of its types); the next message is the first change after it;
 * - `attempts` and `next_attempt_ms`: failed attempts at the message after `position`, and when the
 *   next one is due (milliseconds since the epoch; 0: now);
 * - `lease_holder` and `lease_until_ms`: the process delivering it now (one at a time), until when;
 * - `secret`, and for 24 hours after a rotation `previous_secret` until `previous_secret_until_ms`;
 * - `status` (`active`, `paused`, `failing`, `disabled`, `expired`), since `status_changed_utc`, and
 *   why (`status_reason`).
 *
 * `webhook_deliveries`, one row per attempt (the delivery log), written in the same transaction that
 * moves `position` when the attempt succeeded. Pruned by age.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhooks', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.string('url', 2048).notNullable();
    // The record types it receives, comma-separated (event,venue,organizer,category,tag).
    t.string('types', 64).notNullable();
    // `public` (what an anonymous caller reads) or `owner` (what owner_id reads).
    t.string('visibility', 8).notNullable();
    t.integer('owner_id').unsigned().notNullable();
    t.text('description').notNullable();
    t.string('status', 8).notNullable();
    t.string('status_changed_utc', 19).notNullable();
    t.text('status_reason').nullable();
    t.string('secret', 128).notNullable();
    t.string('previous_secret', 128).nullable();
    t.bigInteger('previous_secret_until_ms').notNullable().defaultTo(0);
    t.bigInteger('position').notNullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.bigInteger('next_attempt_ms').notNullable().defaultTo(0);
    t.string('lease_holder', 200).nullable();
    t.bigInteger('lease_until_ms').notNullable().defaultTo(0);
    t.string('created_utc', 19).notNullable();
    t.string('modified_utc', 19).notNullable();
    t.index(['status', 'next_attempt_ms'], 'webhooks_status_due_index');
  });
  await db.schema.createTable('webhook_deliveries', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.integer('webhook_id').unsigned().notNullable();
    // `webhook-id` of the message: the same on every attempt of one message.
    t.string('message_id', 64).notNullable();
    // The change's feed cursor and position (null for a ping).
    t.string('cursor', 64).nullable();
    t.bigInteger('position').nullable();
    // The message's type, such as `event.updated`, `event.deleted` or `webhook.ping`.
    t.string('type', 32).notNullable();
    t.integer('attempt').unsigned().notNullable();
    // The receiver's HTTP status, or null with `error` when no answer came.
    t.integer('status_code').nullable();
    t.text('error').nullable();
    t.integer('duration_ms').unsigned().notNullable();
    t.string('attempted_utc', 19).notNullable();
    t.bigInteger('attempted_ms').notNullable();
    // When the next attempt at this message is due (null: none, it succeeded or retries ended).
    t.string('next_attempt_utc', 19).nullable();
    t.index(['webhook_id', 'id'], 'webhook_deliveries_webhook_index');
    t.index(['attempted_ms'], 'webhook_deliveries_attempted_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('webhook_deliveries');
  await db.schema.dropTableIfExists('webhooks');
}
