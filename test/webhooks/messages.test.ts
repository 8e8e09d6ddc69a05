import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { NS, type TestUser } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, createEvent, type Http, type Rec } from '../helpers/events.js';
import { deliveriesOf, insertWebhook, newSecret, roundsPass, startDelivery, waitForRow, deliveryTestbed } from '../helpers/webhooks.js';
import { sleep } from '../helpers/wait.js';
import { encodeCursor } from '../../src/records/change-feed.js';
import { ChangeRepository, historyAt } from '../../src/repositories/changes.js';
import { committedPosition } from '../../src/db/committed-position.js';
import { readDataVersion } from '../../src/db/data-version.js';

/**
 * What webhooks receive (docs/webhooks.md "Messages"): one signed message per change, in feed order,
 * whose `data` is the change exactly as `GET /changes` gives the webhook's viewer; the types filter;
 * visibility; signatures across a secret rotation.
 */

/** Every change after `position`, as `GET /changes` gives it to `as` (anonymous by default). */
async function feedAfter(http: Http, position: number, as?: TestUser): Promise<Rec[]> {
  const { db } = await openTestDatabase();
  let cursor = encodeCursor(await new ChangeRepository(db).cursorKey(), position);
  const changes: Rec[] = [];
  for (;;) {
    const res = await call(http, 'get', `${NS}/changes?after=${cursor}`, as);
    expectStatus(res, 200);
    changes.push(...res.body.changes);
    cursor = res.body.next_cursor;
    if (!res.body.has_more) return changes;
  }
}

