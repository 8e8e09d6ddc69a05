import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { NS } from '../helpers/app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { insertWebhook, newSecret, webhookRow } from '../helpers/webhooks.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';

/**
 * Where webhooks are delivered (docs/webhooks.md "Delivery at scale"):
 *
 * - `cli webhooks deliver`: a process that only delivers, beside a service started with
 *   WEBHOOK_DELIVERY=off. The service's writes reach the receiver through it, in order, under its
 *   lease; SIGTERM stops it cleanly and gives the lease up.
 * - the delivery thread of a started service (WEBHOOK_THREAD, on by default): it delivers the
 *   service's writes at a lower scheduling priority than the threads answering requests, so that on
 *   a busy machine the API goes first.
 */
describe('where webhooks are delivered: a process of its own, or a thread of the service', function () {
  this.timeout(120_000);
  let service: Service | undefined;
  let receiver: WebhookReceiver | undefined;

  afterEach(async () => {
    killService(service);
    await receiver?.close();
    service = undefined;
    receiver = undefined;
  });

  it('delivers the writes of a service that does not deliver, and stops on SIGTERM giving its lease up', async () => {
    const database = await serviceDatabase();
    try {
      const authorization = await addUser(database.db, 'deliver-admin', 'administrator');
      receiver = await WebhookReceiver.start();
      const secret = newSecret();
      const hook = await insertWebhook({ url: receiver.endpoint('cli', [secret]), secret }, database.db);
      const env = { DATABASE_URL: database.url, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', LOG_LEVEL: 'info' };
      const running = await startService({ ...env, WEBHOOK_DELIVERY: 'off' });
      service = running;
      const deliverer = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'webhooks', 'deliver'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => deliverer.once('exit', (code) => resolve(code)));
      try {
        const titles = Array.from({ length: 5 }, (_, i) => `Delivered apart ${i}`);
        for (const title of titles) {
          const res = await fetch(`${running.url}${NS}/events`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: authorization },
            body: JSON.stringify({ title, start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', status: 'publish' }),
          });
          assert.equal(res.status, 201, await res.text());
        }
        await receiver.waitFor(() => receiver!.of('cli').length >= 5, 60_000, 'the deliveries');
        assert.deepEqual(
          receiver.of('cli').map((m) => m.json.data.record.title),
          titles,
        );
        assert.equal((await webhookRow(hook.id, database.db)).lease_holder?.split(':')[1], String(deliverer.pid), 'the delivery process holds the lease');
      } finally {
        deliverer.kill('SIGTERM');
      }
      assert.equal(await exited, 0);
      assert.equal((await webhookRow(hook.id, database.db)).lease_holder, null, 'the lease was given up');
    } finally {
      await database.close();
    }
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
