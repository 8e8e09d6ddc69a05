import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { testApp } from '../../helpers/app.js';
import { openTestDatabase } from '../../helpers/database.js';
import { PUBLIC_URL, TAGS, collectionPath, type Http } from '../../helpers/terms.js';
import { engineOf } from '../../../src/db/engine.js';
import { bumpDataVersion } from '../../../src/db/data-version.js';
import { TERM_LIST_WINDOW, TERM_SLICE_IDS } from '../../../src/repositories/terms.js';

/**
 * Term lists over large tables (docs/limits.md "Term lists"): on SQLite a table whose ids span
 * TERM_SLICE_IDS or more is read a slice of ids at a time (the same answers as the single
 * statement, which the first test compares), and on both engines a page reaching past the first
 * TERM_LIST_WINDOW terms of a list answers 400 naming `page` (a page past the end stays a 404).
 * The 1,000,000-term figures are the benchmark's (`npm run bench -- --terms`).
 */
/** A statement of a slice (its id range). */
const SLICE_STATEMENT = /[`"]t[`"]\.[`"]id[`"] >= \?/;

describe('term lists over large tables', function () {
  this.timeout(60_000);
  let http: Http;
  let db: Knex;

  beforeEach(async () => {
    ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
    ({ db } = await openTestDatabase());
  });

  /** Inserts `count` tags in multi-row statements: names in mixed case and scripts, some empty. */
  async function insertTags(count: number, name: (i: number) => string): Promise<void> {
    for (let at = 0; at < count; at += 500) {
      const rows = [];
      for (let i = at; i < Math.min(count, at + 500); i++) {
        rows.push({ taxonomy: 'post_tag', name: name(i), slug: `tag-${i}`, description: i % 3 ? '' : `About ${name(i)}`, parent: 0, published_count: i % 4, name_key: null });
      }
      await db('terms').insert(rows);
    }
    await bumpDataVersion(db);
  }

  const get = (query: string) => http().get(`${collectionPath(TAGS)}?${query}`);

  it('answers a list read in slices exactly as the single statement does (search, every order, paging)', async () => {
    // '\u212A' is the Kelvin sign, which lower() turns into an ASCII k: an ASCII search finds it.
    const names = ['Jazz', 'jazz band', 'Ärger', 'apple', 'Zebra', 'éclair', 'Éclair', '77 Sunset', 'B77', '\u212A-pop'];
    await insertTags(300, (i) => `${names[i % names.length]} ${(i * 37) % 101}`);
    const queries = [
      '',
      'hide_empty=false',
      'hide_empty=false&search=77',
      'search=a&per_page=7&page=3',
      'hide_empty=false&search=%C3%A9clair',
      'hide_empty=false&search=k-pop&per_page=50',
      'hide_empty=false&search=RGER&per_page=50',
      'hide_empty=false&orderby=name&order=desc&per_page=50&page=2',
      'hide_empty=false&orderby=slug&per_page=50&page=4',
      'hide_empty=false&orderby=count&order=desc&per_page=20&page=5',
      'hide_empty=false&orderby=description&per_page=30',
      'hide_empty=false&orderby=id&order=desc&per_page=50&page=6',
      'hide_empty=false&page=99',
    ];
    const answers = async () => {
      const out: Array<{ status: number; total: unknown; body: unknown }> = [];
      for (const query of queries) {
        const res = await get(query);
        out.push({ status: res.status, total: res.headers['x-wp-total'], body: res.body });
      }
      return out;
    };
    const statements: string[] = [];
    const listen = (query: { sql: string }) => statements.push(query.sql);
    db.on('query', listen);
    try {
      const single = await answers();
      const slicedBefore = statements.filter((sql) => SLICE_STATEMENT.test(sql)).length;
      // A category far away in the id space: the tags are the same, the table now spans more than a slice.
      const [far] = await db('terms').max({ id: 'id' });
      await db('terms').insert({ id: Number(far.id) + TERM_SLICE_IDS * 2, taxonomy: 'tribe_events_cat', name: 'Far', slug: 'far', description: '', parent: 0, published_count: 0 });
      await bumpDataVersion(db);
      statements.length = 0;
      const sliced = await answers();
      assert.equal(slicedBefore, 0, 'a small table is read in one statement');
      if (engineOf(db) === 'sqlite') assert.ok(statements.filter((sql) => SLICE_STATEMENT.test(sql)).length >= queries.length * 2, 'read in slices');
      assert.equal(single.filter((a) => a.status === 200).length, queries.length - 1);
      assert.equal(single[queries.length - 1].status, 404);
      assert.deepEqual(sliced, single);
      // The search is lower(name) containing the lower-cased term, whatever SQLite's own LIKE knows.
      const kelvin = single[queries.indexOf('hide_empty=false&search=k-pop&per_page=50')];
      assert.equal(kelvin.total, '30');
      const umlaut = single[queries.indexOf('hide_empty=false&search=RGER&per_page=50')];
      assert.equal(umlaut.total, '30');
    } finally {
      db.off('query', listen);
    }
  });

  it(`refuses a page reaching past the first ${TERM_LIST_WINDOW} terms with 400 naming page; the last page within answers, a page past the end is a 404`, async () => {
    await insertTags(TERM_LIST_WINDOW + 40, (i) => `Tag ${String(i).padStart(5, '0')}`);
    for (const spanning of [false, true]) {
      if (spanning) {
        await db('terms').insert({ id: TERM_LIST_WINDOW * 10, taxonomy: 'tribe_events_cat', name: 'Far', slug: 'far', description: '', parent: 0, published_count: 0 });
        await bumpDataVersion(db);
      }
      const last = await get('hide_empty=false&per_page=50&page=200');
      assert.equal(last.status, 200, JSON.stringify(last.body).slice(0, 300));
      assert.equal(last.headers['x-wp-total'], String(TERM_LIST_WINDOW + 40));
      assert.deepEqual(
        last.body.tags.map((tag: { name: string }) => tag.name),
        Array.from({ length: 50 }, (_, i) => `Tag ${String(TERM_LIST_WINDOW - 50 + i).padStart(5, '0')}`),
      );
      const beyond = await get('hide_empty=false&per_page=50&page=201');
      assert.equal(beyond.status, 400, JSON.stringify(beyond.body));
      assert.equal(beyond.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(beyond.body.data.params), ['page']);
      assert.match(beyond.body.data.params.page, new RegExp(`at most ${TERM_LIST_WINDOW}`));
      const past = await get('hide_empty=false&per_page=50&page=202');
      assert.equal(past.status, 404, JSON.stringify(past.body));
      // Narrowed by a search, the same page is within the list's end: 404 as before.
      assert.equal((await get('hide_empty=false&per_page=50&page=201&search=Tag%20000')).status, 404);
    }
  });
});
