import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/** Fills `users.login_key` for the users created before it existed (the same rule as new users). */
export async function up(db: Knex, { loginKey }: MigrationTools): Promise<void> {
  const users: Array<{ id: number; login: string }> = await db('users').whereNull('login_key').select('id', 'login');
  for (const user of users)
    await db('users')
      .where('id', user.id)
      .update({ login_key: loginKey(user.login) });
}

export async function down(): Promise<void> {
  // The column goes with the schema migration's down.
}
