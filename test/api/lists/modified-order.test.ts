import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { linkRels } from '../../helpers/terms.js';
import { PUBLIC_URL, badParams, call, createEvent, eventPath, listEvents, pathOf, type Http, type Rec } from '../../helpers/events.js';
import { ORGANIZER, VENUE, collectionPath, createLinked, itemPath, listLinked, type LinkedResource } from '../../helpers/linked.js';

/**
 * `modified_after` / `modified_before` and `orderby` / `order` on the event, venue and organizer
 * lists (docs/contract.md §8), through HTTP. The app's clock is moved between writes, so records get
 * known modification (and publication) times.
 */

/** Three moments, a day apart, before the app's "now" (T3 is now for the list requests). */
const T1 = '2026-11-19T08:00:00Z';
const T2 = '2026-11-20T08:00:00Z';
const T3 = '2026-11-21T08:00:00Z';

/** A test app whose clock the test sets. */
async function clockedApp(): Promise<{ http: Http; at: (moment: string) => void }> {
  let now = new Date(T3);
  const { http } = await testApp({ publicUrl: PUBLIC_URL }, () => new Date(now));
  return { http, at: (moment) => (now = new Date(moment)) };
}

/** Every page of a list, following `next_rest_url`; checks each page's Link header and paging URLs. */
async function walk(http: Http, first: string, as: TestUser | undefined, collection: string, carried: Record<string, string>): Promise<Rec[]> {
  const items: Rec[] = [];
  let path: string | undefined = first;
  let pages = 0;
  while (path) {
    const res: Response = await call(http, 'get', path, as);
    expectStatus(res, 200);
    items.push(...(res.body[collection] as Rec[]));
    for (const url of [res.body.rest_url, res.body.next_rest_url, res.body.previous_rest_url].filter(Boolean) as string[]) {
      const params = new URL(url).searchParams;
      for (const [name, value] of Object.entries(carried)) assert.equal(params.get(name), value, `${name} in ${url}`);
    }
    const rels = linkRels(res);
    assert.equal(rels.next, res.body.next_rest_url);
    assert.equal(rels.prev, res.body.previous_rest_url);
    path = res.body.next_rest_url ? pathOf(res.body.next_rest_url) : undefined;
    pages += 1;
    assert.ok(pages < 50, 'paging does not end');
  }
  return items;
}

const ids = (items: Rec[]) => items.map((item) => Number(item.id));
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const descending = (values: number[]) => [...values].sort((a, b) => b - a);