describe('webhook messages', function () {
  this.timeout(30_000);
  const bed = deliveryTestbed();

  it('sends one message per change, in feed order, whose data is the change GET /changes gives, signed, with the documented headers', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('all', [secret]), secret });
    const first = await createEvent(bed.http, bed.admin, { title: 'First', status: 'publish', venue: { venue: 'Hall' } });
    await createEvent(bed.http, bed.admin, { title: 'Second', status: 'publish' });
    expectStatus(await call(bed.http, 'patch', `${NS}/events/${first.id}`, bed.admin, { title: 'First, renamed' }), 200);
    const trashed = await createEvent(bed.http, bed.admin, { title: 'Gone', status: 'publish' });
    expectStatus(await call(bed.http, 'delete', `${NS}/events/${trashed.id}`, bed.admin), 200);

    const expected = await feedAfter(bed.http, hook.position);
    assert.equal(expected.length, 4, 'the venue, Second, First (its latest change), Gone (trashed)');
    await startDelivery();
    await bed.receiver.waitFor(() => bed.receiver.of('all').length >= expected.length);

    const messages = bed.receiver.of('all');
    const { history } = await new ChangeRepository((await openTestDatabase()).db).cursorKey();
    assert.equal(messages.length, expected.length, 'one message per change, none twice');
    messages.forEach((message, i) => {
      const change = expected[i];
      // Byte for byte the change GET /changes gives (key order included).
      assert.equal(JSON.stringify(message.json.data), JSON.stringify(change));
      assert.equal(message.json.type, `${change.type}.${change.action === 'delete' ? 'deleted' : 'updated'}`);
      assert.equal(message.json.timestamp, new Date(`${change.modified_utc.replace(' ', 'T')}Z`).toISOString());
      assert.deepEqual(Object.keys(message.json), ['type', 'timestamp', 'data']);
      const position = parseInt(change.cursor.split('.')[0], 36);
      assert.equal(message.id, `msg_${hook.id}_${position.toString(36)}_${history || '0'}`);
      assert.equal(message.headers['user-agent'], 'tec-events-service-webhooks/1');
      assert.equal(message.headers['content-type'], 'application/json');
      assert.match(message.signature, /^v1,[A-Za-z0-9+/]+=*$/);
      assert.ok(Math.abs(Number(message.timestamp) - Date.now() / 1000) < 30);
    });
    assert.equal(messages.at(-1)!.json.type, 'event.deleted');
    assert.equal(messages.at(-1)!.json.data.record, undefined);

    const last = parseInt(expected.at(-1)!.cursor.split('.')[0], 36);
    // The receiver answers before the attempt is recorded.
    const row = await waitForRow(hook.id, (current) => current.position === last);
    assert.equal(row.position, last, 'the cursor is the last change acknowledged');
    assert.equal(row.status, 'active');
    const log = await deliveriesOf(hook.id);
    assert.deepEqual(
      log.map((entry) => [entry.message_id, entry.cursor, entry.type, entry.attempt, entry.status_code, entry.error]),
      messages.map((message) => [message.id, message.json.data.cursor, message.json.type, 1, 204, null]),
    );
  });

  it('sends changes made while it runs, each once and in order', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('live', [secret]), secret });
    const delivery = await startDelivery();
    for (let i = 0; i < 6; i++) await createEvent(bed.http, bed.admin, { title: `Live ${i}`, status: 'publish' });
    const expected = await feedAfter(bed.http, hook.position);
    await bed.receiver.waitFor(() => bed.receiver.of('live').length >= expected.length);
    // No message comes twice: the last one is recorded and a whole round ran after that, which would
    // have sent anything it still thought due. The short wait lets such a message reach the receiver.
    const top = await committedPosition((await openTestDatabase()).db);
    await waitForRow(hook.id, (row) => row.position >= top);
    await roundsPass(delivery);
    await sleep(50);
    const positions = bed.receiver.of('live').map((message) => parseInt(message.json.data.cursor.split('.')[0], 36));
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'feed order',
    );
    assert.equal(new Set(bed.receiver.of('live').map((m) => m.id)).size, bed.receiver.of('live').length, 'no message twice');
    assert.deepEqual(
      bed.receiver.of('live').map((m) => m.json.data.record.title),
      expected.map((change) => change.record.title),
    );
  });

  it('sends only the types it receives, and moves its cursor past the others without messages', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('venues', [secret]), secret, types: 'venue' });
    await createEvent(bed.http, bed.admin, { title: 'With a venue', status: 'publish', venue: { venue: 'Only this' } });
    await createEvent(bed.http, bed.admin, { title: 'Without', status: 'publish' });
    const delivery = await startDelivery();
    await bed.receiver.waitFor(() => bed.receiver.of('venues').length >= 1);
    const { db } = await openTestDatabase();
    const top = await committedPosition(db);
    // The cursor passes the events too, which send nothing.
    assert.equal((await waitForRow(hook.id, (row) => row.position >= top)).position, top);
    // Nothing more is sent: a whole round ran with the cursor at the top (the short wait lets a message
    // it would have sent reach the receiver).
    await roundsPass(delivery);
    await sleep(50);
    assert.deepEqual(
      bed.receiver.of('venues').map((m) => [m.json.type, m.json.data.record.venue]),
      [['venue.updated', 'Only this']],
    );
    assert.equal((await deliveriesOf(hook.id)).length, 1, 'skipped changes leave no delivery');
  });

  it('a public webhook never receives a draft or a protected event (a deleted message once it was public); an owner webhook does', async () => {
    const publicSecret = newSecret();
    const ownerSecret = newSecret();
    const open = await insertWebhook({ url: bed.receiver.endpoint('public', [publicSecret]), secret: publicSecret });
    const owned = await insertWebhook({ url: bed.receiver.endpoint('owner', [ownerSecret]), secret: ownerSecret, visibility: 'owner', owner_id: bed.admin.id });
    await startDelivery();
    const draft = await createEvent(bed.http, bed.admin, { title: 'Draft only', status: 'draft' });
    const shown = await createEvent(bed.http, bed.admin, { title: 'Shown, then locked', status: 'publish' });
    // Both webhooks send the published version before it is locked (the feed holds a record once, at
    // its latest change: a webhook still behind would send only the locked version).
    await bed.receiver.waitFor(() => ['public', 'owner'].every((name) => bed.receiver.of(name).some((m) => m.json.data.id === shown.id)));
    expectStatus(await call(bed.http, 'patch', `${NS}/events/${shown.id}`, bed.admin, { password: 'letmein' }), 200);
    const top = await committedPosition((await openTestDatabase()).db);
    await waitForRow(open.id, (row) => row.position >= top);
    await waitForRow(owned.id, (row) => row.position >= top);

    const seen = (name: string) => bed.receiver.of(name).map((m) => [m.json.data.id, m.json.type, m.json.data.record?.title]);
    assert.deepEqual(seen('public'), [
      [draft.id, 'event.deleted', undefined],
      [shown.id, 'event.updated', 'Shown, then locked'],
      [shown.id, 'event.deleted', undefined],
    ]);
    assert.ok(!bed.receiver.of('public').some((m) => m.body.includes('Draft only')), 'the draft never reaches a public webhook');
    assert.deepEqual(seen('owner'), [
      [draft.id, 'event.updated', 'Draft only'],
      [shown.id, 'event.updated', 'Shown, then locked'],
      [shown.id, 'event.updated', 'Shown, then locked'],
    ]);
    // What the owner reads in the feed, exactly.
    const ownerFeed = await feedAfter(bed.http, owned.position, bed.admin);
    assert.equal(JSON.stringify(bed.receiver.of('owner').at(-1)!.json.data), JSON.stringify(ownerFeed.at(-1)));
  });

  it('an owner webhook whose owner no longer exists sends what the public reads', async () => {
    const secret = newSecret();
    await insertWebhook({ url: bed.receiver.endpoint('orphan', [secret]), secret, visibility: 'owner', owner_id: 987_654 });
    await createEvent(bed.http, bed.admin, { title: 'Hidden draft', status: 'draft' });
    await startDelivery();
    await bed.receiver.waitFor(() => bed.receiver.of('orphan').length >= 1);
    assert.equal(bed.receiver.of('orphan')[0].json.type, 'event.deleted');
    assert.ok(!bed.receiver.of('orphan')[0].body.includes('Hidden draft'));
  });

  it('signs with both secrets while the previous one is valid (each signature with its own), with the new one alone after', async () => {
    const previous = newSecret();
    const current = newSecret();
    const hook = await insertWebhook({
      url: bed.receiver.endpoint('rotated', [current]),
      secret: current,
      previous_secret: previous,
      previous_secret_until_ms: Date.now() + 86_400_000,
    });
    await createEvent(bed.http, bed.admin, { title: 'During rotation', status: 'publish' });
    const delivery = await startDelivery();
    await bed.receiver.waitFor(() => bed.receiver.of('rotated').length >= 1);
    const during = bed.receiver.of('rotated')[0];
    const signatures = during.signature.split(' ');
    assert.equal(signatures.length, 2);
    const headers = (signature: string) => ({ 'webhook-id': during.id, 'webhook-timestamp': during.timestamp, 'webhook-signature': signature });
    assert.doesNotThrow(() => new Webhook(current).verify(during.body, headers(signatures[0])));
    assert.doesNotThrow(() => new Webhook(previous).verify(during.body, headers(signatures[1])));
    assert.throws(() => new Webhook(previous).verify(during.body, headers(signatures[0])));
    assert.throws(() => new Webhook(current).verify(during.body, headers(signatures[1])));
    // A receiver still on the previous secret verifies the whole header.
    assert.doesNotThrow(() => new Webhook(previous).verify(during.body, headers(during.signature)));

    await delivery.stop();
    const { db } = await openTestDatabase();
    await db('webhooks')
      .where('id', hook.id)
      .update({ previous_secret_until_ms: Date.now() - 1 });
    await createEvent(bed.http, bed.admin, { title: 'After rotation', status: 'publish' });
    await startDelivery();
    await bed.receiver.waitFor(() => bed.receiver.of('rotated').length >= 2);
    const after = bed.receiver.of('rotated')[1];
    assert.equal(after.signature.split(' ').length, 1);
    assert.throws(() => new Webhook(previous).verify(after.body, { 'webhook-id': after.id, 'webhook-timestamp': after.timestamp, 'webhook-signature': after.signature }));
  });
  it('delivering moves neither the data version nor the change feed (webhook state is not content)', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('quiet', [secret]), secret });
    bed.receiver.behave('quiet', { failures: 1 });
    await createEvent(bed.http, bed.admin, { title: 'Quietly delivered', status: 'publish' });
    const { db } = await openTestDatabase();
    const top = await committedPosition(db);
    const version = await readDataVersion(db);
    await startDelivery();
    await waitForRow(hook.id, (row) => row.position >= top);
    assert.equal(await readDataVersion(db), version, 'no data-version bump');
    assert.equal(await committedPosition(db), top, 'no change logged');
    assert.equal((await deliveriesOf(hook.id)).length, 2);
  });

  it('requests are answered while receivers are slow (deliveries never block them)', async () => {
    for (let i = 0; i < 4; i++) {
      const secret = newSecret();
      await insertWebhook({ url: bed.receiver.endpoint(`slow${i}`, [secret]), secret });
      bed.receiver.behave(`slow${i}`, { delayMs: 3000 });
    }
    const created = await createEvent(bed.http, bed.admin, { title: 'Read while delivering', status: 'publish' });
    await startDelivery({ timeoutSeconds: 5 });
    await bed.receiver.waitFor(() => bed.receiver.received.length >= 4);
    // Answered while every receiver still holds its message: no read waits for a delivery. (Not a
    // timing: whatever the machine's speed, an answer that waited would come after the receivers'.)
    expectStatus(await call(bed.http, 'get', `${NS}/events/${created.id}`), 200);
    expectStatus(await call(bed.http, 'get', `${NS}/events`), 200);
    assert.equal(bed.receiver.acknowledged.length, 0, 'the deliveries were still in flight');
  });
});

/** docs/webhooks.md "Guarantees": after a restore, a change the copy held keeps its message id. */
describe('the feed history of a message id (ChangeRepository.histories, historyAt)', () => {
  it('is the history the change was made in: the earliest fence at or past its position, else the current one', async () => {
    const { db } = await openTestDatabase();
    const repo = new ChangeRepository(db);
    const current = (await repo.cursorKey()).history;
    // Two restores: from a copy of the first history at position 10, then from a copy of the second at 20.
    await db('change_history_fences').insert([
      { history: 'second2', upto: 20 },
      { history: '', upto: 10 },
    ]);
    try {
      const histories = await repo.histories();
      assert.deepEqual(
        [1, 10, 11, 20, 21].map((position) => historyAt(histories, position)),
        ['', '', 'second2', 'second2', current],
      );
    } finally {
      await db('change_history_fences').delete();
    }
  });
});
