import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import request from 'supertest';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/core/logger.js';
import { sendPing } from '../../src/webhooks/ping.js';
import { committedPosition } from '../../src/db/committed-position.js';
import { webhookMetrics } from '../../src/webhooks/metrics.js';
import { testConfig } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { createEvent, PUBLIC_URL } from '../helpers/events.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { deliveriesOf, deliverySettings, insertWebhook, newSecret, startDelivery, waitForRow, webhookRow, deliveryTestbed } from '../helpers/webhooks.js';

/** `sendPing` (POST /webhooks/{id}/ping) and the delivery metrics on `/metrics` (docs/webhooks.md "Metrics"). */

describe('webhook ping and metrics', function () {
  this.timeout(30_000);
  const bed = deliveryTestbed();

  it('a ping is a signed webhook.ping message, recorded in the log, that moves neither the cursor nor the status', async () => {
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('ping', [secret]), secret, status: 'paused' });
    await createEvent(bed.http, bed.admin, { title: 'Not sent by a ping', status: 'publish' });
    const { db } = await openTestDatabase();
    const now = new Date();
    const attempt = await sendPing(db, deliverySettings(), hook, now);
    assert.equal(bed.receiver.of('ping').length, 1);
    const [message] = bed.receiver.of('ping');
    assert.equal(message.json.type, 'webhook.ping');
    assert.equal(message.json.timestamp, now.toISOString());
    assert.deepEqual(message.json.data, { webhook_id: hook.id });
    assert.match(message.id, new RegExp(`^msg_${hook.id}_ping_[0-9a-f]{16}$`));
    assert.equal(attempt.message_id, message.id);
    assert.deepEqual([attempt.type, attempt.attempt, attempt.status_code, attempt.error, attempt.cursor, attempt.position], ['webhook.ping', 1, 204, null, null, null]);
    assert.deepEqual(await deliveriesOf(hook.id), [attempt]);
    const row = await webhookRow(hook.id);
    assert.deepEqual([row.position, row.status, row.attempts], [hook.position, 'paused', 0]);

    // A failing receiver: the attempt says so, the webhook is untouched.
    bed.receiver.behave('ping', { failures: 1, failStatus: 410 });
    const failed = await sendPing(db, deliverySettings(), hook, new Date());
    assert.equal(failed.status_code, 410);
    assert.equal((await webhookRow(hook.id)).status, 'paused');
    const refused = await sendPing(db, deliverySettings(), { ...hook, url: 'https://169.254.169.254/' }, new Date());
    assert.match(refused.error ?? '', /linkLocal/);
  });

  it('counts attempts and reports each webhook’s lag on /metrics', async () => {
    const registry = new Registry();
    const { db } = await openTestDatabase();
    const app = createApp({ config: testConfig({ publicUrl: PUBLIC_URL, metrics: true }), db, logger: createLogger('silent'), metricsRegistry: registry });
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('measured', [secret]), secret });
    bed.receiver.behave('measured', { failures: 1 });
    await createEvent(bed.http, bed.admin, { title: 'Measured', status: 'publish' });
    await createEvent(bed.http, bed.admin, { title: 'Measured too', status: 'publish' });
    await startDelivery({}, { metrics: webhookMetrics(registry) });
    await bed.receiver.waitFor(() => bed.receiver.of('measured').length >= 2);
    const top = await committedPosition(db);
    await waitForRow(hook.id, (row) => row.position >= top);
    const text = (await request(app).get('/metrics').expect(200)).text;
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
    assert.equal(value(/^webhook_messages_delivered_total (\S+)$/m), 2);
    assert.equal(value(/^webhook_messages_failed_total (\S+)$/m), 1);
    assert.equal(value(/^webhook_attempts_total\{result="delivered"\} (\S+)$/m), 2);
    assert.equal(value(/^webhook_attempts_total\{result="rejected"\} (\S+)$/m), 1);
    assert.equal(value(/^webhook_delivery_seconds_count (\S+)$/m), 3);
    assert.equal(value(new RegExp(`^webhook_lag_seconds\\{webhook="${hook.id}"\\} (\\S+)$`, 'm')), 0, 'caught up');
    // The requests' metrics are on the same registry.
    assert.match(text, /^# TYPE http_requests_total counter$/m);
  });

  it('reports the age of the oldest undelivered change while a webhook is behind', async () => {
    const registry = new Registry();
    const secret = newSecret();
    const hook = await insertWebhook({ url: bed.receiver.endpoint('behind', [secret]), secret });
    bed.receiver.behave('behind', { failures: 1000 });
    await createEvent(bed.http, bed.admin, { title: 'Stuck', status: 'publish' });
    // The change's age is what is measured: it is over a second old when delivery starts.
    await sleep(1100);
    await startDelivery({ retryDelaysSeconds: [30] }, { metrics: webhookMetrics(registry) });
    await waitForRow(hook.id, (row) => row.status === 'failing');
    const lagNow = async () => Number(new RegExp(`^webhook_lag_seconds\\{webhook="${hook.id}"\\} (\\S+)$`, 'm').exec(await registry.metrics())?.[1]);
    const lag = await lagNow();
    assert.ok(lag >= 1 && lag < 60, `lag ${lag} s`);
    // It grows while the webhook waits for its retry (time passing is what is measured).
    await sleep(300);
    assert.ok((await lagNow()) >= lag + 0.25);
  });
  it('prunes delivery log rows older than 30 days, in batches, and keeps the newer ones', async () => {
    const hook = await insertWebhook({ url: bed.receiver.endpoint('pruned', [newSecret()]) });
    const { db } = await openTestDatabase();
    const old = Date.now() - 31 * 86_400_000;
    const row = (attempted: number) => ({
      webhook_id: hook.id,
      message_id: `msg_${hook.id}_${attempted}`,
      type: 'event.updated',
      attempt: 1,
      status_code: 204,
      duration_ms: 1,
      attempted_utc: '2026-01-01 00:00:00',
      attempted_ms: attempted,
    });
    // More than one batch of 1,000.
    const rows = Array.from({ length: 1500 }, (_, i) => row(old - i));
    for (let i = 0; i < rows.length; i += 250) await db('webhook_deliveries').insert(rows.slice(i, i + 250));
    await db('webhook_deliveries').insert(row(Date.now() - 29 * 86_400_000));
    await startDelivery();
    await waitFor(async () => (await deliveriesOf(hook.id)).length <= 1, 'the old rows pruned', 5_000, 20);
    const left = await deliveriesOf(hook.id);
    assert.equal(left.length, 1);
    assert.ok(left[0].attempted_ms > Date.now() - 30 * 86_400_000);
  });
});
