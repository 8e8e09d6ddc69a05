import type { Knex } from 'knex';
import { engineOf } from './engine.js';
import { loopTurn } from '../core/loop-turns.js';
import { FORMS, lazyForms, renderedKey, sourceOf, type RenderedForms, type TextField } from '../text/rendered-forms.js';

/**
 * `rendered_texts`: every form a read shows of a stored HTML text (text/rendered-forms.ts), one row
 * per distinct text, keyed by `renderedKey` (migration 20261207000100, docs/architecture.md
 * "Rendered texts"). `posts.description_hash`/`excerpt_hash` and `terms.description_hash` name their
 * text's row (NULL: an empty text, which has none). A series' 1,000 occurrences with one 16 KB
 * description share one row, rendered once; the write of a text already stored renders nothing.
 *
 * Holding and cleaning follow MySQL's shared search texts (db/search-index.ts "Shared texts and
 * their cleaning"). A writer may only name a text whose row it holds: it reads the row with a shared
 * lock, or renders and inserts it (`insert ignore`) when missing, until it holds it. A write that
 * stops naming a text (a field changed, a record deleted) takes the text's row exclusively, looks for
 * any post or term still naming it with a locking read, and deletes the row only when there is none.
 * So no row is deleted while named, and none outlives its last name: the table holds at most one row
 * per distinct text stored. On MySQL the hash columns are foreign keys as well (a Galera node's row
 * locks hold on that node only; the key makes a delete and a write naming the row through another
 * node conflict at certification). SQLite runs one write transaction at a time: no locks needed.
 */

/** The columns of the forms, by form. */
const FORM_COLUMNS: Record<keyof RenderedForms, string> = {
  paragraphs: 'paragraphs',
  embedded: 'embedded',
  plain: 'plain',
  text: 'text',
  pageHtml: 'page_html',
  summary: 'summary',
};

/** Keys per statement. */
const KEYS_PER_STATEMENT = 200;

/** Characters of forms per INSERT (a text of 16 KB has about 100 KB of forms; MySQL's packets are limited). */
const INSERT_CHARS = 1_000_000;

function locking(trx: Knex, clause: string): string {
  return engineOf(trx) === 'mysql' ? ` ${clause}` : '';
}

async function heldKeys(trx: Knex, keys: string[]): Promise<Set<string>> {
  const [sql, rows] = [`select hash from rendered_texts where hash in (${keys.map(() => '?').join(', ')})${locking(trx, 'lock in share mode')}`, keys];
  const found = await trx.raw(sql, rows);
  const list = (engineOf(trx) === 'mysql' ? found[0] : found) as Array<{ hash: string }>;
  return new Set(list.map((row) => String(row.hash)));
}

function rowOf(key: string, forms: RenderedForms): Record<string, string | null> {
  return {
    hash: key,
    paragraphs: forms.paragraphs,
    // Most texts fit the embedded cut: the same as the paragraphs, not stored twice.
    embedded: forms.embedded === forms.paragraphs ? null : forms.embedded,
    plain: forms.plain,
    text: forms.text,
    page_html: forms.pageHtml,
    summary: forms.summary,
  };
}

/**
 * The keys of some fields' texts (null for an empty text), each text's row held until the
 * transaction ends: found rows share-locked, missing ones rendered (once per distinct text, a turn of
 * the loop given between texts) and inserted. In key order, so that writers of the same texts take
 * them in one order.
 */
export async function holdRenderedTexts(trx: Knex, texts: Array<{ field: TextField; text: string }>): Promise<Array<string | null>> {
  const sources = new Map<string, { kind: 'post' | 'term'; text: string }>();
  const keys = texts.map(({ field, text }) => {
    if (text === '') return null;
    const source = sourceOf(field, text);
    const key = renderedKey(source.kind, source.text);
    sources.set(key, source);
    return key;
  });
  const sorted = [...sources.keys()].sort();
  for (let i = 0; i < sorted.length; i += KEYS_PER_STATEMENT) {
    let wanted = sorted.slice(i, i + KEYS_PER_STATEMENT);
    // Gone again after an insert (a cleaner's delete committed after it): rendered and inserted again.
    while (wanted.length) {
      const held = await heldKeys(trx, wanted);
      wanted = wanted.filter((key) => !held.has(key));
      if (wanted.length === 0) break;
      let rows: Array<Record<string, string | null>> = [];
      let size = 0;
      const flush = async () => {
        await loopTurn();
        await trx('rendered_texts').insert(rows).onConflict('hash').ignore();
        [rows, size] = [[], 0];
      };
      for (const key of wanted) {
        const source = sources.get(key)!;
        const forms = lazyForms(source.kind, source.text);
        // A turn of the loop between forms: one form of the largest text allowed takes milliseconds.
        for (const form of FORMS) {
          await loopTurn();
          void forms[form];
        }
        const row = rowOf(key, forms);
        rows.push(row);
        size += Object.values(row).reduce((sum, value) => sum + (value?.length ?? 0), 0);
        if (size >= INSERT_CHARS) await flush();
      }
      if (rows.length) await flush();
      // SQLite: the insert is this transaction's, nobody else's; MySQL: look again, with the lock.
      if (engineOf(trx) !== 'mysql') break;
    }
  }
  return keys;
}

