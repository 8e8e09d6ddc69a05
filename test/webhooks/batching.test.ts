import assert from 'node:assert/strict';
import { openTestDatabase } from '../helpers/database.js';
import { createEvent, createVenue } from '../helpers/events.js';
import { deliveriesOf, deliveryTestbed, insertWebhook, newSecret, startDelivery, waitForRow } from '../helpers/webhooks.js';
import { committedPosition } from '../../src/db/committed-position.js';

/**
 * Delivery at scale (docs/webhooks.md "Delivery at scale"): a change is built once for every webhook
 * that reads it alike (an `owner` webhook reads as its owner, so apart), a webhook's messages go in
 * turns recorded in batches, and what each receiver gets is unchanged: every change, in order, one
 * delivery log row per attempt.
 */
describe('webhook delivery in turns', function () {
  this.timeout(30_000);
  const bed = deliveryTestbed();

  it('builds each change once per viewer, records turns in batches, and every webhook gets every change in order', async () => {
    const hooks = [];
    for (const [name, visibility] of [
      ['p1', 'public'],
      ['p2', 'public'],
      ['p3', 'public'],
      ['owner', 'owner'],
    ] as const) {
      const secret = newSecret();
      hooks.push(await insertWebhook({ url: bed.receiver.endpoint(name, [secret]), secret, visibility, owner_id: bed.admin.id }));
    }
    const titles = Array.from({ length: 6 }, (_, i) => `Batched ${i}`);
    for (const title of titles) await createEvent(bed.http, bed.admin, { title, status: 'publish' });
    const delivery = await startDelivery();
    const { db } = await openTestDatabase();
    const top = await committedPosition(db);
    for (const hook of hooks) await waitForRow(hook.id, (row) => row.position >= top);
    for (const name of ['p1', 'p2', 'p3', 'owner']) {
      assert.deepEqual(
        bed.receiver.of(name).map((m) => m.json.data.record.title),
        titles,
        `${name}: every change, in order`,
      );
    }
    const counts = delivery.counts();
    // 6 changes for the public viewer and 6 for the owner: each built once.
    assert.equal(counts.built, 12, JSON.stringify(counts));
    assert.equal(counts.shared, 12, JSON.stringify(counts));
    assert.ok(counts.transactions <= counts.turns, JSON.stringify(counts));
    for (const hook of hooks) assert.equal((await deliveriesOf(hook.id)).length, 6);
  });

  it("moves past other types' changes read beyond a turn's messages in the turn's own transaction", async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('events-only', [secret]), secret, types: 'event' });
    const event = await createEvent(bed.http, bed.admin, { title: 'Before a venue', status: 'publish' });
    await createVenue(bed.http, bed.admin, { venue: 'After the event' });
    const { db } = await openTestDatabase();
    const top = await committedPosition(db);
    const eventSeq = Number((await db('changes').where({ type: 'event', record_id: event.id }).first('seq')).seq);
    assert.ok(eventSeq < top, 'the venue change follows the event change');
    // No commit wakes this loop and it polls once a minute: after its first round, the next begins
    // 250 ms later at the soonest, and a move past the venue then would be seen here first at the event's position.
    await startDelivery({}, { pollMs: 60_000, onCommit: () => () => undefined });
    const row = await waitForRow(hook.id, (r) => r.position >= eventSeq);
    assert.equal(row.position, top, 'the position went past the venue change with the delivery of the event');
    assert.deepEqual(
      bed.receiver.of('events-only').map((m) => m.json.data.record.title),
      ['Before a venue'],
    );
  });
});
