import assert from 'node:assert/strict';
import request from 'supertest';
import { createApp } from '../../../src/http/app.js';
import { openDatabase } from '../../../src/db/knex.js';
import { createLogger } from '../../../src/core/logger.js';
import { testApp, testConfig, NS, createUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';

describe('operations endpoints and protections', () => {
  it('answers /healthz and /readyz outside the namespace', async () => {
    const { http } = await testApp();
    assert.deepEqual((await http().get('/healthz')).body, { status: 'ok' });
    const ready = await http().get('/readyz');
    expectStatus(ready, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });

  it('is not ready while migrations are pending', async () => {
    const { db } = openDatabase('sqlite::memory:');
    try {
      const app = createApp({ config: testConfig(), db, logger: createLogger('silent') });
      const res = await request(app).get('/readyz');
      assert.equal(res.status, 503);
      assert.equal(res.body.reason, 'migrations pending');
    } finally {
      await db.destroy();
    }
  });

  it('is not ready when the database is gone', async () => {
    const { db } = openDatabase('sqlite::memory:');
    const app = createApp({ config: testConfig(), db, logger: createLogger('silent') });
    await db.destroy();
    const res = await request(app).get('/readyz');
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '5');
  });

  it('sends security headers suited to a JSON API', async () => {
    const { http } = await testApp();
    const res = await http().get(`${NS}/categories`);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
    assert.match(res.headers['content-security-policy'], /default-src 'self'/);
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin');
    assert.equal(res.headers['x-powered-by'], undefined);
  });

  it('slows down a client that keeps failing to authenticate, without refusing anonymous reads', async () => {
    const { http } = await testApp({ authFailureLimit: 3 });
    const editor = await createUser('editor');
    for (let i = 0; i < 3; i++) expectError(await http().get(`${NS}/tags`).auth('editor', 'wrong-secret'), 401, 'rest_invalid_credentials');
    const limited = await http().get(`${NS}/tags`).auth('editor', 'wrong-secret');
    expectError(limited, 429, 'rest_too_many_requests');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // Requests without credentials are never counted or refused.
    expectStatus(await http().get(`${NS}/tags`), 200);
    assert.ok(editor.id > 0);
  });

  it('never throttles concurrent requests with good credentials', async () => {
    const { http } = await testApp({ authFailureLimit: 2 });
    const editor = await createUser('editor');
    const answers = await Promise.all(Array.from({ length: 30 }, () => http().get(`${NS}/tags`).set('Authorization', editor.authorization)));
    assert.deepEqual([...new Set(answers.map((res) => res.status))], [200]);
  });
});
