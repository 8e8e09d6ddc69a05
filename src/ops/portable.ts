/**
 * `cli export FILE` and `cli import FILE`: every record as JSON Lines in an open format
 * (docs/export-format.md), the documented way to move from the embedded SQLite default to MySQL
 * (docs/moving-to-mysql.md). A record's fields carry the API's names for what the API
 * shows and the table's names for what it does not (password, trashed_from, series and occurrence
 * columns), with the stored values, so that an import keeps ids, slugs, dates, versions and series
 * exactly and a second export of the imported database is the same file (from line 2).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { engineOf } from '../db/engine.js';
import { inTransaction } from '../db/transactions.js';
import { utcNow } from '../dates/storage.js';
import { imageUrlHash } from '../domain/posts/images.js';
import { PortableRepository, type Row } from '../repositories/portable.js';
import type { PostType } from '../repositories/posts.js';
import { CATEGORIES, TAGS } from '../repositories/taxonomies.js';
import { UserError } from '../repositories/users.js';
import { checkImport, ImportRefusal } from './portable-checks.js';

const FORMAT = 'tec-events-export';
const FORMAT_VERSION = 1;

/** A problem with the file or the target database, told to the user in one line (the CLI's UserError: exit 1). */
class PortableError extends UserError {}

/** How a stored value is written to the file: the engines return booleans, integers and JSON text differently. */
type Kind = 'text' | 'int' | 'num' | 'bool' | 'json';
type Field = readonly [field: string, column: string, kind: Kind];

const POST_FIELDS: Field[] = [
  ['id', 'id', 'int'],
  ['slug', 'slug', 'text'],
  ['status', 'status', 'text'],
  ['author', 'author_id', 'int'],
  ['title', 'title', 'text'],
  ['description', 'description', 'text'],
  ['excerpt', 'excerpt', 'text'],
  ['password', 'password', 'text'],
  ['image', 'image_id', 'int'],
  ['date', 'date', 'text'],
  ['date_utc', 'date_utc', 'text'],
  ['modified', 'modified', 'text'],
  ['modified_utc', 'modified_utc', 'text'],
  ['trashed_from', 'trashed_from', 'text'],
  ['version', 'version', 'int'],
];

const text = (...columns: string[]): Field[] => columns.map((c) => [c, c, 'text'] as const);
const bool = (...columns: string[]): Field[] => columns.map((c) => [c, c, 'bool'] as const);

/** Each post type's own columns (`OWN_TABLES` of repositories/portable.ts), by the API's names where it has them. */
const OWN_FIELDS: Record<PostType, Field[]> = {
  image: [...text('url', 'extension'), ['width', 'width', 'int'], ['height', 'height', 'int']],
  venue: [
    ...text('address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website'),
    ...bool('show_map', 'show_map_link'),
    ['geo_lat', 'geo_lat', 'num'],
    ['geo_lng', 'geo_lng', 'num'],
  ],
  organizer: text('phone', 'website', 'email'),
  event: [
    ['start_date', 'start_local', 'text'],
    ['end_date', 'end_local', 'text'],
    ['utc_start_date', 'start_utc', 'text'],
    ['utc_end_date', 'end_utc', 'text'],
    ...text('timezone'),
    ...bool('all_day'),
    ['cost_raw', 'cost_raw', 'json'],
    ['cost_values', 'cost_values', 'json'],
    ['cost_min', 'cost_min', 'num'],
    ['cost_max', 'cost_max', 'num'],
    ...text('currency_symbol', 'currency_position', 'currency_code', 'website'),
    ...bool('show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'),
    ['post_parent', 'post_parent', 'int'],
    ['series_id', 'series_id', 'int'],
    ...text('recurrence_start'),
    ...bool('exception'),
  ],
};

const USER_FIELDS: Field[] = [['id', 'id', 'int'], ...text('login', 'role', 'email', 'created_at')];
const TERM_FIELDS: Field[] = [
  ['id', 'id', 'int'],
  ...text('name', 'slug', 'description'),
  ['parent', 'parent', 'int'],
  ['count', 'published_count', 'int'],
  ...text('name_key'),
  ['version', 'version', 'int'],
];
const SERIES_FIELDS: Field[] = [['recurrence', 'rules', 'json'], ...text('timezone', 'materialised_until', 'horizon_error')];