/** The columns that name a rendered text, by table. A key holds its kind (`post`, `term`): only one table can name it. */
const NAMING: Record<'posts' | 'terms', string[]> = { posts: ['description_hash', 'excerpt_hash'], terms: ['description_hash'] };

/**
 * Deletes the rows of those of `keys` (named by `table` before a write) that nothing names any more
 * (see above), after the write that stopped naming them; `keep`: keys the write names.
 */
export async function releaseRenderedTexts(trx: Knex, table: 'posts' | 'terms', keys: Iterable<string | null>, keep: Iterable<string | null> = []): Promise<void> {
  const kept = new Set(keep);
  const candidates = [...new Set(keys)].filter((key): key is string => key !== null && !kept.has(key)).sort();
  const mysql = engineOf(trx) === 'mysql';
  const rowsOf = (result: unknown) => (mysql ? (result as unknown[][])[0] : result) as unknown[];
  for (const key of candidates) {
    // MySQL: the row exclusively first, so that every writer naming it has committed (SQLite: one writer).
    if (mysql && rowsOf(await trx.raw('select hash from rendered_texts where hash = ? for update', [key])).length === 0) continue;
    const columns = NAMING[table];
    const named = await trx.raw(
      `select 1 as one from ${table} where ${columns.map((c) => `${c} = ?`).join(' or ')} limit 1${locking(trx, 'lock in share mode')}`,
      columns.map(() => key),
    );
    if (rowsOf(named).length === 0) await trx('rendered_texts').where('hash', key).delete();
  }
}

/**
 * The keys some posts or terms name now in `fields` (all: undefined), with a locking read on MySQL
 * (their rows are about to change): what to release after the write.
 */
export async function namedRenderedTexts(trx: Knex, table: 'posts' | 'terms', ids: number[], fields?: string[]): Promise<Set<string>> {
  const columns = NAMING[table].filter((column) => fields === undefined || fields.includes(column.replace(/_hash$/, '')));
  const named = new Set<string>();
  if (columns.length === 0) return named;
  for (let i = 0; i < ids.length; i += KEYS_PER_STATEMENT) {
    await loopTurn();
    const query = trx(table)
      .whereIn('id', ids.slice(i, i + KEYS_PER_STATEMENT))
      .select(columns);
    for (const row of await (engineOf(trx) === 'mysql' ? query.forUpdate() : query)) for (const column of columns) if (row[column] !== null) named.add(String(row[column]));
  }
  return named;
}

/**
 * The key columns of the texts among some written post columns (`description`, `excerpt`; a term's
 * `description` with `term`), their rows held (see above): what to write with them.
 */
export async function textKeyColumns(trx: Knex, written: object, term = false): Promise<Record<string, string | null>> {
  const columns = written as Record<string, unknown>;
  const fields = (term ? ['description'] : ['description', 'excerpt']).filter((field) => typeof columns[field] === 'string');
  if (fields.length === 0) return {};
  const keys = await holdRenderedTexts(
    trx,
    fields.map((field) => ({ field: term ? 'termDescription' : (field as TextField), text: columns[field] as string })),
  );
  return Object.fromEntries(fields.map((field, i) => [`${field}_hash`, keys[i]!]));
}

/** The texts among some written columns (what `namedRenderedTexts` looks at). */
export function textFieldsOf(columns: object): string[] {
  return ['description', 'excerpt'].filter((field) => typeof (columns as Record<string, unknown>)[field] === 'string');
}

/** The stored forms `forms` of some texts by key, in one statement per KEYS_PER_STATEMENT distinct keys (none for no key). */
export async function loadRenderedTexts(db: Knex, keys: Iterable<string | null>, forms: Array<keyof RenderedForms>): Promise<Map<string, Partial<RenderedForms>>> {
  const wanted = [...new Set(keys)].filter((key): key is string => key !== null);
  const loaded = new Map<string, Partial<RenderedForms>>();
  // The embedded form is stored only where it differs from the paragraphs.
  const columns = [...new Set(forms.flatMap((form) => (form === 'embedded' ? ['embedded', 'paragraphs'] : [FORM_COLUMNS[form]])))];
  for (let i = 0; i < wanted.length; i += KEYS_PER_STATEMENT) {
    const rows = await db('rendered_texts')
      .whereIn('hash', wanted.slice(i, i + KEYS_PER_STATEMENT))
      .select(['hash', ...columns]);
    for (const row of rows) {
      const found: Partial<RenderedForms> = {};
      for (const form of forms) found[form] = form === 'embedded' ? String(row.embedded ?? row.paragraphs) : String(row[FORM_COLUMNS[form]]);
      loaded.set(String(row.hash), found);
    }
  }
  return loaded;
}
