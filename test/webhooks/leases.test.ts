import assert from 'node:assert/strict';
import { openTestDatabase } from '../helpers/database.js';
import { createEvent } from '../helpers/events.js';
import { type ReceivedMessage } from '../helpers/webhook-receiver.js';
import { insertWebhook, newSecret, roundsPass, startDelivery, waitForRow, webhookRow, deliveryTestbed } from '../helpers/webhooks.js';
import { sleep } from '../helpers/wait.js';
import { committedPosition } from '../../src/db/committed-position.js';

/**
 * One sender per webhook (docs/webhooks.md "Guarantees"): two delivery loops on one database never
 * send one webhook's messages at once, and when the loop holding a webhook dies (its timers stop and
 * its lease stays), the other takes it over once the lease has lapsed and delivers everything, a
 * message sent twice only with the same id.
 */

const positionOf = (message: ReceivedMessage) => parseInt(message.json.data.cursor.split('.')[0], 36);

/** Every position has one id, and every id one body: duplicates are exact repeats. */
function assertDuplicatesAreRepeats(messages: ReceivedMessage[]): void {
  const idAt = new Map<number, string>();
  const bodyOf = new Map<string, string>();
  for (const message of messages) {
    const position = positionOf(message);
    assert.equal(idAt.get(position) ?? message.id, message.id, `position ${position} came under two ids`);
    idAt.set(position, message.id);
    assert.equal(JSON.stringify(JSON.parse(bodyOf.get(message.id) ?? message.body).data), JSON.stringify(message.json.data), `${message.id} came with two bodies`);
    bodyOf.set(message.id, message.body);
  }
}

describe('webhook leases', function () {
  this.timeout(60_000);
  const bed = deliveryTestbed();

  it('two loops on one database: one sender per webhook at a time, every message once, in order', async () => {
    const names = ['one', 'two', 'three'];
    const hooks = [];
    for (const name of names) {
      const secret = newSecret();
      hooks.push(await insertWebhook({ url: bed.receiver.endpoint(name, [secret]), secret }));
      bed.receiver.behave(name, { delayMs: 30 });
    }
    const loops = [await startDelivery({ concurrency: 2 }), await startDelivery({ concurrency: 2 })];
    for (let i = 0; i < 8; i++) await createEvent(bed.http, bed.admin, { title: `Shared ${i}`, status: 'publish' });
    for (const name of names) await bed.receiver.waitFor(() => bed.receiver.of(name).length >= 8, 20_000, `8 messages at ${name}`);
    // No message comes twice: every webhook's last message is recorded and each loop ran a whole round
    // after that, which would have sent anything it still thought due. The wait after it lets such a
    // message reach the receiver (each answer takes 30 ms).
    const top = await committedPosition((await openTestDatabase()).db);
    for (const hook of hooks) await waitForRow(hook.id, (row) => row.position >= top, 20_000);
    await Promise.all(loops.map((loop) => roundsPass(loop)));
    await sleep(100);
    for (const name of names) {
      assert.equal(bed.receiver.maxConcurrent.get(name), 1, `${name}: one request at a time`);
      const positions = bed.receiver.of(name).map(positionOf);
      assert.equal(new Set(bed.receiver.of(name).map((m) => m.id)).size, positions.length, `${name}: no message twice`);
      assert.deepEqual(
        positions,
        [...positions].sort((a, b) => a - b),
        `${name}: feed order`,
      );
      assert.equal(positions.length, 8);
    }
  });

  it('takes over a dead loop’s webhook once its lease lapses, and delivers everything (a repeat only with the same id)', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('orphaned', [secret]), secret });
    bed.receiver.behave('orphaned', { delayMs: 400 });
    for (let i = 0; i < 3; i++) await createEvent(bed.http, bed.admin, { title: `Before ${i}`, status: 'publish' });
    const dying = await startDelivery({ leaseSeconds: 1 });
    // Dies with a message at the receiver: that one is acknowledged, never recorded.
    await bed.receiver.waitFor(() => bed.receiver.received.length >= 2);
    dying.abandon();
    const diedAt = Date.now();
    const { lease_until_ms: leaseUntil, lease_holder: deadHolder } = await webhookRow(hook.id);
    assert.ok(deadHolder !== null && leaseUntil > diedAt, 'the dead loop still holds the lease');
    for (let i = 0; i < 3; i++) await createEvent(bed.http, bed.admin, { title: `After ${i}`, status: 'publish' });
    bed.receiver.behave('orphaned', { delayMs: 0 });
    await startDelivery({ leaseSeconds: 1 });
    const { db } = await openTestDatabase();
    const top = await committedPosition(db);
    const row = await waitForRow(hook.id, (current) => current.position >= top, 20_000);
    assert.equal(row.position, top, 'everything delivered');
    assert.notEqual(row.lease_holder, deadHolder);

    const titles = new Set(bed.receiver.acknowledged.map((m) => m.json.data.record.title));
    assert.deepEqual([...titles].sort(), ['After 0', 'After 1', 'After 2', 'Before 0', 'Before 1', 'Before 2']);
    assertDuplicatesAreRepeats(bed.receiver.received);
    const repeated = bed.receiver.received.filter((m, i) => bed.receiver.received.findIndex((other) => other.id === m.id) !== i);
    assert.ok(repeated.length >= 1, 'the message in flight when the loop died was sent again');
    // The survivor sent nothing before the dead loop's lease had lapsed (it arrived after `diedAt` only from the survivor).
    const arrivals = bed.receiver.received.slice(2);
    assert.ok(arrivals.length > 0);
    const firstTakeover = arrivals[0].arrivedAt;
    assert.ok(firstTakeover >= leaseUntil, `taken over ${leaseUntil - firstTakeover} ms before the lease lapsed`);
  });

  it('stop() finishes the attempt in flight and gives the leases up', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('stopping', [secret]), secret });
    bed.receiver.behave('stopping', { delayMs: 300 });
    await createEvent(bed.http, bed.admin, { title: 'In flight at stop', status: 'publish' });
    const delivery = await startDelivery({ leaseSeconds: 30 });
    await bed.receiver.waitFor(() => bed.receiver.received.length >= 1);
    await delivery.stop();
    const row = await webhookRow(hook.id);
    assert.equal(row.lease_holder, null);
    assert.ok(row.position > hook.position, 'the attempt in flight was recorded');
    // Another loop takes it at once (no lease to wait for).
    await createEvent(bed.http, bed.admin, { title: 'Next', status: 'publish' });
    bed.receiver.behave('stopping', { delayMs: 0 });
    await startDelivery({ leaseSeconds: 30 });
    await bed.receiver.waitFor(() => bed.receiver.of('stopping').length >= 2, 5000);
  });
});
