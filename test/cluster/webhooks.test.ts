import assert from 'node:assert/strict';
import { NS } from '../helpers/app.js';
import { CLUSTER_SKIP_REASON, CLUSTER_TESTS, queryNode, servicesOnEveryNode, sharedCluster, type GaleraCluster, type GaleraNode } from '../helpers/cluster.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { killService, type Service } from '../ops/service.js';

type Rec = Record<string, any>;

/**
 * docs/webhooks.md "Guarantees" on a Galera cluster: one service per node delivers, a webhook created
 * through one of them receives the events created through all three, and the node whose service holds
 * the webhook's lease is killed (SIGKILL of the database node and of its service) in the middle of the
 * writes. A service on a live node takes the webhook over when the lease lapses: every acknowledged
 * create reaches the receiver, in feed order, and a message comes twice only with the same id.
 */
describe(`cluster: webhooks when the delivering node dies${CLUSTER_TESTS ? '' : ` (skipped: ${CLUSTER_SKIP_REASON})`}`, function () {
  this.timeout(600_000);
  let cluster: GaleraCluster;
  let services: Service[] = [];
  let admin: string;
  let receiver: WebhookReceiver | undefined;

  before(async function () {
    if (!CLUSTER_TESTS) return this.skip();
    cluster = await sharedCluster();
    ({ services, administrator: admin } = await servicesOnEveryNode(cluster, 'cluster-hooks', {
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_LEASE_SECONDS: '3',
      WEBHOOK_RETRY_DELAYS: '0.2,0.2,0.5,1,1,2,2,5,5,5',
    }));
  });
  after(async () => {
    for (const service of services) killService(service);
    services = [];
    await receiver?.close();
    const dead = cluster?.nodes.find((node) => !node.process);
    if (dead) await cluster.rejoin(dead);
  });

  it('every acknowledged create is delivered once the webhook moves to a live node, in order, repeats only with equal ids', async () => {
    receiver = await WebhookReceiver.start();
    const created = await fetch(`${services[0].url}${NS}/webhooks`, {
      method: 'POST',
      headers: { Authorization: admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.endpoint('cluster', []), types: ['event'], description: 'cluster failover' }),
    });
    assert.equal(created.status, 201);
    const hook = (await created.json()) as Rec;
    receiver.behave('cluster', { secrets: [hook.secret], delayMs: 20 });

    const run = `Hook ${Date.now().toString(36)}`;
    const acknowledged: number[] = [];
    let writing = true;
    const writer = async (index: number) => {
      for (let n = 0; writing; n++) {
        if (!services[index].child.pid || services[index].child.exitCode !== null || services[index].child.signalCode !== null) return;
        const res = await fetch(`${services[index].url}${NS}/events`, {
          method: 'POST',
          headers: { Authorization: admin, 'Content-Type': 'application/json' },
          body: JSON.stringify({ title: `${run} w${index} n${n}`, start_date: '2027-11-01 10:00:00', end_date: '2027-11-01 11:00:00', status: 'publish' }),
        }).catch(() => undefined);
        if (res?.status === 201) acknowledged.push(((await res.json()) as Rec).id as number);
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const writers = [0, 1, 2].map(writer);
    await receiver.waitFor(() => receiver!.of('cluster').length >= 5, 60_000, 'the first deliveries');

    // The node of the service that holds the lease dies with it.
    const [row] = await queryNode<Rec>(cluster.nodes[0], `SELECT lease_holder FROM tec.webhooks WHERE id = ${Number(hook.id)}`);
    const holderPid = String(row.lease_holder ?? '').split(':')[1];
    const victimIndex = services.findIndex((service) => String(service.child.pid) === holderPid);
    assert.ok(victimIndex >= 0, `a service holds the webhook (${row.lease_holder})`);
    const victimNode: GaleraNode = cluster.nodes[victimIndex];
    services[victimIndex].child.kill('SIGKILL');
    await cluster.kill(victimNode);
    const deliveredAtKill = receiver.of('cluster').length;
    await new Promise((resolve) => setTimeout(resolve, 4000));
    writing = false;
    await Promise.all(writers);
    await cluster.rejoin(victimNode);

    // Every acknowledged create arrives (the survivors take the webhook over after the lease lapses).
    const delivered = () => new Set(receiver!.of('cluster').map((message) => message.json.data.id as number));
    await receiver.waitFor(() => acknowledged.every((id) => delivered().has(id)), 120_000, 'every acknowledged create delivered');
    console.log(
      `      killed ${victimNode.name} and its service after ${deliveredAtKill} deliveries; ${acknowledged.length} creates acknowledged, ${receiver.received.length} messages received`,
    );

    assert.deepEqual(receiver.forged, []);
    // Feed order: the positions of first arrivals only grow; a repeat is the same message under the same id.
    const positions: number[] = [];
    const bodies = new Map<string, string>();
    for (const message of receiver.received) {
      const body = JSON.stringify(message.json.data);
      if (bodies.has(message.id)) {
        assert.equal(bodies.get(message.id), body, `a repeat of ${message.id} is the same message`);
        continue;
      }
      bodies.set(message.id, body);
      positions.push(parseInt(String(message.json.data.cursor).split('.')[0], 36));
    }
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'messages arrive in feed order',
    );
  });
});
