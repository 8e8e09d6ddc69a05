import type { Knex } from 'knex';
import { PLAIN_FIELDS, plainCostOf, plainOf } from '../../src/text/plain-forms.js';

const KEYS = { posts: 'id', terms: 'id', venues: 'post_id', organizers: 'post_id' } as const;

const list = (value: unknown): string[] => (typeof value === 'string' && value !== '' ? (JSON.parse(value) as unknown[]).map(String) : []);

/**
 * Every stored plain form (text/plain-forms.ts) that is not the one rule's form of its field as
 * stored now: `[]` when every write path kept them right. Each as `table key field: stored for value`.
 */
export async function wrongPlainForms(db: Knex): Promise<string[]> {
  const wrong: string[] = [];
  for (const [table, fields] of Object.entries(PLAIN_FIELDS) as Array<[keyof typeof PLAIN_FIELDS, readonly string[]]>) {
    const key = KEYS[table];
    for (const row of await db(table).select([key, ...fields, ...fields.map((field) => `${field}_plain`)]))
      for (const field of fields) {
        const want = plainOf(String(row[field] ?? ''));
        if (row[`${field}_plain`] !== want) wrong.push(`${table} ${row[key]} ${field}: ${JSON.stringify(row[`${field}_plain`])} for ${JSON.stringify(row[field])}`);
      }
  }
  for (const row of await db('events').select('post_id', 'cost_raw', 'cost_values', 'currency_symbol', 'currency_position', 'cost_plain')) {
    const want = plainCostOf(list(row.cost_raw), list(row.cost_values), String(row.currency_symbol ?? ''), String(row.currency_position ?? ''));
    if (row.cost_plain !== want) wrong.push(`events ${row.post_id} cost: ${JSON.stringify(row.cost_plain)} for ${JSON.stringify(want)}`);
  }
  return wrong;
}
