import type { Knex } from 'knex';

/**
 * Why the rolling horizon could not extend a series (docs/contract.md §14, docs/limits.md
 * "Recurrence rules"): null while it can. The background extension sets it when the series' rules
 * exceed the expansion budget or RECURRENCE_MAX_OCCURRENCES, skips a series that has it, and any
 * write of the series' rules or horizon clears it, so a series that cannot grow is not expanded
 * again on every run.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('event_series', (t) => {
    t.text('horizon_error').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('event_series', (t) => {
    t.dropColumn('horizon_error');
  });
}
