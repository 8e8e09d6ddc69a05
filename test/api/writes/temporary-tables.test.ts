import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createUsers, testApp } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { createEvent } from '../../helpers/events.js';
import { engineOf } from '../../../src/db/engine.js';

/**
 * On MariaDB no statement of an event create (with a new or known venue, organizer and category)
 * builds a temporary table. Such tables hold text columns, so they go to disk (Aria), and a Galera
 * node that had just donated IST crashed freeing one in the duplicate check of venues and organizers
 * (docs/mysql-and-cluster.md "A MariaDB bug to know"). The plans are read with EXPLAIN after ANALYZE, on a few venues
 * among many posts: the shape in which the old duplicate check chose a temporary table.
 */
describe('an event create builds no temporary table on MariaDB', () => {
  it('plans every statement of a create with a venue, an organizer and a category without one', async function () {
    const { db } = await openTestDatabase();
    if (engineOf(db) !== 'mysql') return this.skip(); // SQLite's plans are another matter: nothing crashed there.
    const { http } = await testApp();
    const { editor } = await createUsers();
    const body = (n: number) => ({
      title: `Concert ${n}`,
      venue: { venue: `Hall ${n % 3}` },
      organizer: [{ organizer: `Promoter ${n % 3}` }],
      categories: [`Genre ${n % 2}`],
    });
    for (let n = 0; n < 12; n++) await createEvent(http, editor, body(n));
    await db.raw('ANALYZE TABLE posts, venues, organizers, terms, event_terms, event_venues, event_organizers, events');

    const statements: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const record = (query: { sql: string; bindings?: readonly unknown[] }) => {
      if (/^\s*select/i.test(query.sql)) statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    db.on('query', record);
    try {
      for (let n = 12; n < 15; n++) await createEvent(http, editor, body(n));
    } finally {
      db.removeListener('query', record);
    }

    assert.ok(
      statements.some(({ sql }) => sql.includes('lower(p.title) =')),
      'the duplicate check ran',
    );
    const temporary: string[] = [];
    for (const { sql, bindings } of statements) {
      const [plan] = (await db.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[])) as [Array<{ Extra?: string | null }>];
      if (plan.some((row) => /Using temporary/.test(row.Extra ?? ''))) temporary.push(sql);
    }
    assert.deepEqual(temporary, []);
  });
});
