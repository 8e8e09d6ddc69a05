import type { Knex } from 'knex';
import { tableDefaults } from './helpers.js';

/**
 * Change numbers come from the engine's auto-increment instead of a counter row that every writer
 * locked until its commit (db/change-log.ts explains how commit order is kept without it). The next
 * number continues after the last one the counter handed out, so cursors already given out stay
 * valid. On MySQL `seq` becomes AUTO_INCREMENT in place; SQLite cannot change a column, so the table
 * is rebuilt with `seq` as its AUTOINCREMENT key (inside the migration's transaction).
 */
export async function up(db: Knex): Promise<void> {
  const counter = await db('change_sequence').where('id', 1).first('value');
  const last = Math.trunc(Number(counter?.value ?? 0));
  if (db.client.config.client === 'mysql2') {
    await db.raw(`ALTER TABLE changes MODIFY seq BIGINT NOT NULL AUTO_INCREMENT, AUTO_INCREMENT = ${last + 1}`);
    return;
  }
  await db.schema.createTable('changes_numbered', (t) => {
    tableDefaults(db, t);
    t.increments('seq').primary();
    t.string('type', 16).notNullable();
    t.bigInteger('record_id').notNullable();
    t.boolean('deleted').notNullable().defaultTo(false);
    t.string('changed_utc', 19).notNullable();
  });
  await db.raw('INSERT INTO changes_numbered (seq, type, record_id, deleted, changed_utc) SELECT seq, type, record_id, deleted, changed_utc FROM changes');
  // AUTOINCREMENT continues after the larger of this and the highest key present.
  await db.raw(`UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'changes_numbered'`, [last]);
  await db.raw(`INSERT INTO sqlite_sequence (name, seq) SELECT 'changes_numbered', ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'changes_numbered')`, [last]);
  await db.schema.dropTable('changes');
  await db.schema.renameTable('changes_numbered', 'changes');
  await db.schema.alterTable('changes', (t) => {
    t.unique(['type', 'record_id'], { indexName: 'changes_type_record_unique' });
    t.index(['type', 'seq'], 'changes_type_seq_index');
    t.index(['deleted', 'seq'], 'changes_deleted_seq_index');
  });
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client === 'mysql2') {
    await db.raw('ALTER TABLE changes MODIFY seq BIGINT NOT NULL');
    return;
  }
  await db.schema.createTable('changes_counted', (t) => {
    t.string('type', 16).notNullable();
    t.bigInteger('record_id').notNullable();
    t.bigInteger('seq').notNullable();
    t.boolean('deleted').notNullable().defaultTo(false);
    t.string('changed_utc', 19).notNullable();
    t.primary(['type', 'record_id']);
  });
  await db.raw('INSERT INTO changes_counted (type, record_id, seq, deleted, changed_utc) SELECT type, record_id, seq, deleted, changed_utc FROM changes');
  await db.schema.dropTable('changes');
  await db.schema.renameTable('changes_counted', 'changes');
  await db.schema.alterTable('changes', (t) => {
    t.unique(['seq'], { indexName: 'changes_seq_unique' });
    t.index(['type', 'seq'], 'changes_type_seq_index');
    t.index(['deleted', 'seq'], 'changes_deleted_seq_index');
  });
}
