import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/** Rows per batch. */
const BATCH = 200;

/**
 * Stores the plain forms of the plain-text fields already stored (20261208000100,
 * text/plain-forms.ts), by batches in key order, as a write makes them: rows whose forms are equal (a
 * series' occurrences) are updated in one statement.
 */
export async function up(db: Knex, tools: MigrationTools): Promise<void> {
  const { plainColumnsOf, plainCostOf } = tools;
  await fill(db, 'posts', 'id', ['title'], (row) => plainColumnsOf('posts', row));
  await fill(db, 'terms', 'id', ['name'], (row) => plainColumnsOf('terms', row));
  await fill(db, 'venues', 'post_id', ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'], (row) => plainColumnsOf('venues', row));
  await fill(db, 'organizers', 'post_id', ['phone', 'email'], (row) => plainColumnsOf('organizers', row));
  const list = (value: unknown): string[] => {
    const parsed = typeof value === 'string' && value !== '' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  };
  await fill(db, 'events', 'post_id', ['cost_raw', 'cost_values', 'currency_symbol', 'currency_position'], (row) => ({
    cost_plain: plainCostOf(list(row.cost_raw), list(row.cost_values), String(row.currency_symbol ?? ''), String(row.currency_position ?? '')),
  }));
  // Cached replies hold nothing of these forms, but pages and feeds are made from them from now on.
  await tools.bumpDataVersion(db);
}

async function fill(db: Knex, table: string, key: string, fields: string[], plainOf: (row: Record<string, unknown>) => Record<string, string>): Promise<void> {
  for (let after = 0; ;) {
    const rows: Array<Record<string, unknown>> = await db(table)
      .where(key, '>', after)
      .orderBy(key)
      .limit(BATCH)
      .select([key, ...fields]);
    if (rows.length === 0) return;
    const keysByForms = new Map<string, number[]>();
    for (const row of rows) {
      // NULL columns are read as empty text, as the repositories read them.
      const stored = Object.fromEntries(fields.map((field) => [field, row[field] === null || row[field] === undefined ? '' : String(row[field])]));
      const forms = JSON.stringify(plainOf({ ...row, ...stored }));
      keysByForms.set(forms, [...(keysByForms.get(forms) ?? []), Number(row[key])]);
    }
    for (const [forms, keys] of keysByForms) await db(table).whereIn(key, keys).update(JSON.parse(forms));
    after = Number(rows[rows.length - 1]![key]);
  }
}

export async function down(): Promise<void> {
  // The columns go with the schema migration's down.
}
