import assert from 'node:assert/strict';
import { createUsers, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';
import { call, eventPath, eventsApp, eventsPath, type Http } from '../../helpers/events.js';
import { engineOf } from '../../../src/db/engine.js';
import { textHash } from '../../../src/db/search-index.js';
import { trigramsOf } from '../../../src/text/trigrams.js';
import type { Role } from '../../../src/auth/capabilities.js';

/**
 * The search index of a long series (docs/contract.md §15, db/search-index.ts): on MySQL the 1,000
 * occurrences of a series share one text's trigram rows, and the search keeps finding the right
 * occurrences through exceptions, changes of the whole series and deletes (both engines).
 */

const SIZE = 1000;
const WINDOW = 'start_date=2027-02-01&end_date=2027-12-31';

/** A description of a few hundred characters, with `word` in it, many distinct trigrams. */
function description(word: string): string {
  const words = Array.from({ length: 60 }, (_, i) => `w${(i * 7919) % 1000}x${String.fromCharCode(97 + (i % 26))}`);
  return `${words.slice(0, 30).join(' ')} ${word} ${words.slice(30).join(' ')}.`;
}

describe('search index: a series of 1,000 occurrences shares its texts (db/search-index.ts)', function () {
  this.timeout(120_000);
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    http = (await eventsApp()).http;
    users = await createUsers();
  });

  const found = async (word: string): Promise<number> => {
    const res = await call(http, 'get', `${eventsPath}?${WINDOW}&per_page=1&search=${word}`, users.editor);
    expectStatus(res, 200);
    return Number(res.body.total);
  };

  it('writes one text’s trigrams for the whole series, and finds the occurrences after scope=this, scope=all and deletes', async () => {
    const { db } = await openTestDatabase();
    const mysql = engineOf(db) === 'mysql';
    const rows = async (table: string, hash: string) => Number((await db(table).where('text_hash', hash).count({ n: '*' }))[0].n);
    const first = description('quokkafirst');
    const created = await call(http, 'post', eventsPath, users.editor, {
      title: 'Hourly',
      description: first,
      start_date: '2027-03-01 09:00:00',
      end_date: '2027-03-01 09:30:00',
      timezone: 'UTC',
      status: 'publish',
      recurrence: [`RRULE:FREQ=HOURLY;COUNT=${SIZE}`],
    });
    expectStatus(created, 201);
    const seriesId = Number(created.body.id);
    const ids: number[] = (await db('events').where('series_id', seriesId).orderBy('start_utc').pluck('post_id')).map(Number);
    assert.equal(ids.length, SIZE);
    if (mysql) {
      assert.equal(await rows('post_search_texts', textHash(first)), SIZE, 'each occurrence names the text');
      assert.equal(await rows('search_text_grams', textHash(first)), trigramsOf(first).length, 'its trigrams once');
      assert.equal(Number((await db('search_text_grams').count({ n: '*' }))[0].n), trigramsOf(first).length + trigramsOf('Hourly').length, 'and nothing else');
    }
    assert.equal(await found('quokkafirst'), SIZE);

    // One occurrence's own description (an exception).
    const own = description('quokkaown');
    expectStatus(await call(http, 'patch', `${eventPath(ids[4])}?scope=this`, users.editor, { description: own }), 200);
    assert.equal(await found('quokkaown'), 1);
    assert.equal(await found('quokkafirst'), SIZE - 1);
    if (mysql) assert.equal(await rows('post_search_texts', textHash(first)), SIZE - 1);

    // The whole series (the exception keeps its own description, or takes the new one: the index follows either).
    const all = description('quokkaall');
    const patched = await call(http, 'patch', `${eventPath(seriesId)}?scope=all`, users.editor, { description: all });
    expectStatus(patched, 200);
    const withAll = Number((await db('posts').whereIn('id', ids).where('description', all).count({ n: '*' }))[0].n);
    assert.ok(withAll >= SIZE - 1);
    assert.equal(await found('quokkaall'), withAll);
    assert.equal(await found('quokkafirst'), 0);
    assert.equal(await found('quokkaown'), SIZE - withAll);
    if (mysql) {
      assert.equal(await rows('search_texts', textHash(first)), 0, 'a text no event names is deleted');
      assert.equal(await rows('search_text_grams', textHash(first)), 0);
      assert.equal(await rows('search_text_grams', textHash(all)), trigramsOf(all).length);
    }

    // Deletes: one occurrence, then the whole series.
    expectStatus(await call(http, 'delete', `${eventPath(ids[10])}?scope=this&force=true`, users.editor), 200);
    assert.equal(await found('quokkaall'), withAll - 1);
    expectStatus(await call(http, 'delete', `${eventPath(seriesId)}?scope=all&force=true`, users.editor), 200);
    assert.equal(await found('quokkaall'), 0);
    if (mysql) {
      assert.equal(Number((await db('post_search_texts').whereIn('post_id', ids).count({ n: '*' }))[0].n), 0);
      assert.equal(await rows('search_texts', textHash(all)), 0);
      assert.equal(await rows('search_text_grams', textHash(all)), 0);
    }
  });
});
