import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/** Events per batch: one UPDATE of five CASE expressions each. */
const BATCH = 200;

/**
 * Stores the forms of the times of the events already stored (20261209000100,
 * dates/event-times.ts `timeFormsOf`), by batches in key order, as a write makes them.
 */
export async function up(db: Knex, tools: MigrationTools): Promise<void> {
  for (let after = 0; ;) {
    const rows: Array<Record<string, unknown>> = await db('events')
      .where('post_id', '>', after)
      .orderBy('post_id')
      .limit(BATCH)
      .select('post_id', 'start_local', 'end_local', 'start_utc', 'end_utc', 'timezone');
    if (rows.length === 0) break;
    const ids = rows.map((row) => Number(row.post_id));
    const forms = rows.map((row) =>
      tools.timeFormsOf(
        { startLocal: String(row.start_local), endLocal: String(row.end_local), startUtc: String(row.start_utc), endUtc: String(row.end_utc) },
        String(row.timezone),
      ),
    );
    const caseOf = (form: keyof (typeof forms)[number]) =>
      db.raw(
        `CASE post_id ${ids.map(() => 'WHEN ? THEN ?').join(' ')} END`,
        ids.flatMap((id, i) => [id, forms[i]![form]]),
      );
    await db('events')
      .whereIn('post_id', ids)
      .update({
        timezone_abbr: caseOf('zoneAbbr'),
        start_iso: caseOf('startIso'),
        end_iso: caseOf('endIso'),
        start_day: caseOf('startDay'),
        end_day: caseOf('endDay'),
      });
    after = ids[ids.length - 1]!;
  }
  // Cached replies were made with the same forms; nothing to make again.
}

export async function down(): Promise<void> {
  // The columns go with the schema migration's down.
}
