import type { Knex } from 'knex';
import { openDatabase } from './knex.js';
import { migrateLatest } from './migrate.js';

/**
 * The shape of a SQLite database's schema, to compare a copy being restored with what the
 * migrations create (docs/durability.md "Restore"): every table with its columns (type, NOT NULL,
 * default, key), indexes (columns, unique, partial) and foreign keys, and every trigger and view with
 * its SQL. A copy is data, not code: a trigger or view the migrations do not create would run inside
 * the service (a trigger `AFTER INSERT ON secrets` made a new secret's user an administrator), and a
 * table or column that is missing makes the service answer 500.
 *
 * Each entry is a line `kind name: description`, so two shapes compare as two sets of lines.
 */
type SchemaShape = Map<string, string>;

interface MasterRow {
  type: string;
  name: string;
  sql: string | null;
}

/** SQL as written, with its spacing made uniform (a trigger's body is compared as text). */
function normalisedSql(sql: string | null): string {
  return (sql ?? '').replace(/\s+/g, ' ').trim();
}

async function pragma<T>(db: Knex, statement: string, name: string): Promise<T[]> {
  // The name comes from sqlite_master, quoted as an SQL string (PRAGMA takes no bound values).
  return (await db.raw(`PRAGMA ${statement}('${name.replace(/'/g, "''")}')`)) as T[];
}

/** The shape of the SQLite database `db` (every object but SQLite's own `sqlite_*`). */
export async function sqliteSchemaShape(db: Knex): Promise<SchemaShape> {
  const shape: SchemaShape = new Map();
  const objects = (await db.raw("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name")) as MasterRow[];
  for (const object of objects) {
    if (object.type === 'trigger' || object.type === 'view') {
      shape.set(`${object.type} ${object.name}`, normalisedSql(object.sql));
      continue;
    }
    if (object.type !== 'table') continue;
    shape.set(`table ${object.name}`, /^create virtual table/i.test(normalisedSql(object.sql)) ? normalisedSql(object.sql) : 'table');
    for (const column of await pragma<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>(db, 'table_info', object.name)) {
      shape.set(`column ${object.name}.${column.name}`, `${column.type.toLowerCase()} notnull=${column.notnull} default=${String(column.dflt_value)} pk=${column.pk}`);
    }
    for (const index of await pragma<{ name: string; unique: number; origin: string; partial: number }>(db, 'index_list', object.name)) {
      const columns = (await pragma<{ name: string | null }>(db, 'index_info', index.name)).map((column) => column.name ?? '(expression)');
      shape.set(`index ${object.name}.${index.name}`, `(${columns.join(', ')}) unique=${index.unique} origin=${index.origin} partial=${index.partial}`);
    }
    const keys = await pragma<{ id: number; seq: number; table: string; from: string; to: string | null; on_delete: string }>(db, 'foreign_key_list', object.name);
    for (const key of keys) shape.set(`foreign key ${object.name}.${key.id}.${key.seq}`, `${key.from} → ${key.table}.${key.to ?? '(key)'} on delete ${key.on_delete}`);
  }
  return shape;
}

let expected: Promise<SchemaShape> | undefined;

/** The shape the migrations create, on a new in-memory SQLite database (made once per process). */
export function migratedSqliteShape(): Promise<SchemaShape> {
  expected ??= (async () => {
    const { db } = openDatabase('sqlite::memory:');
    try {
      await migrateLatest(db);
      return await sqliteSchemaShape(db);
    } finally {
      await db.destroy();
    }
  })();
  return expected;
}

/** What differs between a shape and the expected one, one line each (empty: the same). */
export function shapeDifferences(actual: SchemaShape, wanted: SchemaShape): string[] {
  const differences: string[] = [];
  for (const [key, description] of wanted) {
    const found = actual.get(key);
    if (found === undefined) differences.push(`${key} is missing`);
    else if (found !== description) differences.push(`${key} differs (${found}; the migrations create ${description})`);
  }
  for (const [key, description] of actual) if (!wanted.has(key)) differences.push(`${key} is not ours (${description})`);
  return differences;
}
