import type { Knex } from 'knex';

/**
 * Slugs, logins and URL hashes compare byte for byte on both engines: SQLite's default BINARY
 * collation, and utf8mb4_bin on MySQL (whose default collation would make `E1` equal `e1`).
 */
export function binaryColumn(db: Knex, column: Knex.ColumnBuilder): Knex.ColumnBuilder {
  return db.client.config.client === 'mysql2' ? column.collate('utf8mb4_bin') : column;
}

/** Table options that pin InnoDB and utf8mb4 on MySQL; nothing to do on SQLite. */
export function tableDefaults(db: Knex, table: Knex.CreateTableBuilder): void {
  if (db.client.config.client === 'mysql2') {
    table.engine('InnoDB');
    table.charset('utf8mb4');
    table.collate('utf8mb4_unicode_ci');
  }
}