/** The file's kinds in the order an import writes them (foreign keys: users, images, then what refers to them). */
const POST_KINDS: PostType[] = ['image', 'venue', 'organizer', 'event'];
const TAXONOMY_OF = { category: CATEGORIES.name, tag: TAGS.name } as const;
const KINDS = ['user', 'category', 'tag', ...POST_KINDS] as const;
type RecordKind = (typeof KINDS)[number];

function toFile(row: Row, fields: Field[]): Row {
  const out: Row = {};
  for (const [field, column, kind] of fields) {
    const value = row[column];
    if (value === null || value === undefined) out[field] = null;
    else if (kind === 'int' || kind === 'num') out[field] = Number(value);
    else if (kind === 'bool') out[field] = Boolean(Number(value));
    else if (kind === 'json') out[field] = typeof value === 'string' ? JSON.parse(value) : value;
    else out[field] = String(value);
  }
  return out;
}

function fromFile(record: Row, fields: Field[], where: string): Row {
  const row: Row = {};
  for (const [field, column, kind] of fields) {
    if (!(field in record)) throw new PortableError(`${where}: the record has no "${field}"`);
    const value = record[field];
    row[column] = value === null ? null : kind === 'json' ? JSON.stringify(value) : kind === 'bool' ? Boolean(value) : value;
  }
  return row;
}

/** Categories parents first (each after its parent, siblings by id); a parent that does not exist does not hold a term back. */
function parentsFirst(terms: Row[]): Row[] {
  const ids = new Set(terms.map((t) => Number(t.id)));
  const children = new Map<number, Row[]>();
  for (const term of terms) {
    const parent = ids.has(Number(term.parent)) ? Number(term.parent) : 0;
    children.set(parent, [...(children.get(parent) ?? []), term]);
  }
  const out: Row[] = [];
  const visit = (parent: number) => {
    for (const term of children.get(parent) ?? []) {
      out.push(term);
      visit(Number(term.id));
    }
  };
  visit(0);
  // A cycle of parents (never written by the API) would leave terms unvisited: they come last.
  return [...out, ...terms.filter((t) => !out.includes(t))];
}

/** Posts read per query while exporting: the export's memory stays flat whatever the calendar's size. */
const EXPORT_PAGE = 1000;

/**
 * Writes every record of the database to `fd` as lines of the file, the header first (its counts
 * are counted before the records are read). Read in one transaction: a consistent copy of a live
 * database (a snapshot on SQLite's WAL and on InnoDB alike).
 */
async function writeExport(db: Knex, fd: number): Promise<Record<string, number>> {
  return inTransaction(db, async (trx) => {
    const repository = new PortableRepository(trx);
    // From the file's start: a transaction that runs again (db/transactions.ts) writes the file again.
    let offset = 0;
    fs.ftruncateSync(fd, 0);
    const write = (kind: string, records: Row[]) => {
      if (records.length) offset += fs.writeSync(fd, records.map((record) => JSON.stringify({ kind, record }) + '\n').join(''), offset);
    };
    const users = await repository.users();
    const categories = parentsFirst(await repository.terms(CATEGORIES.name));
    const tags = await repository.terms(TAGS.name);
    const counts: Record<string, number> = { user: users.length, category: categories.length, tag: tags.length };
    for (const type of POST_KINDS) counts[type] = await repository.postCount(type);
    write('header', [{ format: FORMAT, version: FORMAT_VERSION, engine: engineOf(trx), exported_at: utcNow(), counts, next_ids: await repository.nextIds() }]);
    write(
      'user',
      users.map((user) => toFile(user, USER_FIELDS)),
    );
    write(
      'category',
      categories.map((term) => toFile(term, TERM_FIELDS)),
    );
    write(
      'tag',
      tags.map((term) => toFile(term, TERM_FIELDS)),
    );
    for (const type of POST_KINDS) {
      for (let after = 0; ;) {
        const rows = await repository.posts(type, after, EXPORT_PAGE);
        if (rows.length === 0) break;
        after = Number(rows[rows.length - 1].id);
        const ids = rows.map((row) => Number(row.id));
        const links = type === 'event' ? await repository.eventLinks(ids) : undefined;
        const series = type === 'event' ? await repository.series(ids) : undefined;
        write(
          type,
          rows.map((row) => {
            const record = { ...toFile(row, POST_FIELDS), ...toFile(row, OWN_FIELDS[type]) };
            if (!links || !series) return record;
            const linked = links.get(Number(row.id))!;
            const ownSeries = series.get(Number(row.id));
            return {
              ...record,
              venue: linked.venues,
              organizer: linked.organizers,
              categories: linked.categories,
              tags: linked.tags,
              series: ownSeries ? toFile(ownSeries, SERIES_FIELDS) : null,
            };
          }),
        );
      }
    }
    return counts;
  });
}

