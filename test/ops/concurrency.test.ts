import assert from 'node:assert/strict';
import { createUser, type TestUser } from '../helpers/app.js';
import { assertOneVersion, versionedUpdate } from './versioned-updates.js';
import { call, eventBody, eventPath, eventsApp, eventsPath, readEvent, type Http, type Rec } from '../helpers/events.js';

/**
 * Concurrent updates of one record, in one process on either engine (the WORKERS tests repeat this
 * across processes on MySQL): the record always ends as one update wrote it, whole.
 */
describe('concurrent updates of one event', () => {
  let http: Http;
  let editor: TestUser;
  beforeEach(async () => {
    ({ http } = await eventsApp());
    editor = await createUser('editor');
  });

  it('never lose a link or leave a half-written record', async () => {
    const created = await call(http, 'post', eventsPath, editor, eventBody({ title: 'Contended' }));
    assert.equal(created.status, 201);
    const id = (created.body as Rec).id as number;
    const updates = await Promise.all(Array.from({ length: 10 }, (_, i) => call(http, i % 2 ? 'patch' : 'put', eventPath(id), editor, versionedUpdate(i))));
    for (const res of updates) assert.equal(res.status, 200, JSON.stringify(res.body));
    const final = await readEvent(http, id, editor);
    assertOneVersion(final);
  });
});
