import assert from 'node:assert/strict';
import { openTestDatabase } from '../helpers/database.js';
import { createEvent } from '../helpers/events.js';
import { deliveriesOf, deliveryTestbed, insertWebhook, newSecret, startDelivery, waitForRow } from '../helpers/webhooks.js';
import { committedPosition } from '../../src/db/committed-position.js';
import { formatUtc } from '../../src/dates/storage.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The delivery log's bounds (docs/webhooks.md "The delivery log", WEBHOOK_LOG_MAX and
 * WEBHOOK_LOG_DAYS): each webhook keeps its newest attempts up to the count, none older than the age,
 * whatever the other webhooks hold; pruned when delivery starts, and as a webhook's log grows.
 */

async function fillLog(webhookId: number, count: number, ageMs: number): Promise<void> {
  const { db } = await openTestDatabase();
  const at = Date.now() - ageMs;
  const rows = Array.from({ length: count }, (_, i) => ({
    webhook_id: webhookId,
    message_id: `msg_${webhookId}_old${i}`,
    cursor: null,
    position: null,
    type: 'webhook.ping',
    attempt: 1,
    status_code: 204,
    error: null,
    duration_ms: 1,
    attempted_utc: formatUtc(new Date(at + i)),
    attempted_ms: at + i,
    next_attempt_utc: null,
  }));
  for (let start = 0; start < rows.length; start += 100) await db('webhook_deliveries').insert(rows.slice(start, start + 100));
}

describe('webhook delivery log bounds', function () {
  this.timeout(30_000);
  const bed = deliveryTestbed();

  it('keeps each webhook’s newest WEBHOOK_LOG_MAX attempts, none older than WEBHOOK_LOG_DAYS', async () => {
    const secretA = newSecret();
    const a = await insertWebhook({ url: bed.receiver.endpoint('a', [secretA]), secret: secretA, status: 'paused' });
    const secretB = newSecret();
    const b = await insertWebhook({ url: bed.receiver.endpoint('b', [secretB]), secret: secretB, status: 'paused' });
    // a: 300 rows of 3 days ago, then 150 recent; b: 10 of 3 days ago, then 40 recent.
    await fillLog(a.id, 300, 3 * 86_400_000);
    await fillLog(a.id, 150, 60_000);
    await fillLog(b.id, 10, 3 * 86_400_000);
    await fillLog(b.id, 40, 60_000);
    const newestOfA = (await deliveriesOf(a.id)).slice(-50).map((row) => row.id);
    await startDelivery({ logMaxRows: 50, logDays: 2 });
    await waitFor(async () => (await deliveriesOf(a.id)).length <= 50, "a's log pruned to 50 rows", 10_000, 50);
    assert.deepEqual(
      (await deliveriesOf(a.id)).map((row) => row.id),
      newestOfA,
      'the newest 50 of a are kept',
    );
    const logOfB = await deliveriesOf(b.id);
    assert.equal(logOfB.length, 40, 'b lost its rows older than 2 days only');
    assert.ok(logOfB.every((row) => row.attempted_ms > Date.now() - 86_400_000));
  });

  it('bounds a log while its webhook delivers (within a tenth more than the count)', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('busy', [secret]), secret });
    await startDelivery({ logMaxRows: 10 });
    for (let i = 0; i < 25; i++) await createEvent(bed.http, bed.admin, { title: `Logged ${i}`, status: 'publish' });
    const { db } = await openTestDatabase();
    const top = await committedPosition(db);
    await waitForRow(hook.id, (row) => row.position >= top);
    assert.equal(bed.receiver.acknowledged.length, 25);
    await waitFor(async () => (await deliveriesOf(hook.id)).length <= 20, 'the log pruned to at most 20 rows', 5_000, 50);
    const log = await deliveriesOf(hook.id);
    assert.ok(log.length <= 20, `${log.length} rows kept`);
    assert.equal(log.at(-1)?.message_id, bed.receiver.acknowledged.at(-1)?.id, 'the newest attempt is kept');
  });
});
