import type { Knex } from 'knex';
import { binaryColumn, tableDefaults } from './helpers.js';

/**
 * Idempotency keys of creates (docs/contract.md §10): one row per (user, key), claimed by its insert
 * (the unique key makes concurrent claims atomic), completed with the stored answer in the create's
 * own transaction. Times are milliseconds since the epoch on both engines; `expires_at` is indexed
 * for the bounded clean-up.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('idempotency_keys', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable();
    binaryColumn(db, t.string('idempotency_key', 255).notNullable());
    t.string('fingerprint', 64).notNullable();
    // A random token per claim: only the request holding it may complete or release the row.
    t.string('token', 36).notNullable();
    t.string('state', 10).notNullable();
    t.bigInteger('claimed_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.integer('status').nullable();
    t.text('headers').nullable();
    t.text('body', 'longtext').nullable();
    t.unique(['user_id', 'idempotency_key'], { indexName: 'idempotency_keys_user_key_unique' });
    t.index(['expires_at'], 'idempotency_keys_expires_at_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('idempotency_keys');
}
