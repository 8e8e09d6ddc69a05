import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Knex } from 'knex';
import { createApp } from '../../src/http/app.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createLogger } from '../../src/core/logger.js';
import { UserRepository } from '../../src/repositories/users.js';
import { NS, testConfig } from '../helpers/app.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';

/** How many creates race for one slug family: far more than any small retry budget. */
const RACERS = 600;

/**
 * Many creates in flight at once with one title, in one process, on either engine: every one
 * succeeds and the slugs stay unique and dense (`title`, `title-2` ... `title-600`), as WordPress
 * numbers them. The service runs on a database handle of its own whose wait for a pooled connection
 * is long (DB_TIMEOUT otherwise answers 503 to requests still queued after 5 s, by design), so what
 * is measured is the slug logic, not how fast this machine drains a queue of 600 writes. SQLite gets
 * a file of its own (an in-memory database cannot be opened twice); MySQL uses the test database.
 */
describe('concurrent creates racing for one slug', function () {
  this.timeout(300_000);
  let db: Knex;
  let folder: string | undefined;
  before(async () => {
    if (TEST_DATABASE_URL.startsWith('sqlite:')) {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'slug-races-'));
      ({ db } = openDatabase(`sqlite:${path.join(folder, 'races.sqlite')}`, { timeoutMs: 240_000 }));
      await migrateLatest(db);
    } else {
      ({ db } = openDatabase(TEST_DATABASE_URL, { timeoutMs: 240_000 }));
    }
  });
  after(async () => {
    await db?.destroy();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it(`gives ${RACERS} concurrent creates of events with one title ${RACERS} distinct slugs and no error`, async () => {
    const app = createApp({ config: testConfig({ validateResponses: false }), db, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'error') });
    const secret = 'racer-secret-0123456789';
    await new UserRepository(db).add('racer', 'editor', secret);
    const server = app.listen(0, '127.0.0.1');
    try {
      const answers = await Promise.all(
        Array.from({ length: RACERS }, () =>
          request(server).post(`${NS}/events`).auth('racer', secret).send({ title: 'Sold Out Show', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00' }),
        ),
      );
      const failures = answers.filter((res) => res.status !== 201).map((res) => `${res.status} ${JSON.stringify(res.body)}`);
      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${RACERS} creates failed`);
      const expected = ['sold-out-show', ...Array.from({ length: RACERS - 1 }, (_, i) => `sold-out-show-${i + 2}`)].sort();
      assert.deepEqual(answers.map((res) => res.body.slug as string).sort(), expected);
      assert.deepEqual((await db('posts').where('type', 'event').pluck('slug')).sort(), expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
