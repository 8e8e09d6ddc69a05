import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { createUsers, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { createEvent, eventsApp, listEvents, type Http } from '../../helpers/events.js';
import { VENUE, createLinked, listLinked } from '../../helpers/linked.js';
import { CATEGORIES, createTerm, list as listTerms } from '../../helpers/terms.js';

/**
 * Page counts at the edges of every list (src/operations/shared/paging.ts): a total that is an exact multiple of
 * `per_page` has exactly total / per_page pages, the last one has no next page (body, `Link`), and
 * the page after it is 404. One short of and one past the multiple are checked beside it.
 */
describe('paging: page counts at exact multiples of per_page', () => {
  let http: Http;
  let editor: TestUser;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    ({ editor } = await createUsers());
  });

  /** The totals of a list answer as the body and all four headers say them (asserting they agree). */
  function totalsOf(res: Response): [number, number] {
    expectStatus(res, 200);
    const { total, total_pages } = res.body as { total: number; total_pages: number };
    assert.equal(res.headers['x-tec-total'], String(total));
    assert.equal(res.headers['x-wp-total'], String(total));
    assert.equal(res.headers['x-tec-totalpages'], String(total_pages));
    assert.equal(res.headers['x-wp-totalpages'], String(total_pages));
    return [total, total_pages];
  }

  /** Whether the answer points to a next page, asserting that the body and the `Link` header agree. */
  function hasNext(res: Response): boolean {
    const inBody = 'next_rest_url' in res.body;
    const inLink = /rel="next"/.test(String(res.headers.link ?? ''));
    assert.equal(inLink, inBody, 'Link rel="next" and next_rest_url agree');
    return inBody;
  }

  const addEvents = async (count: number) => {
    for (let i = 1; i <= count; i++) await createEvent(http, editor, { title: `Event ${i}` });
  };
  const YEAR_2030 = 'start_date=2030-01-01&end_date=2030-12-31';

  it('events: 4 records at per_page=2 are 2 pages; page 2 is the last and page 3 is 404', async () => {
    await addEvents(4);
    const first = await listEvents(http, `${YEAR_2030}&per_page=2`);
    assert.deepEqual(totalsOf(first), [4, 2]);
    assert.ok(hasNext(first));
    const last = await listEvents(http, `${YEAR_2030}&per_page=2&page=2`);
    assert.deepEqual(totalsOf(last), [4, 2]);
    assert.equal(last.body.events.length, 2);
    assert.equal(hasNext(last), false, 'no next page after the last one');
    assert.ok('previous_rest_url' in last.body);
    expectError(await listEvents(http, `${YEAR_2030}&per_page=2&page=3`), 404, 'event-archive-page-not-found');
  });

  it('events: per_page equal to the total is one page; one past and one short of a multiple round up', async () => {
    await addEvents(4);
    const whole = await listEvents(http, `${YEAR_2030}&per_page=4`);
    assert.deepEqual(totalsOf(whole), [4, 1]);
    assert.equal(hasNext(whole), false);
    expectError(await listEvents(http, `${YEAR_2030}&per_page=4&page=2`), 404, 'event-archive-page-not-found');
    assert.deepEqual(totalsOf(await listEvents(http, `${YEAR_2030}&per_page=1`)), [4, 4]);
    assert.deepEqual(totalsOf(await listEvents(http, `${YEAR_2030}&per_page=3`)), [4, 2]);
    assert.deepEqual(totalsOf(await listEvents(http, `${YEAR_2030}&per_page=5`)), [4, 1]);
    const lastOfThree = await listEvents(http, `${YEAR_2030}&per_page=3&page=2`);
    assert.equal(lastOfThree.body.events.length, 1);
    assert.equal(hasNext(lastOfThree), false);
  });

  it('venues: 2 records at per_page=1 are 2 pages; page 3 is 404', async () => {
    await createLinked(http, VENUE, editor, { venue: 'First hall' });
    await createLinked(http, VENUE, editor, { venue: 'Second hall' });
    const last = await listLinked(http, VENUE, 'per_page=1&page=2');
    assert.deepEqual(totalsOf(last), [2, 2]);
    assert.equal(hasNext(last), false);
    assert.ok(hasNext(await listLinked(http, VENUE, 'per_page=1')));
    expectError(await listLinked(http, VENUE, 'per_page=1&page=3'), 404, 'venue-archive-page-not-found');
    const whole = await listLinked(http, VENUE, 'per_page=2');
    assert.deepEqual(totalsOf(whole), [2, 1]);
    expectError(await listLinked(http, VENUE, 'per_page=2&page=2'), 404, 'venue-archive-page-not-found');
  });

  it('categories: 2 terms at per_page=2 are 1 page; page 2 is 404', async () => {
    await createTerm(http, CATEGORIES, editor, { name: 'Alpha' });
    await createTerm(http, CATEGORIES, editor, { name: 'Beta' });
    const whole = await listTerms(http, CATEGORIES, 'hide_empty=false&per_page=2');
    assert.deepEqual(totalsOf(whole), [2, 1]);
    assert.equal(hasNext(whole), false);
    expectError(await listTerms(http, CATEGORIES, 'hide_empty=false&per_page=2&page=2'), 404, 'term-archive-page-not-found');
    const last = await listTerms(http, CATEGORIES, 'hide_empty=false&per_page=1&page=2');
    assert.deepEqual(totalsOf(last), [2, 2]);
    assert.equal(hasNext(last), false);
  });
});
