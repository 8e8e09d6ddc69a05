import type { Knex } from 'knex';

/**
 * The data version becomes the sum of several rows, each process bumping one of them (db/data-version.ts),
 * so that processes on different Galera nodes do not all write one row. Row 1 keeps the count so far;
 * the new rows start at 0, so the sum continues where the single row was and never goes back.
 */
/** Rows 1 to 16 (data-version.ts's DATA_VERSION_SLOTS names the same number). */
const SLOTS = 16;

export async function up(db: Knex): Promise<void> {
  const rows = Array.from({ length: SLOTS - 1 }, (_, i) => ({ id: i + 2, version: 0 }));
  await db('data_version').insert(rows);
}

export async function down(db: Knex): Promise<void> {
  const total = await db('data_version').sum({ version: 'version' }).first();
  await db('data_version').where('id', '>', 1).delete();
  await db('data_version')
    .where('id', 1)
    .update({ version: Number(total?.version ?? 0) });
}
