import type { Knex } from 'knex';
import { binaryColumn, tableDefaults } from './helpers.js';

/**
 * The import engine's bookkeeping (docs/importing.md): which local record came from which record of
 * which source, so that importing the same source again updates instead of duplicating.
 *
 * `import_sources`, one row per source ever imported: its key (`tec-site:<site URL>`; later
 * `ics:<url or file>`, `subscription:<id>`), its type, where it was read, and whether it keeps the
 * source's ids (decided by its first import: into an empty database, yes).
 *
 * `import_origins`, one row per record a source gave: its kind (`category`, `tag`, `venue`,
 * `organizer`, `event`, `user`), its id at the source (a string: an iCalendar UID fits), the local
 * id it became, the fingerprint of the record as last applied (SHA-256 of its normalised fields:
 * equal means unchanged), and whether the import created the local record (only those are pruned).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('import_sources', (t) => {
    tableDefaults(db, t);
    binaryColumn(db, t.string('source_key', 191).notNullable()).primary();
    t.string('type', 16).notNullable();
    t.string('location', 2048).notNullable();
    t.boolean('keeps_ids').notNullable();
    t.string('created_utc', 19).notNullable();
    t.string('last_run_utc', 19).notNullable();
  });
  await db.schema.createTable('import_origins', (t) => {
    tableDefaults(db, t);
    t.increments('id').primary();
    binaryColumn(db, t.string('source_key', 191).notNullable());
    t.string('kind', 16).notNullable();
    binaryColumn(db, t.string('source_id', 191).notNullable());
    t.integer('local_id').unsigned().notNullable();
    t.string('fingerprint', 64).notNullable();
    t.boolean('created').notNullable();
    t.string('updated_utc', 19).notNullable();
    t.unique(['source_key', 'kind', 'source_id']);
    t.index(['kind', 'local_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('import_origins');
  await db.schema.dropTableIfExists('import_sources');
}