describe('lists: modified_after, modified_before, orderby and order', () => {
  let http: Http;
  let at: (moment: string) => void;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http, at } = await clockedApp());
    users = await createUsers();
  });

  describe('GET /events', () => {
    /** Creates an event at the moment `when` (its publication and modification time). */
    const addAt = async (when: string, title: string, start: string, extra: Rec = {}) => {
      at(when);
      const event = await createEvent(http, users.editor, { title, start_date: start, end_date: start.replace(/ \d\d:/, ' 23:'), ...extra });
      at(T3);
      return event;
    };
    const titles = async (query: string, as?: TestUser) => {
      const res = await listEvents(http, query, as);
      expectStatus(res, 200);
      return (res.body.events as Rec[]).map((event) => event.title);
    };

    it('modified_after is inclusive and modified_before exclusive, at whole seconds, in any offset', async () => {
      await addAt(T1, 'One', '2027-03-01 10:00:00');
      await addAt(T2, 'Two', '2027-03-02 10:00:00');
      await addAt(T3, 'Three', '2027-03-03 10:00:00');
      assert.deepEqual(await titles(`modified_after=${T2}`), ['Two', 'Three']);
      assert.deepEqual(await titles(`modified_before=${T2}`), ['One']);
      assert.deepEqual(await titles(`modified_after=${T1}&modified_before=${T3}`), ['One', 'Two']);
      // The same instants written with an offset (URL-encoded `+`), a lower-case `t`/`z`, a fraction.
      assert.deepEqual(await titles('modified_after=2026-11-20T10:00:00%2B02:00'), ['Two', 'Three']);
      assert.deepEqual(await titles('modified_after=2026-11-20T03:00:00-05:00'), ['Two', 'Three']);
      assert.deepEqual(await titles('modified_after=2026-11-20t08:00:00z'), ['Two', 'Three']);
      assert.deepEqual(await titles('modified_after=2026-11-20T08:00:00.999Z'), ['Two', 'Three']);
      assert.deepEqual(await titles('modified_after=2026-11-20T08:00:01Z'), ['Three']);
      assert.deepEqual(await titles('modified_before=2026-11-20T08:00:00.999Z'), ['One']);
      // Consecutive windows list every event once.
      const windows = [`modified_before=${T2}`, `modified_after=${T2}&modified_before=${T3}`, `modified_after=${T3}`];
      assert.deepEqual((await Promise.all(windows.map((w) => titles(w)))).flat(), ['One', 'Two', 'Three']);
    });

    it('an update moves an event into a later window', async () => {
      const one = await addAt(T1, 'One', '2027-03-01 10:00:00');
      assert.deepEqual(await titles(`modified_after=${T2}`), []);
      at(T2);
      expectStatus(await call(http, 'post', eventPath(one.id), users.editor, { title: 'One again' }), 200);
      assert.deepEqual(await titles(`modified_after=${T2}`), ['One again']);
      // Trashing counts as a modification too (editors see the trash with status=trash).
      at('2026-11-20T09:00:00Z');
      expectStatus(await call(http, 'delete', eventPath(one.id), users.editor), 200);
      assert.deepEqual(await titles('modified_after=2026-11-20T09:00:00Z&status=trash', users.editor), ['One again']);
    });

    it('lifts the default date window only when no date parameter is given', async () => {
      await addAt(T2, 'Past', '2019-06-01 10:00:00');
      await addAt(T2, 'Soon', '2027-03-01 10:00:00');
      await addAt(T2, 'Far', '2035-01-01 10:00:00');
      assert.deepEqual(await titles(''), ['Soon'], 'the default window');
      assert.deepEqual(await titles(`modified_after=${T1}`), ['Past', 'Soon', 'Far']);
      assert.deepEqual(await titles(`modified_before=${T3}`), ['Past', 'Soon', 'Far']);
      const lifted = await listEvents(http, `modified_after=${T1}`);
      const url = new URL(lifted.body.rest_url);
      assert.equal(url.searchParams.get('start_date'), null, 'no default bound in the paging URL');
      assert.equal(url.searchParams.get('end_date'), null);
      assert.equal(url.searchParams.get('modified_after'), T1);
      // Any date parameter keeps the window rules (the defaults of the other bound included).
      assert.deepEqual(await titles(`modified_after=${T1}&start_date=2019-01-01`), ['Past', 'Soon']);
      assert.deepEqual(await titles(`modified_after=${T1}&end_date=2030-01-01`), ['Soon']);
      assert.deepEqual(await titles(`modified_after=${T1}&starts_after=2020-01-01`), ['Soon', 'Far']);
      assert.deepEqual(await titles(`modified_after=${T1}&ends_before=2020-01-01`), ['Past']);
      // `strict_dates` is not a window parameter.
      assert.deepEqual(await titles(`modified_after=${T1}&strict_dates=true`), ['Past', 'Soon', 'Far']);
    });

    it('lists changed events under the usual read rules: no one else’s drafts, protected events masked', async () => {
      await addAt(T2, 'Public', '2019-06-01 10:00:00');
      await addAt(T2, 'Editor draft', '2019-06-01 11:00:00', { status: 'draft' });
      at(T2);
      await createEvent(http, users.contributor, { title: 'Own draft', start_date: '2019-06-01 12:00:00', end_date: '2019-06-01 13:00:00' });
      await addAt(T2, 'Protected', '2019-06-01 13:00:00', { password: 'secret', description: 'Hidden text' });
      at(T3);
      const query = `modified_after=${T1}&orderby=modified`;
      assert.deepEqual((await titles(query)).sort(), ['Protected', 'Public']);
      assert.deepEqual((await titles(query, users.contributor)).sort(), ['Own draft', 'Protected', 'Public']);
      assert.deepEqual((await titles(query, users.editor)).sort(), ['Editor draft', 'Own draft', 'Protected', 'Public']);
      const res = await listEvents(http, query);
      const masked = (res.body.events as Rec[]).find((event) => event.title === 'Protected');
      assert.equal(masked?.description, '', 'masked for a caller who may not edit it');
      assert.equal(res.body.total, 2);
    });

    it('refuses values that are not date-times with an offset, naming the parameter', async () => {
      for (const bad of [
        '2026-01-01',
        '2026-01-01T00:00:00',
        '2026-01-01 00:00:00',
        'yesterday',
        'now',
        '1700000000',
        '2026-02-30T00:00:00Z',
        '2026-01-01T24:00:00Z',
        '2026-01-01T00:00:00 02:00',
        '',
      ]) {
        for (const name of ['modified_after', 'modified_before']) {
          const res = await listEvents(http, `${name}=${encodeURIComponent(bad)}`);
          assert.deepEqual(badParams(res), [name], `${name}=${bad}`);
        }
      }
      const both = await listEvents(http, 'modified_after=yesterday&modified_before=today&orderby=start');
      assert.deepEqual(badParams(both).sort(), ['modified_after', 'modified_before', 'orderby']);
      assert.deepEqual(badParams(await listEvents(http, 'order=up')), ['order']);
      assert.deepEqual(badParams(await listEvents(http, 'orderby=Title')), ['orderby'], 'orderby is exact, as in WordPress');
    });

    it('orders by each key, WordPress default directions, order in any case', async () => {
      // Created at T1, T2, T3; B is then updated last, so modification order differs from creation order.
      const a = await addAt(T1, 'banana', '2027-03-03 10:00:00');
      const b = await addAt(T2, 'Apple', '2027-03-01 10:00:00');
      const c = await addAt(T3, 'cherry', '2027-03-02 10:00:00');
      at('2026-11-21T09:00:00Z');
      expectStatus(await call(http, 'post', eventPath(a.id), users.editor, { excerpt: 'changed' }), 200);
      at(T3);
      const cases: Array<[string, string[]]> = [
        ['', ['Apple', 'cherry', 'banana']],
        ['orderby=event_date', ['Apple', 'cherry', 'banana']],
        ['orderby=event_date&order=desc', ['banana', 'cherry', 'Apple']],
        ['order=DESC', ['banana', 'cherry', 'Apple']],
        ['orderby=date', ['cherry', 'Apple', 'banana']],
        ['orderby=date&order=asc', ['banana', 'Apple', 'cherry']],
        ['orderby=modified', ['banana', 'cherry', 'Apple']],
        ['orderby=modified&order=Asc', ['Apple', 'cherry', 'banana']],
        ['orderby=title', ['cherry', 'banana', 'Apple']],
        ['orderby=title&order=ASC', ['Apple', 'banana', 'cherry']],
        ['orderby=id', ['cherry', 'Apple', 'banana']],
        ['orderby=id&order=asc', ['banana', 'Apple', 'cherry']],
      ];
      for (const [query, expected] of cases) assert.deepEqual(await titles(query), expected, query);
      assert.deepEqual([a.id, b.id, c.id], ascending([a.id, b.id, c.id]));
      // With `include` the plugin orders by publication date; an explicit orderby wins.
      const include = `include=${c.id},${a.id},${b.id}`;
      assert.deepEqual(await titles(include), ['banana', 'Apple', 'cherry']);
      assert.deepEqual(await titles(`${include}&order=desc`), ['cherry', 'Apple', 'banana']);
      assert.deepEqual(await titles(`${include}&orderby=title&order=asc`), ['Apple', 'banana', 'cherry']);
      // Replies are remembered per order: the same list in another order is not the first one again.
      assert.deepEqual(await titles('orderby=title&order=asc'), ['Apple', 'banana', 'cherry']);
      assert.deepEqual(await titles('orderby=title&order=desc'), ['cherry', 'banana', 'Apple']);
    });

    it('walks every page of equal keys without repeating or skipping an event, links carrying the parameters', async () => {
      // Eleven events with the same start, publication and modification time and title.
      at(T2);
      const created: number[] = [];
      for (let i = 0; i < 11; i++) created.push((await createEvent(http, users.editor, { title: 'Same', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00' })).id);
      await addAt(T1, 'Older', '2027-03-01 10:00:00');
      at(T3);
      for (const [orderby, order, expected] of [
        ['modified', 'desc', descending(created)],
        ['modified', 'ASC', ascending(created)],
        ['date', 'desc', descending(created)],
        ['title', 'asc', ascending(created)],
        ['event_date', 'desc', descending(created)],
        ['event_date', 'asc', ascending(created)],
        ['id', 'desc', descending(created)],
      ] as const) {
        const query = `modified_after=${encodeURIComponent('2026-11-20T10:00:00+02:00')}&orderby=${orderby}&order=${order}&per_page=3`;
        const carried = { modified_after: '2026-11-20T10:00:00+02:00', orderby, order: order.toLowerCase() };
        const items = await walk(http, `/wp-json/tribe/events/v1/events?${query}`, undefined, 'events', carried);
        assert.deepEqual(ids(items), expected, query);
      }
      // modified_before is carried as well.
      const before = await walk(http, `/wp-json/tribe/events/v1/events?modified_before=${T3}&per_page=5`, undefined, 'events', { modified_before: T3 });
      assert.equal(before.length, 12);
    });

    it('keys the remembered totals by the modification range', async () => {
      await addAt(T1, 'One', '2027-03-01 10:00:00');
      await addAt(T2, 'Two', '2027-03-02 10:00:00');
      await addAt(T3, 'Three', '2027-03-03 10:00:00');
      // per_page=1 fills the page, so the total is counted (and remembered) rather than read off the page.
      const totalFor = async (query: string) => {
        const res = await listEvents(http, `per_page=1&${query}`);
        expectStatus(res, 200);
        return [res.body.total, res.headers['x-wp-total']];
      };
      assert.deepEqual(await totalFor(`modified_after=${T1}`), [3, '3']);
      assert.deepEqual(await totalFor(`modified_after=${T2}`), [2, '2']);
      assert.deepEqual(await totalFor(`modified_after=${T1}&modified_before=${T3}`), [2, '2']);
      assert.deepEqual(await totalFor(`modified_after=${T1}&orderby=title`), [3, '3']);
    });
  });

  for (const r of [VENUE, ORGANIZER] as LinkedResource[]) {
    describe(`GET /${r.collection}`, () => {
      const addAt = async (when: string, name: string, extra: Rec = {}) => {
        at(when);
        const record = await createLinked(http, r, users.editor, { [r.nameField]: name, ...extra });
        at(T3);
        return record;
      };
      const names = async (query: string) => {
        const res = await listLinked(http, r, query);
        expectStatus(res, 200);
        return (res.body[r.collection] as Rec[]).map((item) => item[r.nameField]);
      };

      it('filters by modification time: inclusive after, exclusive before; bad values are 400', async () => {
        await addAt(T1, 'One');
        await addAt(T2, 'Two');
        await addAt(T3, 'Three');
        assert.deepEqual(await names(`modified_after=${T2}`), ['Three', 'Two']);
        assert.deepEqual(await names(`modified_before=${T2}`), ['One']);
        assert.deepEqual(await names(`modified_after=${T1}&modified_before=${T3}`), ['Two', 'One']);
        assert.deepEqual(await names('modified_after=2026-11-20T09:00:00%2B01:00'), ['Three', 'Two']);
        for (const bad of ['2026-01-01', '2026-01-01T00:00:00', 'yesterday']) {
          for (const name of ['modified_after', 'modified_before']) {
            assert.deepEqual(badParams(await listLinked(http, r, `${name}=${encodeURIComponent(bad)}`)), [name], `${name}=${bad}`);
          }
        }
        assert.deepEqual(badParams(await listLinked(http, r, 'orderby=event_date')), ['orderby']);
        assert.deepEqual(badParams(await listLinked(http, r, 'order=sideways')), ['order']);
      });

      it('orders by each key, newest first by default, order in any case', async () => {
        const a = await addAt(T1, 'banana');
        await addAt(T2, 'Apple');
        await addAt(T3, 'cherry');
        at('2026-11-21T09:00:00Z');
        expectStatus(await call(http, 'post', itemPath(r, a.id), users.editor, { description: 'changed' }), 200);
        at(T3);
        const cases: Array<[string, string[]]> = [
          ['', ['cherry', 'Apple', 'banana']],
          ['order=ASC', ['banana', 'Apple', 'cherry']],
          ['orderby=date', ['cherry', 'Apple', 'banana']],
          ['orderby=date&order=asc', ['banana', 'Apple', 'cherry']],
          ['orderby=modified', ['banana', 'cherry', 'Apple']],
          ['orderby=modified&order=Asc', ['Apple', 'cherry', 'banana']],
          ['orderby=title', ['cherry', 'banana', 'Apple']],
          ['orderby=title&order=asc', ['Apple', 'banana', 'cherry']],
          ['orderby=id', ['cherry', 'Apple', 'banana']],
          ['orderby=id&order=asc', ['banana', 'Apple', 'cherry']],
        ];
        for (const [query, expected] of cases) assert.deepEqual(await names(query), expected, query);
      });

      it('walks every page of equal keys without repeating or skipping, links carrying the parameters', async () => {
        at(T2);
        const created: number[] = [];
        for (let i = 0; i < 8; i++) created.push((await createLinked(http, r, users.editor, { [r.nameField]: 'Same', ...r.distinct(i) })).id);
        at(T3);
        for (const [orderby, order, expected] of [
          ['modified', 'desc', descending(created)],
          ['date', 'ASC', ascending(created)],
          ['title', 'asc', ascending(created)],
          ['title', 'desc', descending(created)],
        ] as const) {
          const query = `modified_after=${T2}&modified_before=${T3}&orderby=${orderby}&order=${order}&per_page=3`;
          const carried = { modified_after: T2, modified_before: T3, orderby, order: order.toLowerCase() };
          const items = await walk(http, `${collectionPath(r)}?${query}`, undefined, r.collection, carried);
          assert.deepEqual(ids(items), expected, query);
        }
        // The totals and replies are remembered per range.
        const total = async (query: string) => (await listLinked(http, r, `per_page=1&${query}`)).body.total;
        assert.equal(await total(`modified_after=${T2}`), 8);
        assert.equal(await total(`modified_after=${T3}`), 0);
        assert.equal(await total(`modified_before=${T3}`), 8);
      });
    });
  }
});