/** A file operation whose failure is told as the file's problem (the CLI would take ENOENT or EACCES for the database's). */
function fileStep<T>(what: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    throw new PortableError(`${what}: ${(err as Error).message}`);
  }
}

/** Writes the export to `file` (through a temporary file renamed at the end, so a failed export leaves no half file). */
async function exportToFile(db: Knex, file: string, force: boolean): Promise<Record<string, number>> {
  if (!force && fs.existsSync(file)) throw new PortableError(`${file} exists; give --force to overwrite it`);
  const partial = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.partial`);
  const fd = fileStep(`cannot write ${file}`, () => fs.openSync(partial, 'w'));
  let counts: Record<string, number>;
  try {
    counts = await writeExport(db, fd);
    // On disk before it takes the file's name: a crash cannot leave a short file under it.
    fs.fsyncSync(fd);
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    fs.closeSync(fd);
  }
  fileStep(`cannot write ${file}`, () => fs.renameSync(partial, file));
  return counts;
}

/** Reads and checks a file's lines: the header, then records of known kinds in the order an import needs. */
function parseLines(content: string): { counts: Record<string, number>; nextIds: Record<string, number>; records: Array<{ kind: RecordKind; record: Row; line: number }> } {
  const lines = content.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
  const parse = (line: string, n: number) => {
    try {
      return JSON.parse(line) as { kind?: unknown; record?: unknown };
    } catch {
      throw new PortableError(`line ${n}: not JSON`);
    }
  };
  const header = lines.length ? parse(lines[0], 1) : {};
  const head = header.record as { format?: unknown; version?: unknown; counts?: Record<string, number>; next_ids?: Record<string, number> } | undefined;
  if (header.kind !== 'header' || head?.format !== FORMAT) throw new PortableError(`line 1: not a ${FORMAT} file (its first line is its header)`);
  if (head.version !== FORMAT_VERSION) throw new PortableError(`line 1: format version ${String(head.version)}; this version reads ${FORMAT_VERSION}`);
  let rank = 0;
  const records = lines.slice(1).map((line, i) => {
    const { kind, record } = parse(line, i + 2);
    const at = KINDS.indexOf(kind as RecordKind);
    if (at < 0 || typeof record !== 'object' || record === null) throw new PortableError(`line ${i + 2}: unknown kind "${String(kind)}" or no record`);
    if (at < rank) throw new PortableError(`line ${i + 2}: a ${String(kind)} after a ${KINDS[rank]} (the order is ${KINDS.join(', ')})`);
    rank = at;
    return { kind: kind as RecordKind, record: record as Row, line: i + 2 };
  });
  for (const kind of KINDS) {
    const found = records.filter((r) => r.kind === kind).length;
    if ((head.counts?.[kind] ?? 0) !== found) throw new PortableError(`the header counts ${head.counts?.[kind] ?? 0} ${kind} record(s), the file holds ${found}: is it cut short?`);
  }
  return { counts: head.counts ?? {}, nextIds: head.next_ids ?? {}, records };
}

/** Reads an export into an empty database, all in one transaction (nothing is left behind when it fails). */
export async function importFromFile(db: Knex, file: string, now = new Date()): Promise<Record<string, number>> {
  const { counts, nextIds, records } = parseLines(fileStep(`cannot read ${file}`, () => fs.readFileSync(file, 'utf8')));
  // Every record against the API's rules before anything is written (ops/portable-checks.ts).
  try {
    checkImport(records, nextIds, now);
  } catch (err) {
    throw err instanceof ImportRefusal ? new PortableError(err.message) : err;
  }
  const held = await new PortableRepository(db).recordCounts();
  if (held.users + held.posts + held.terms > 0) {
    throw new PortableError(`the database is not empty (${held.users} user(s), ${held.posts} post(s), ${held.terms} term(s)); import reads into an empty database only`);
  }
  const of = (kind: RecordKind) => records.filter((r) => r.kind === kind);
  await withoutStatements(() => writeImport(db, of, nextIds));
  // MySQL's ALTER TABLE commits by itself: after the import's transaction.
  if (engineOf(db) === 'mysql') await new PortableRepository(db).continueIds(nextIds);
  return counts;
}

/**
 * Runs the import's writes; a database error (which the checks should have made impossible) is told
 * in the driver's words, without the statement Knex puts before them: an import's errors never show
 * SQL (nor the values in it).
 */
async function withoutStatements<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof PortableError) throw err;
    const words = String((err as { sqlMessage?: string }).sqlMessage ?? (err as Error).message ?? err)
      .split('\n')[0]
      .split(' - ')
      .pop();
    throw new PortableError(`the database refused the import, which wrote nothing: ${words}`);
  }
}

type RecordsOf = (kind: RecordKind) => Array<{ kind: RecordKind; record: Row; line: number }>;

/** Writes the checked records in one transaction (nothing is left behind when it fails). */
async function writeImport(db: Knex, of: RecordsOf, nextIds: Record<string, number>): Promise<void> {
  await inTransaction(db, async (trx) => {
    const repository = new PortableRepository(trx);
    await repository.insertUsers(of('user').map(({ record, line }) => fromFile(record, USER_FIELDS, `line ${line}`)));
    for (const kind of ['category', 'tag'] as const) {
      // The count is counted again from the links (repositories/portable.ts finish).
      const fields = TERM_FIELDS.filter(([field]) => field !== 'count');
      await repository.insertTerms(
        TAXONOMY_OF[kind],
        of(kind).map(({ record, line }) => fromFile(record, fields, `line ${line}`)),
      );
    }
    const seriesRows: Row[] = [];
    for (const type of POST_KINDS) {
      const rows = of(type).map(({ record, line }) => ({ post: fromFile(record, POST_FIELDS, `line ${line}`), own: fromFile(record, OWN_FIELDS[type], `line ${line}`) }));
      await repository.insertPosts(type, rows, imageUrlHash);
      if (type !== 'event') continue;
      const links = of('event').map(({ record, line }) => {
        const list = (field: string) => {
          const value = record[field];
          if (!Array.isArray(value) || !value.every((id) => Number.isSafeInteger(id))) throw new PortableError(`line ${line}: "${field}" is not a list of ids`);
          return value as number[];
        };
        if (record.series) seriesRows.push({ id: record.id, ...fromFile(record.series as Row, SERIES_FIELDS, `line ${line} series`) });
        return { eventId: Number(record.id), venues: list('venue'), organizers: list('organizer'), categories: list('categories'), tags: list('tags') };
      });
      await repository.insertLinks(links);
    }
    await repository.insertSeries(seriesRows);
    await repository.finish();
    if (engineOf(trx) === 'sqlite') await repository.continueIds(nextIds);
  });
}

/** The CLI's `export FILE [--force]` and `import FILE`: runs one and prints what it wrote. */
export async function portableCommand(db: Knex, command: 'export' | 'import', file: string | undefined, force: boolean): Promise<number> {
  if (!file) throw new PortableError(`${command} needs a FILE`);
  const counts = command === 'export' ? await exportToFile(db, file, force) : await importFromFile(db, file);
  const told = KINDS.map((kind) => `${counts[kind] ?? 0} ${kind}`).join(', ');
  console.log(command === 'export' ? `exported to ${file}: ${told}` : `imported from ${file}: ${told}`);
  if (command === 'import' && (counts.user ?? 0) > 0) console.log('users have no secrets yet: give each one with `npm run -s cli -- secret add LOGIN`');
  return 0;
}
