import type { Knex } from 'knex';

/**
 * The forms of an event's times that its record shows, computed when the times are written
 * (dates/event-times.ts `TimeForms`, docs/architecture.md "Rendered texts"): `timezone_abbr`, the
 * zone's abbreviation at the start, `start_iso`/`end_iso`, the times with the zone's offset that
 * `json_ld` shows, and `start_day`/`end_day`, the days as pages write them. NULL where no write made
 * them (a row written past the repositories): a read then makes them.
 *
 * 20261209000101 fills them for the events already stored.
 */
const COLUMNS = ['timezone_abbr', 'start_iso', 'end_iso', 'start_day', 'end_day'];

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('events', (t) => {
    for (const column of COLUMNS) t.string(column, 64).nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('events', (t) => {
    for (const column of COLUMNS) t.dropColumn(column);
  });
}
