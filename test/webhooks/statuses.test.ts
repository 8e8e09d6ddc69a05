import assert from 'node:assert/strict';
import { NS } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { openTestDatabase } from '../helpers/database.js';
import { call, createEvent } from '../helpers/events.js';
import { deliveriesOf, insertWebhook, newSecret, roundsPass, startDelivery, waitForRow, webhookRow, deliveryTestbed } from '../helpers/webhooks.js';
import { sleep } from '../helpers/wait.js';
import { committedPosition } from '../../src/db/committed-position.js';
import { inTransaction } from '../../src/db/transactions.js';
import { encodeCursor } from '../../src/records/change-feed.js';
import { ChangeRepository } from '../../src/repositories/changes.js';
import { formatUtc } from '../../src/dates/storage.js';

/**
 * Retries, ordering and statuses (docs/webhooks.md "Retries and ordering", "Statuses"), with retries
 * after 50 ms: active → failing → active, failing → disabled, disabled → active resuming with the
 * failed message, paused, expired.
 */

const positionOf = (cursor: string) => parseInt(cursor.split('.')[0], 36);

describe('webhook retries and statuses', function () {
  this.timeout(30_000);
  const bed = deliveryTestbed();

  async function hook(name: string, fields: Record<string, unknown> = {}) {
    const secret = newSecret();
    return insertWebhook({ url: bed.receiver.endpoint(name, [secret]), secret, ...fields });
  }

  it('active → failing → active: retried after the pauses, the same message (same id) until it is acknowledged', async () => {
    const webhook = await hook('flaky');
    bed.receiver.behave('flaky', { failures: 2, failStatus: 503 });
    await createEvent(bed.http, bed.admin, { title: 'Retried', status: 'publish' });
    // Slow retries first, to see the webhook failing between them.
    const slow = await startDelivery({ retryDelaysSeconds: [0.4, 0.4, 0.4] });
    const failing = await waitForRow(webhook.id, (row) => row.status === 'failing');
    assert.equal(failing.status, 'failing');
    assert.equal(failing.attempts, 1);
    assert.ok(failing.next_attempt_ms >= Date.now() - 50, 'the next attempt is after the pause');
    assert.equal(failing.status_reason, 'the receiver answered 503');
    assert.equal(failing.position, webhook.position, 'the cursor stays');
    await slow.stop();
    await startDelivery();
    await bed.receiver.waitFor(() => bed.receiver.of('flaky').length === 1);
    const row = await waitForRow(webhook.id, (current) => current.status === 'active');
    assert.equal(row.status, 'active');
    assert.equal(row.attempts, 0);
    assert.equal(row.status_reason, null);
    const log = await deliveriesOf(webhook.id);
    assert.deepEqual(
      log.map((entry) => [entry.attempt, entry.status_code]),
      [
        [1, 503],
        [2, 503],
        [3, 204],
      ],
    );
    assert.equal(new Set(log.map((entry) => entry.message_id)).size, 1, 'every attempt carries the same id');
    assert.equal(new Set(bed.receiver.received.map((message) => message.id)).size, 1);
    assert.ok(log[0].next_attempt_utc !== null && log[2].next_attempt_utc === null);
    // Each retry waited for its pause (0.4 s, then 0.05 s, lengthened by up to 20 %).
    assert.ok(log[1].attempted_ms - log[0].attempted_ms >= 400, `${log[1].attempted_ms - log[0].attempted_ms} ms between the first two attempts`);
  });

  it('failing → disabled once the pauses are used up, with the last error; nothing more is tried', async () => {
    const webhook = await hook('down');
    bed.receiver.behave('down', { failures: 1000, failStatus: 500 });
    await createEvent(bed.http, bed.admin, { title: 'Never acknowledged', status: 'publish' });
    const delivery = await startDelivery();
    const row = await waitForRow(webhook.id, (current) => current.status === 'disabled');
    assert.equal(row.status, 'disabled');
    assert.equal(row.status_reason, 'the receiver answered 500');
    assert.equal(row.position, webhook.position);
    // Nothing more is tried: a whole round ran after the webhook was disabled (the short wait lets an
    // attempt it would have begun reach the receiver and the log).
    await roundsPass(delivery);
    await sleep(100);
    const log = await deliveriesOf(webhook.id);
    assert.equal(log.length, 4, 'the first attempt and one after each of the 3 pauses');
    assert.deepEqual(
      log.map((entry) => entry.attempt),
      [1, 2, 3, 4],
    );
    assert.equal(log[3].next_attempt_utc, null);
    assert.equal(bed.receiver.received.length, 4);
  });

  it('disabled → active resumes from the cursor: the failed message first, then the later ones, nothing skipped', async () => {
    const webhook = await hook('back');
    bed.receiver.behave('back', { failures: 1000 });
    await createEvent(bed.http, bed.admin, { title: 'Failed first', status: 'publish' });
    const delivery = await startDelivery();
    await waitForRow(webhook.id, (row) => row.status === 'disabled');
    const failedId = bed.receiver.received[0].id;
    await createEvent(bed.http, bed.admin, { title: 'Made while disabled', status: 'publish' });
    // A whole round ran after the change was committed and began nothing for it (the short wait lets an
    // attempt it would have begun reach the receiver).
    await roundsPass(delivery);
    await sleep(100);
    assert.equal(bed.receiver.received.length, 4, 'a disabled webhook sends nothing');
    bed.receiver.behave('back', { failures: 0 });
    // What PATCH status=active does.
    const { db } = await openTestDatabase();
    await db('webhooks')
      .where('id', webhook.id)
      .update({ status: 'active', status_changed_utc: formatUtc(new Date()), status_reason: null });
    await bed.receiver.waitFor(() => bed.receiver.of('back').length >= 2);
    assert.deepEqual(
      bed.receiver.of('back').map((message) => message.json.data.record.title),
      ['Failed first', 'Made while disabled'],
    );
    assert.equal(bed.receiver.of('back')[0].id, failedId, 'the same message as the failed attempts');
    // A failure after the re-enabling starts a new series of retries rather than disabling at once.
    bed.receiver.behave('back', { failures: 1 });
    await createEvent(bed.http, bed.admin, { title: 'One more', status: 'publish' });
    await bed.receiver.waitFor(() => bed.receiver.of('back').length >= 3);
    assert.equal((await waitForRow(webhook.id, (row) => row.status === 'active')).status, 'active');
  });

  it('paused sends nothing and keeps its cursor; active again delivers from there', async () => {
    const webhook = await hook('paused', { status: 'paused' });
    await createEvent(bed.http, bed.admin, { title: 'While paused', status: 'publish' });
    const delivery = await startDelivery();
    // A whole round ran with the change committed and began nothing for the paused webhook (the short
    // wait lets an attempt it would have begun reach the receiver).
    await roundsPass(delivery);
    await sleep(100);
    assert.equal(bed.receiver.hits.get('paused') ?? 0, 0);
    assert.equal((await webhookRow(webhook.id)).position, webhook.position);
    const { db } = await openTestDatabase();
    await db('webhooks').where('id', webhook.id).update({ status: 'active' });
    await bed.receiver.waitFor(() => bed.receiver.of('paused').length >= 1);
    assert.equal(bed.receiver.of('paused')[0].json.data.record.title, 'While paused');
  });

  it('keeps feed order under failures: no later message before an earlier one is acknowledged', async () => {
    const webhook = await hook('ordered');
    for (let i = 0; i < 5; i++) await createEvent(bed.http, bed.admin, { title: `Ordered ${i}`, status: 'publish' });
    bed.receiver.behave('ordered', { failures: 2 });
    const delivery = await startDelivery();
    // Failures in the middle of the stream too.
    await bed.receiver.waitFor(() => bed.receiver.of('ordered').length >= 2);
    bed.receiver.behave('ordered', { failures: 2 });
    await bed.receiver.waitFor(() => bed.receiver.of('ordered').length >= 5);
    await delivery.stop();
    const arrived = bed.receiver.received.map((message) => positionOf(message.json.data.cursor));
    for (let i = 1; i < arrived.length; i++) assert.ok(arrived[i] >= arrived[i - 1], `message at ${arrived[i]} came after ${arrived[i - 1]}`);
    const acknowledged = bed.receiver.of('ordered').map((message) => message.json.data.record.title);
    assert.deepEqual(acknowledged, ['Ordered 0', 'Ordered 1', 'Ordered 2', 'Ordered 3', 'Ordered 4']);
    assert.equal((await webhookRow(webhook.id)).status, 'active');
  });

  it('expires when the feed purged changes after its cursor (what GET /changes answers 410 for), and sends nothing more', async () => {
    const webhook = await hook('stale');
    const gone = await createEvent(bed.http, bed.admin, { title: 'Deleted for good', status: 'publish' });
    expectStatus(await call(bed.http, 'delete', `${NS}/events/${gone.id}?force=true`, bed.admin), 200);
    await createEvent(bed.http, bed.admin, { title: 'Later', status: 'publish' });
    // The tombstone is purged (as when older than CHANGES_RETENTION_DAYS).
    const { db } = await openTestDatabase();
    await inTransaction(db, (trx) => new ChangeRepository(trx).purge('9999-12-31 00:00:00', 1000));
    const cursor = encodeCursor(await new ChangeRepository(db).cursorKey(), webhook.position);
    expectStatus(await call(bed.http, 'get', `${NS}/changes?after=${cursor}`), 410);

    const delivery = await startDelivery();
    const row = await waitForRow(webhook.id, (current) => current.status === 'expired');
    assert.equal(row.status, 'expired');
    assert.match(row.status_reason ?? '', /no longer holds the changes after this webhook's cursor/);
    assert.ok(row.status_changed_utc >= formatUtc(new Date(Date.now() - 60_000)));
    // A whole round ran after it expired and began nothing for it (the short wait lets an attempt it
    // would have begun reach the receiver).
    await roundsPass(delivery);
    await sleep(100);
    assert.equal(bed.receiver.hits.get('stale') ?? 0, 0, 'nothing is sent');
    assert.equal((await deliveriesOf(webhook.id)).length, 0);
    // A webhook created after the purge is not expired.
    const fresh = await hook('fresh', { position: await committedPosition(db) });
    await createEvent(bed.http, bed.admin, { title: 'Fresh', status: 'publish' });
    await bed.receiver.waitFor(() => bed.receiver.of('fresh').length >= 1);
    assert.equal((await webhookRow(fresh.id)).status, 'active');
  });
});
