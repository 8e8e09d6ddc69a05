import assert from 'node:assert/strict';
import { openDatabase, reusePreparedStatements } from '../../src/db/knex.js';

/**
 * The SQLite connection's kept prepared statements (db/knex.ts `reusePreparedStatements`): reused
 * while kept, and bounded in number and in characters of SQL, since SQLite holds each statement's
 * program outside V8's heap (docs/performance.md "Memory").
 */

/** A connection whose `prepare` records which SQL it really prepared. */
function recordingConnection(limits: { statements: number; chars: number }) {
  const prepared: string[] = [];
  const conn = { prepare: (sql: string): unknown => (prepared.push(sql), { sql }) };
  reusePreparedStatements(conn, limits);
  return { conn, prepared };
}

describe('kept prepared statements (SQLite)', () => {
  it('hands back the statement it prepared for the same SQL', () => {
    const { conn, prepared } = recordingConnection({ statements: 10, chars: 1000 });
    const first = conn.prepare('select 1');
    assert.equal(conn.prepare('select 1'), first);
    assert.deepEqual(prepared, ['select 1']);
  });

  it('lets the least recently used go past the number kept', () => {
    const { conn, prepared } = recordingConnection({ statements: 2, chars: 1000 });
    conn.prepare('select 1');
    conn.prepare('select 2');
    conn.prepare('select 1'); // now the most recently used
    conn.prepare('select 3'); // `select 2` goes
    conn.prepare('select 1');
    conn.prepare('select 2');
    assert.deepEqual(prepared, ['select 1', 'select 2', 'select 3', 'select 2']);
  });

  it('lets the least recently used go past the characters of SQL kept', () => {
    const { conn, prepared } = recordingConnection({ statements: 100, chars: 25 });
    const a = `select ${'a'.repeat(10)}`; // 17 characters
    const b = `select ${'b'.repeat(3)}`; // 10 characters: both together are 27, over 25
    conn.prepare(a);
    conn.prepare(b); // `a` goes
    conn.prepare(b);
    conn.prepare(a); // prepared again, and `b` goes
    conn.prepare(a);
    assert.deepEqual(prepared, [a, b, a]);
  });

  it('prepares a statement that alone is over the characters kept each time, and keeps the others it kept', () => {
    const { conn, prepared } = recordingConnection({ statements: 100, chars: 12 });
    const short = 'select 1';
    const long = 'select 1234567890';
    conn.prepare(short);
    assert.notEqual(conn.prepare(long), conn.prepare(long));
    conn.prepare(short);
    assert.deepEqual(prepared, [short, long, long]);
  });

  it('is what a SQLite connection of the service prepares through', async () => {
    const { db } = openDatabase('sqlite::memory:');
    try {
      const rows = await db.raw('select 1 as one');
      assert.deepEqual(rows, [{ one: 1 }]);
      const conn = (await db.client.acquireConnection()) as { prepare(sql: string): unknown };
      try {
        assert.equal(conn.prepare('select 2'), conn.prepare('select 2'));
      } finally {
        db.client.releaseConnection(conn);
      }
    } finally {
      await db.destroy();
    }
  });
});
