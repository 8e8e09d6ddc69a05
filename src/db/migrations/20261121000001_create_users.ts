import type { Knex } from 'knex';
import { binaryColumn, tableDefaults } from './helpers.js';

/** Users (one WordPress role each) and their application passwords, stored only as hashes. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('users', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    binaryColumn(db, t.string('login', 60).notNullable()).unique();
    t.string('role', 20).notNullable();
    t.string('created_at', 19).notNullable();
  });
  await db.schema.createTable('secrets', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    // SHA-256 of the secret, hex, indexed so that a Bearer token finds its user in one lookup. Not
    // unique: two users may choose the same secret (a Bearer token that names two users is refused).
    binaryColumn(db, t.string('hash', 64).notNullable()).index();
    t.string('created_at', 19).notNullable();
    t.index(['user_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('secrets');
  await db.schema.dropTable('users');
}
