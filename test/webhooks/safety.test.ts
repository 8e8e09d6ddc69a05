import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent } from '../helpers/events.js';
import { deliveriesOf, insertWebhook, newSecret, startDelivery, waitForRow, deliveryTestbed } from '../helpers/webhooks.js';
import { MAX_ANSWER_BYTES, sendMessage } from '../../src/webhooks/sender.js';
import type { WebhookDeliveryRow } from '../../src/repositories/webhook-rows.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Where and how deliveries go (docs/webhooks.md "Safety", "Messages"): refused destinations are
 * failed attempts that reach nobody, checked again on the addresses the connection resolves;
 * redirects are not followed; the answer is read up to 64 KB; the timeout bounds the exchange.
 */

async function firstDelivery(id: number): Promise<WebhookDeliveryRow> {
  let first: WebhookDeliveryRow | undefined;
  await waitFor(async () => (first = (await deliveriesOf(id))[0]) !== undefined, `an attempt recorded for webhook ${id}`, 10_000, 20);
  return first!;
}

describe('webhook delivery safety', function () {
  this.timeout(30_000);
  const bed = deliveryTestbed();

  it('refuses metadata, private and IPv6 loopback addresses at delivery: a failed attempt saying so, and no connection', async () => {
    // A listener on [::1] that counts connections, where the machine has IPv6 loopback.
    let v6Connections = 0;
    const v6 = http.createServer((_, res) => res.end());
    v6.on('connection', () => v6Connections++);
    const v6Port = await new Promise<number | undefined>((resolve) => {
      v6.once('error', () => resolve(undefined));
      v6.listen(0, '::1', () => resolve((v6.address() as AddressInfo).port));
    });
    try {
      const metadata = await insertWebhook({ url: 'https://169.254.169.254/latest/meta-data/' });
      const loopback6 = await insertWebhook({ url: `https://[::1]:${v6Port ?? bed.receiver.port}/hooks/v6` });
      const private4 = await insertWebhook({ url: `https://10.0.0.1:${bed.receiver.port}/hooks/private` });
      await createEvent(bed.http, bed.admin, { title: 'Not for them', status: 'publish' });
      await startDelivery();
      const expected: Array<[number, RegExp]> = [
        [metadata.id, /169\.254\.169\.254 is a linkLocal address/],
        [loopback6.id, /::1 is a loopback address/],
        [private4.id, /10\.0\.0\.1 is a private address/],
      ];
      for (const [id, error] of expected) {
        const attempt = await firstDelivery(id);
        assert.equal(attempt.status_code, null);
        assert.match(attempt.error ?? '', error);
        assert.equal((await waitForRow(id, (row) => row.status === 'failing')).status, 'failing');
      }
      assert.equal(v6Connections, 0, 'nothing reached [::1]');
    } finally {
      v6.close();
    }
  });

  it('refuses a name that resolves to loopback (localhost) when loopback is not allowed: no request reaches the receiver', async () => {
    const secret = newSecret();
    const url = bed.receiver.endpoint('local', [secret], `localhost:${bed.receiver.port}`).replace('http:', 'https:');
    const webhook = await insertWebhook({ url, secret });
    await createEvent(bed.http, bed.admin, { title: 'Not to localhost', status: 'publish' });
    await startDelivery({ allowedNetworks: [] });
    const attempt = await firstDelivery(webhook.id);
    assert.equal(attempt.status_code, null);
    assert.match(attempt.error ?? '', /(127\.0\.0\.1|::1) is a loopback address/);
    assert.equal(bed.receiver.connections, 0);
  });

  it('checks the addresses the connection resolves, not only the check before it (DNS may answer otherwise)', async () => {
    const secret = newSecret();
    const webhook = await insertWebhook({ url: bed.receiver.endpoint('rebound', [secret], `localhost:${bed.receiver.port}`), secret });
    await createEvent(bed.http, bed.admin, { title: 'Rebound', status: 'publish' });
    // The check before connecting is told the name is in an allowed network; the connection resolves it to 127.0.0.1.
    await startDelivery({ allowedNetworks: ['10.99.0.0/16'] }, { resolve: async () => ['10.99.0.1'] });
    const attempt = await firstDelivery(webhook.id);
    assert.equal(attempt.status_code, null);
    assert.match(attempt.error ?? '', /refused: (127\.0\.0\.1|::1) is not in OUTBOUND_ALLOWED_NETWORKS/);
    assert.equal(bed.receiver.connections, 0);
  });

  it('does not follow redirects: a 3xx is a failed attempt and the other address gets nothing', async () => {
    const secret = newSecret();
    const webhook = await insertWebhook({ url: bed.receiver.endpoint('moved', [secret]), secret });
    bed.receiver.endpoint('elsewhere', [secret]);
    bed.receiver.behave('moved', { redirectTo: 'elsewhere' });
    await createEvent(bed.http, bed.admin, { title: 'Redirected', status: 'publish' });
    await startDelivery();
    const attempt = await firstDelivery(webhook.id);
    assert.equal(attempt.status_code, 302);
    assert.equal((await waitForRow(webhook.id, (row) => row.status === 'failing')).status, 'failing');
    assert.equal(bed.receiver.hits.get('elsewhere') ?? 0, 0);
  });

  it('fails an attempt whose answer does not come within WEBHOOK_TIMEOUT', async () => {
    const secret = newSecret();
    const webhook = await insertWebhook({ url: bed.receiver.endpoint('slow', [secret]), secret });
    bed.receiver.behave('slow', { delayMs: 1500 });
    await createEvent(bed.http, bed.admin, { title: 'Too slow', status: 'publish' });
    await startDelivery({ timeoutSeconds: 0.3 });
    const attempt = await firstDelivery(webhook.id);
    assert.equal(attempt.status_code, null);
    assert.match(attempt.error ?? '', /no answer within WEBHOOK_TIMEOUT \(0\.3 s\)/);
    assert.ok(attempt.duration_ms >= 280 && attempt.duration_ms < 1400, `${attempt.duration_ms} ms`);
  });

  it('reads at most 64 KB of an answer: an endless 200 is acknowledged long before the timeout', async () => {
    const secret = newSecret();
    const webhook = await insertWebhook({ url: bed.receiver.endpoint('endless', [secret]), secret });
    bed.receiver.behave('endless', { endless: true });
    await createEvent(bed.http, bed.admin, { title: 'Chatty receiver', status: 'publish' });
    await startDelivery({ timeoutSeconds: 5 });
    const attempt = await firstDelivery(webhook.id);
    assert.equal(attempt.status_code, 200);
    assert.equal(attempt.error, null);
    assert.ok(attempt.duration_ms < 2000, `${attempt.duration_ms} ms: the sender stopped reading`);
    assert.equal((await waitForRow(webhook.id, (row) => row.position > webhook.position)).status, 'active');
  });

  it('the sender: answer bytes bounded, connection errors and refusals are results, never exceptions', async () => {
    const secret = newSecret();
    const endless = bed.receiver.endpoint('raw', [secret]);
    bed.receiver.behave('raw', { endless: true });
    const settings = { timeoutSeconds: 5, allowedNetworks: ['127.0.0.0/8'] };
    const message = { messageId: 'msg_test', body: '{"type":"webhook.ping"}', secrets: [secret] };
    const read = await sendMessage(endless, message, settings);
    assert.equal(read.ok, true);
    assert.ok(read.answerBytes <= MAX_ANSWER_BYTES, `${read.answerBytes} bytes read`);
    await bed.receiver.waitFor(() => bed.receiver.endlessBytes.has('raw'));

    // A closed port.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await sendMessage(`http://127.0.0.1:${port}/`, message, settings);
    assert.deepEqual([refused.ok, refused.statusCode], [false, null]);
    assert.match(refused.error ?? '', /ECONNREFUSED/);

    const forbidden = await sendMessage('http://169.254.169.254/', message, settings);
    assert.match(forbidden.error ?? '', /169\.254\.169\.254 is not in OUTBOUND_ALLOWED_NETWORKS/);
    const notHttps = await sendMessage('http://example.org/', message, { ...settings, allowedNetworks: [] });
    assert.match(notHttps.error ?? '', /https/);
  });
});
