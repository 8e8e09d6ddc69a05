import type { Knex } from 'knex';
import type { MigrationTools } from './helpers.js';

/** Rows per batch. */
const BATCH = 200;

/**
 * Renders the texts already stored (20261207000100, db/rendered-texts.ts): every post's description
 * and excerpt and every term's description, by batches in id order; a text many rows share (a
 * series' occurrences) is rendered once, and its rows are named in one statement.
 */
export async function up(db: Knex, tools: MigrationTools): Promise<void> {
  await fillRenderedTexts(db, 'posts', ['description', 'excerpt'], tools);
  await fillRenderedTexts(db, 'terms', ['description'], tools);
  // Cached replies were made from the texts: made again from the stored forms.
  await tools.bumpDataVersion(db);
}

async function fillRenderedTexts(
  db: Knex,
  table: 'posts' | 'terms',
  fields: Array<'description' | 'excerpt'>,
  { holdRenderedTexts }: Pick<MigrationTools, 'holdRenderedTexts'>,
): Promise<void> {
  for (let after = 0; ;) {
    const rows: Array<Record<string, string | number>> = await db(table)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select(['id', ...fields]);
    if (rows.length === 0) return;
    for (const field of fields) {
      const keys = await holdRenderedTexts(
        db,
        rows.map((row) => ({ field: table === 'terms' ? 'termDescription' : field, text: String(row[field]) })),
      );
      const idsByKey = new Map<string, number[]>();
      keys.forEach((key, i) => {
        if (key === null) return;
        const ids = idsByKey.get(key) ?? [];
        ids.push(Number(rows[i]!.id));
        idsByKey.set(key, ids);
      });
      for (const [key, ids] of idsByKey)
        await db(table)
          .whereIn('id', ids)
          .update({ [`${field}_hash`]: key });
    }
    after = Number(rows[rows.length - 1]!.id);
  }
}

export async function down(): Promise<void> {
  // The columns go with the schema migration's down.
}
