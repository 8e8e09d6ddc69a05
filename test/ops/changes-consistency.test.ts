import assert from 'node:assert/strict';
import { createUser, NS, type TestUser } from '../helpers/app.js';
import { call, eventBody, eventsApp, type Http, type Rec } from '../helpers/events.js';

/**
 * No change is missed (docs/contract.md §9): a consumer follows `GET /changes` with `wait` while eight
 * writers concurrently create, update, unpublish, trash and force-delete events and venues (on
 * MariaDB their transactions overlap and commit in any order). At the end the consumer's copy
 * (type:id → record) holds exactly what the lists show an editor (every status but the trash), record
 * for record.
 */

const WRITERS = 8;
const OPERATIONS = 14;

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function rng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Every page of a list, as the editor reads it. */
async function listAll(http: Http, editor: TestUser, collection: string, query: string): Promise<Rec[]> {
  const items: Rec[] = [];
  for (let page = 1; ; page++) {
    const res = await call(http, 'get', `${NS}/${collection}?${query}&per_page=50&page=${page}`, editor);
    assert.equal(res.status, 200, res.text);
    items.push(...res.body[collection]);
    if (page >= res.body.total_pages) return items;
  }
}

describe('the change feed under concurrent writers', function () {
  this.timeout(120_000);
  let http: Http;
  let editor: TestUser;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    editor = await createUser('editor');
  });

  it('misses no change: the consumer’s copy equals the lists, record for record', async () => {
    // A shared venue every writer updates: concurrent in-place changes of one record.
    const shared = await call(http, 'post', `${NS}/venues`, editor, { venue: 'Shared hall' });
    assert.equal(shared.status, 201);
    const start = (await call(http, 'get', `${NS}/events`, editor)).headers['x-tec-change-cursor'] as string;

    const copy = new Map<string, Rec>();
    let writing = true;
    let pages = 0;
    const consume = async () => {
      let cursor = start;
      for (;;) {
        const finishing = !writing;
        const res = await call(http, 'get', `${NS}/changes?after=${cursor}&wait=1&per_page=7`, editor);
        assert.equal(res.status, 200, res.text);
        pages++;
        for (const change of res.body.changes as Rec[]) {
          if (change.action === 'upsert') copy.set(`${change.type}:${change.id}`, change.record);
          else copy.delete(`${change.type}:${change.id}`);
        }
        cursor = res.body.next_cursor;
        // Drained once a page read after the writers finished has nothing more.
        if (finishing && !res.body.has_more) return;
      }
    };

    const write = async (writer: number) => {
      const random = rng(writer + 1);
      const events: number[] = [];
      const venues: number[] = [];
      const pick = (list: number[]) => list.splice(Math.floor(random() * list.length), 1)[0];
      for (let i = 0; i < OPERATIONS; i++) {
        const roll = random();
        let res;
        if (roll < 0.3 || events.length === 0) {
          res = await call(http, 'post', `${NS}/events`, editor, eventBody({ title: `W${writer} event ${i}` }));
          if (res.status === 201) events.push(res.body.id);
        } else if (roll < 0.45) {
          const id = events[Math.floor(random() * events.length)];
          res = await call(http, 'patch', `${NS}/events/${id}`, editor, { title: `W${writer} updated ${i}`, status: random() < 0.5 ? 'draft' : 'publish' });
        } else if (roll < 0.55) {
          res = await call(http, 'delete', `${NS}/events/${pick(events)}`, editor);
        } else if (roll < 0.65) {
          res = await call(http, 'delete', `${NS}/events/${pick(events)}?force=true`, editor);
        } else if (roll < 0.75 || venues.length === 0) {
          res = await call(http, 'post', `${NS}/venues`, editor, { venue: `W${writer} venue ${i}`, city: `City ${i}` });
          if (res.status === 201) venues.push(res.body.id);
        } else if (roll < 0.85) {
          res = await call(http, 'patch', `${NS}/venues/${shared.body.id}`, editor, { city: `W${writer} city ${i}` });
        } else if (roll < 0.92) {
          res = await call(http, 'delete', `${NS}/venues/${pick(venues)}`, editor);
        } else {
          res = await call(http, 'delete', `${NS}/venues/${pick(venues)}?force=true`, editor);
        }
        assert.ok(res.status < 300, `writer ${writer} step ${i}: ${res.status} ${res.text}`);
      }
    };

    const consumer = consume();
    await Promise.all(Array.from({ length: WRITERS }, (_, writer) => write(writer)));
    writing = false;
    await consumer;

    const listed = new Map<string, Rec>();
    for (const event of await listAll(http, editor, 'events', 'status=any&start_date=2000-01-01&end_date=2100-12-31')) listed.set(`event:${event.id}`, event);
    for (const venue of await listAll(http, editor, 'venues', 'status=any')) listed.set(`venue:${venue.id}`, venue);
    const followed = new Map([...copy].filter(([key]) => key.startsWith('event:') || key.startsWith('venue:')));
    assert.deepEqual([...followed.keys()].sort(), [...listed.keys()].sort(), 'the same records');
    for (const [key, item] of listed) {
      // A list item is the single record without what only single reads carry (json_ld).
      const record = followed.get(key) as Rec;
      const shown = Object.fromEntries(Object.keys(item).map((name) => [name, record[name]]));
      assert.deepEqual(shown, item, `${key} as the list shows it`);
      assert.deepEqual((await call(http, 'get', `${NS}/${key.startsWith('event') ? 'events' : 'venues'}/${item.id}`, editor)).body, record, `${key} as GET returns it`);
    }
    assert.ok(listed.size > 20, `${listed.size} records`);
    assert.ok(pages > 3, `${pages} pages`);
  });
});
