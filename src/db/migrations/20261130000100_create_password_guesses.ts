import type { Knex } from 'knex';
import { binaryColumn, tableDefaults } from './helpers.js';

/**
 * Wrong record-password guesses (`?password=`), counted per (record, client address) in a fixed
 * window, in the database so that every process of one database shares the count (issue #29: a
 * counter per process let `WORKERS=N` guess N times as often). One row per pair, updated in place
 * by one statement per guess; rows whose window has ended are deleted in bounded batches
 * (`window_ends` is indexed for that). Times are milliseconds since the epoch. No foreign key: a
 * deleted record's rows simply age out.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('password_guesses', (t) => {
    tableDefaults(db, t);
    t.integer('record_id').unsigned().notNullable();
    // An IPv4 address or an IPv6 /64 network (operations/shared/auth-failures.ts clientAddress).
    binaryColumn(db, t.string('client', 64).notNullable());
    t.integer('failures').unsigned().notNullable();
    t.bigInteger('window_ends').notNullable();
    t.primary(['record_id', 'client']);
    t.index(['window_ends'], 'password_guesses_window_ends_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('password_guesses');
}
