import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * The change feed (docs/contract.md §9, db/change-log.ts): `changes` holds one row per record (event,
 * venue, organizer, category, tag) at its latest change, tombstones included, numbered by `seq` in
 * commit order; `change_sequence` is the single counter row that hands out those numbers, the highest
 * number purged, and the secret that signs cursors.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('changes', (t) => {
    tableDefaults(db, t);
    t.string('type', 16).notNullable();
    t.bigInteger('record_id').notNullable();
    t.bigInteger('seq').notNullable();
    t.boolean('deleted').notNullable().defaultTo(false);
    t.string('changed_utc', 19).notNullable();
    t.primary(['type', 'record_id']);
    // A feed page: `seq > ? ORDER BY seq LIMIT n`, all types or one type at a time.
    t.unique(['seq'], { indexName: 'changes_seq_unique' });
    t.index(['type', 'seq'], 'changes_type_seq_index');
    // Purging tombstones, oldest first.
    t.index(['deleted', 'seq'], 'changes_deleted_seq_index');
  });
  await db.schema.createTable('change_sequence', (t) => {
    tableDefaults(db, t);
    t.integer('id').primary();
    t.bigInteger('value').notNullable().defaultTo(0);
    t.bigInteger('purged').notNullable().defaultTo(0);
    t.string('secret', 64).notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('change_sequence');
  await db.schema.dropTable('changes');
}
