import type { Knex } from 'knex';
import { requireTransaction } from '../db/transactions.js';
import { utcNow } from '../dates/storage.js';
import { whereIdIn } from '../db/id-lists.js';

/**
 * The import engine's bookkeeping (docs/importing.md "How an import decides"): the sources imported
 * and, per source, which local record each of its records became, with the fingerprint of what was
 * last applied. Reads take any handle; writes go in the transaction of the record they describe, so
 * a record and its origin are written together or not at all.
 */

/** The kinds of record an import brings, in the order they are written (what refers comes after). */
export const IMPORT_KINDS = ['user', 'category', 'tag', 'venue', 'organizer', 'event'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

interface ImportSourceRow {
  sourceKey: string;
  type: string;
  location: string;
  keepsIds: boolean;
}

interface OriginRow {
  kind: ImportKind;
  sourceId: string;
  localId: number;
  fingerprint: string;
  created: boolean;
}

function toOrigin(row: Record<string, unknown>): OriginRow {
  return {
    kind: row.kind as ImportKind,
    sourceId: String(row.source_id),
    localId: Number(row.local_id),
    fingerprint: String(row.fingerprint),
    created: Boolean(Number(row.created)),
  };
}

export class ImportOriginRepository {
  constructor(private readonly db: Knex) {}

  async findSource(sourceKey: string): Promise<ImportSourceRow | undefined> {
    const row = await this.db('import_sources').where('source_key', sourceKey).first();
    return row ? { sourceKey: row.source_key, type: row.type, location: row.location, keepsIds: Boolean(Number(row.keeps_ids)) } : undefined;
  }

  /** Records a source's first import, or the time of another (its `keeps_ids` never changes). */
  async saveSource(source: ImportSourceRow): Promise<void> {
    const trx = requireTransaction(this.db);
    const now = utcNow();
    const updated = await trx('import_sources').where('source_key', source.sourceKey).update({ location: source.location, last_run_utc: now });
    if (updated === 0) {
      await trx('import_sources').insert({
        source_key: source.sourceKey,
        type: source.type,
        location: source.location,
        keeps_ids: source.keepsIds,
        created_utc: now,
        last_run_utc: now,
      });
    }
  }

  /** Which of these ids no row of `table` has: an import keeps a source's id only when it is free. */
  async freeIds(table: 'posts' | 'terms' | 'users', ids: number[]): Promise<Set<number>> {
    const wanted = ids.filter((id) => Number.isSafeInteger(id) && id > 0);
    const taken = new Set((await whereIdIn(this.db(table), this.db, 'id', wanted).pluck('id')).map(Number));
    return new Set(wanted.filter((id) => !taken.has(id)));
  }

  async find(sourceKey: string, kind: ImportKind, sourceId: string): Promise<OriginRow | undefined> {
    const row = await this.db('import_origins').where({ source_key: sourceKey, kind, source_id: sourceId }).first();
    return row ? toOrigin(row) : undefined;
  }

  /** Writes (or replaces) the origin of one record, in the record's transaction. */
  async save(sourceKey: string, origin: OriginRow): Promise<void> {
    const trx = requireTransaction(this.db);
    const values = { local_id: origin.localId, fingerprint: origin.fingerprint, created: origin.created, updated_utc: utcNow() };
    const updated = await trx('import_origins').where({ source_key: sourceKey, kind: origin.kind, source_id: origin.sourceId }).update(values);
    if (updated === 0) await trx('import_origins').insert({ source_key: sourceKey, kind: origin.kind, source_id: origin.sourceId, ...values });
  }

  async remove(sourceKey: string, kind: ImportKind, sourceId: string): Promise<void> {
    await requireTransaction(this.db)('import_origins').where({ source_key: sourceKey, kind, source_id: sourceId }).delete();
  }

  /**
   * The origins of one kind of a source, a page at a time in source id order (`after`: the last
   * source id of the page before), so that pruning a large source never holds all of them.
   */
  async page(sourceKey: string, kind: ImportKind, after: string | undefined, limit: number): Promise<OriginRow[]> {
    const query = this.db('import_origins').where({ source_key: sourceKey, kind }).orderBy('source_id').limit(limit);
    if (after !== undefined) query.where('source_id', '>', after);
    return (await query.select('kind', 'source_id', 'local_id', 'fingerprint', 'created')).map(toOrigin);
  }
}
