import type { Knex } from 'knex';
import { timeFormsOf } from '../../src/dates/event-times.js';
import { TIME_FORM_COLUMNS } from '../../src/repositories/event-rows.js';

/** Every event whose stored forms are not `timeFormsOf` its stored times and zone: `[]` when every write kept them right. */
export async function wrongTimeForms(db: Knex): Promise<string[]> {
  const rows = await db('events').select('post_id', 'start_local', 'end_local', 'start_utc', 'end_utc', 'timezone', ...Object.values(TIME_FORM_COLUMNS));
  return rows.flatMap((row: Record<string, unknown>) => {
    const want = timeFormsOf(
      { startLocal: String(row.start_local), endLocal: String(row.end_local), startUtc: String(row.start_utc), endUtc: String(row.end_utc) },
      String(row.timezone),
    );
    const stored = Object.fromEntries(Object.entries(TIME_FORM_COLUMNS).map(([form, column]) => [form, row[column]]));
    return JSON.stringify(stored) === JSON.stringify(want) ? [] : [`event ${row.post_id}: ${JSON.stringify(stored)} for ${JSON.stringify(want)}`];
  });
}
