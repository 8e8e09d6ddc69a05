import type { Knex } from 'knex';

/** A row of MySQL's first search index, `post_search_grams` (migrations 20261125000100/101): one trigram of one field of one post. */
export interface SearchGramRow {
  post_id: number;
  field: number;
  n: number;
  gram: string;
}

/**
 * What data migrations borrow from the application. db/migrate.ts hands it to each migration's
 * `up`, so that no migration imports an application module and the layers stay one-way
 * (docs/architecture.md "Migrations").
 */
export interface MigrationTools {
  /** The key a login is found by (auth/login-keys.ts). */
  loginKey(login: string): string;
  /** Plain text as a write cleans it now (text/plain-text.ts). */
  sanitizeTextField(value: string): string;
  /** Makes every running process compute its cached replies again (db/data-version.ts). */
  bumpDataVersion(db: Knex): Promise<void>;
  /** The rows of MySQL's first search index of one post's text (db/legacy-search-grams.ts). */
  searchGramRows(postId: number, fields: { title?: string; description?: string; excerpt?: string }): SearchGramRow[];
  insertSearchGrams(db: Knex, rows: SearchGramRow[]): Promise<void>;
  /** Indexes new events' texts in MySQL's search index of shared texts (db/search-index.ts). */
  indexNewSearchTexts(trx: Knex, events: Array<{ id: number; fields: { title?: string; description?: string; excerpt?: string } }>): Promise<void>;
  /** Renders and stores texts (once per distinct text) and returns their keys, null for an empty text (db/rendered-texts.ts). */
  holdRenderedTexts(trx: Knex, texts: Array<{ field: 'description' | 'excerpt' | 'termDescription'; text: string }>): Promise<Array<string | null>>;
  /** The plain columns a write stores with some plain-text fields (text/plain-forms.ts). */
  plainColumnsOf(table: 'posts' | 'terms' | 'venues' | 'organizers', written: object): Record<string, string>;
  /** The plain form of the formatted cost a write stores (text/plain-forms.ts). */
  plainCostOf(raw: string[], values: string[], symbol: string, position: string): string;
  /** The forms of an event's times a write stores (dates/event-times.ts). */
  timeFormsOf(
    times: { startLocal: string; endLocal: string; startUtc: string; endUtc: string },
    zoneName: string,
  ): { zoneAbbr: string; startIso: string; endIso: string; startDay: string; endDay: string };
}

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
