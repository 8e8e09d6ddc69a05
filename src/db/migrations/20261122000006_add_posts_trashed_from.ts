import type { Knex } from 'knex';

/**
 * The status a record had before it was trashed (WordPress's `_wp_trash_meta_status`): rights over
 * a trashed record follow it, so a contributor cannot restore or purge its own record that an editor
 * had published and then trashed (policies/posts.ts).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.string('trashed_from', 20).nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.dropColumn('trashed_from');
  });
}
