import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, NS, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { call, createEvent, eventPath, eventsApp, type Http } from '../../helpers/events.js';

/**
 * DELETE parameters in the body, as WordPress reads them (docs/contract.md §2): `wpapi` sends
 * `{"force":true}` as a JSON body, and the service, reading the query only, trashed the event (a
 * second call then answered 410 instead of 404).
 */
describe('DELETE parameters sent in the body', () => {
  let http: Http;
  let users: Record<Role, TestUser>;

  beforeEach(async () => {
    ({ http } = await eventsApp());
    users = await createUsers();
  });

  const gone = async (id: number) => {
    expectError(await call(http, 'get', eventPath(id), users.editor), 404, 'rest-event-not-found');
    expectError(await call(http, 'delete', eventPath(id), users.editor), 404, 'rest-event-not-found');
  };

  it('a JSON body {"force":true} deletes for good, as wpapi sends it', async () => {
    const event = await createEvent(http, users.editor);
    const res = await call(http, 'delete', eventPath(event.id as number), users.editor, { force: true });
    expectStatus(res, 200);
    assert.equal(res.body.id, event.id);
    await gone(event.id as number);
  });

  it('a form body force=1 deletes a venue for good; keys the operation does not declare are ignored', async () => {
    const venue = (await call(http, 'post', `${NS}/venues`, users.editor, { venue: 'Body hall' })).body;
    const res = await http().delete(`${NS}/venues/${venue.id}`).set('Authorization', users.editor.authorization).type('form').send('force=1&colour=blue');
    expectStatus(res, 200);
    expectError(await call(http, 'get', `${NS}/venues/${venue.id}`, users.editor), 404, 'rest-venue-not-found');
  });

  // The query wins on conflict, as issue 50 decided (docs/contract.md §2; WordPress core would take the body's).
  it('the query wins over the body on conflict; a body value is validated as the query’s', async () => {
    const event = await createEvent(http, users.editor);
    const kept = await call(http, 'delete', `${eventPath(event.id as number)}?force=false`, users.editor, { force: true });
    expectStatus(kept, 200);
    assert.equal(kept.body.status, 'trash');
    const other = await createEvent(http, users.editor);
    expectStatus(await call(http, 'delete', `${eventPath(other.id as number)}?force=true`, users.editor, { force: false }), 200);
    await gone(other.id as number);
    expectError(await call(http, 'delete', eventPath(other.id as number), users.editor, { force: 'maybe' }), 400, 'rest_invalid_param');
  });
});
