import type { Knex } from 'knex';
import { binaryColumn } from './helpers.js';

/**
 * Logins as WordPress treats them: case-insensitive (`login_key`, the login in lower case), and an
 * optional e-mail address a user may also log in with (`email`, as given; `email_key`, lower case,
 * one user per address). `login_key` is indexed but not unique: logins that differ only in case may
 * already exist (they were distinct before), and such a login then names nobody unless typed
 * exactly. The data migration after this one fills `login_key` for existing users.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    binaryColumn(db, t.string('login_key', 60).nullable()).index('users_login_key_index');
    t.string('email', 100).nullable();
    binaryColumn(db, t.string('email_key', 100).nullable()).unique({ indexName: 'users_email_key_unique' });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.dropUnique(['email_key'], 'users_email_key_unique');
    t.dropIndex(['login_key'], 'users_login_key_index');
    t.dropColumn('email_key');
    t.dropColumn('email');
    t.dropColumn('login_key');
  });
}
