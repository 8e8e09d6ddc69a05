import assert from 'node:assert/strict';
import fs from 'node:fs';
import { NS } from '../helpers/app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { insertWebhook, newSecret } from '../helpers/webhooks.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';

/**
 * The delivery thread of a started service (WEBHOOK_THREAD, on by default; docs/webhooks.md "Delivery
 * at scale"): it delivers the service's writes, and it runs at a lower scheduling priority than the
 * threads answering requests, so that on a busy machine the API goes first.
 */
describe('the webhook delivery thread of a started service', function () {
  this.timeout(120_000);
  let service: Service | undefined;
  let receiver: WebhookReceiver | undefined;

  after(async () => {
    killService(service);
    await receiver?.close();
  });

  it('delivers the writes, on a thread at nice 10 while the thread answering requests stays at 0', async function () {
    // Linux's per-thread nice values, read from /proc: the platforms the service is deployed on.
    if (process.platform !== 'linux') this.skip();
    const database = await serviceDatabase();
    try {
      const authorization = await addUser(database.db, 'thread-admin', 'administrator');
      receiver = await WebhookReceiver.start();
      const secret = newSecret();
      await insertWebhook({ url: receiver.endpoint('thread', [secret]), secret }, database.db);
      const running = await startService({ DATABASE_URL: database.url, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
      service = running;
      const res = await fetch(`${running.url}${NS}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: authorization },
        body: JSON.stringify({ title: 'Sent from the thread', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', status: 'publish' }),
      });
      assert.equal(res.status, 201, await res.text());
      await receiver.waitFor(() => receiver!.of('thread').length >= 1, 60_000, 'the delivery');
      assert.equal(receiver.of('thread')[0].json.data.record.title, 'Sent from the thread');

      const pid = running.child.pid!;
      const niceOf = (task: string) => Number(fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
      const tasks = fs.readdirSync(`/proc/${pid}/task`);
      // The main thread's task id is the process id.
      assert.equal(niceOf(String(pid)), 0, 'the thread answering requests keeps the priority it was started with');
      assert.deepEqual(
        tasks.map(niceOf).filter((nice) => nice !== 0),
        [10],
        'exactly one thread, the delivery thread, runs at nice 10',
      );
    } finally {
      await database.close();
    }
  });
});
