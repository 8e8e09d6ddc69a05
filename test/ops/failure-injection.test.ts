import assert from 'node:assert/strict';
import request from 'supertest';
import type { Knex } from 'knex';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/core/logger.js';
import { createUser, testConfig, type TestUser } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { eventBody, eventsPath, eventPath, expectEnvelope, tableCounts, PUBLIC_URL, type Rec } from '../helpers/events.js';

/**
 * Failure injection: the Nth statement inside a write's transaction fails as a broken connection
 * would, for every N the write issues. Whatever the failure point, the answer is an error envelope
 * and the database holds nothing of the write. The seam is test-only: the driver's query method is
 * wrapped here (on the client's class, which knex's transaction clients are made from), never in
 * the service.
 */
type QueryFn = (this: { transacting?: boolean }, connection: unknown, query: { sql: string }) => Promise<unknown>;

const CONTROL = /^\s*(begin|commit|rollback|savepoint|release|start transaction|set )/i;

/** Records the statements run inside transactions while `fn` runs, failing the `failAt`th (1-based) when given. */
async function withStatements<T>(db: Knex, failAt: number | undefined, fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const prototype = (db.client as { constructor: { prototype: { _query: QueryFn } } }).constructor.prototype;
  const hadOwn = Object.prototype.hasOwnProperty.call(prototype, '_query');
  const original = prototype._query;
  const statements: string[] = [];
  prototype._query = function (connection, query) {
    if (this.transacting && !CONTROL.test(query.sql)) {
      statements.push(query.sql);
      if (statements.length === failAt) return Promise.reject(Object.assign(new Error('injected failure'), { code: 'INJECTED' }));
    }
    return original.call(this, connection, query);
  };
  try {
    return { result: await fn(), statements };
  } finally {
    if (hadOwn) prototype._query = original;
    else delete (prototype as { _query?: QueryFn })._query;
  }
}

describe('failure injection: multi-table writes are one transaction', function () {
  this.timeout(120_000);
  let db: Knex;
  let http: () => ReturnType<typeof request>;
  let editor: TestUser;

  before(async () => {
    ({ db } = await openTestDatabase());
    // A silent logger: every injected failure is a logged 500 otherwise.
    const app = createApp({ config: testConfig({ publicUrl: PUBLIC_URL }), db, logger: createLogger('silent'), now: () => new Date('2026-11-21T21:18:07Z') });
    http = () => request(app);
  });

  beforeEach(async () => {
    editor = await createUser('editor');
  });

  const nested = (title: string) =>
    eventBody({
      title,
      venue: { venue: `${title} Hall`, city: 'Lyon' },
      organizer: [{ organizer: `${title} Org`, email: 'org@example.test' }],
      categories: [`${title} Category`],
      tags: [`${title} Tag`],
      image: `https://cdn.example.test/${title.replace(/\W+/g, '-')}.png`,
    });

  it('leaves nothing behind when any statement of an event create with a new venue, organizer, terms and image fails', async () => {
    const { result: clean, statements } = await withStatements(db, undefined, () => http().post(eventsPath).set('Authorization', editor.authorization).send(nested('Dry Run')));
    assert.equal(clean.status, 201, JSON.stringify(clean.body));
    const writes = statements.filter((sql) => /^\s*(insert|update|delete)/i.test(sql)).length;
    assert.ok(writes >= 8, `the create wrote only ${writes} statements: ${statements.join('\n')}`);

    for (let failAt = 1; failAt <= statements.length; failAt++) {
      const before = await tableCounts();
      const { result: res } = await withStatements(db, failAt, () =>
        http()
          .post(eventsPath)
          .set('Authorization', editor.authorization)
          .send(nested(`Attempt ${failAt}`)),
      );
      assert.ok(res.status >= 500, `statement ${failAt} failed but the answer was ${res.status}`);
      expectEnvelope(res, `statement ${failAt}`);
      assert.deepEqual(await tableCounts(), before, `rows left behind when statement ${failAt} failed: ${statements[failAt - 1]}`);
    }
  });

  it('leaves the event as it was when any statement of an update that relinks everything fails', async () => {
    const created = await http().post(eventsPath).set('Authorization', editor.authorization).send(nested('Original'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = (created.body as Rec).id as number;
    const read = () => http().get(eventPath(id)).set('Authorization', editor.authorization);
    const snapshot = (await read()).body as Rec;
    const change = (n: number) => ({ ...nested(`Changed ${n}`), start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 12:00:00' });

    // Fail the 1st, 2nd, … statement until the update no longer reaches the failing one and succeeds.
    let failAt = 1;
    for (; ; failAt++) {
      const before = await tableCounts();
      const { result: res } = await withStatements(db, failAt, () => http().post(eventPath(id)).set('Authorization', editor.authorization).send(change(failAt)));
      if (res.status === 200) break;
      assert.ok(res.status >= 500, `statement ${failAt} failed but the answer was ${res.status} ${JSON.stringify(res.body)}`);
      expectEnvelope(res, `statement ${failAt}`);
      assert.deepEqual(await tableCounts(), before, `rows changed when statement ${failAt} of the update failed`);
      assert.deepEqual((await read()).body, snapshot, `the event changed when statement ${failAt} of the update failed`);
    }
    assert.ok(failAt > 8, `the update succeeded after only ${failAt - 1} statements`);
    const updated = (await read()).body as Rec;
    assert.equal(updated.title, `Changed ${failAt}`);
    assert.equal(updated.venue.venue, `Changed ${failAt} Hall`);
  });
});
