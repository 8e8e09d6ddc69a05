import assert from 'node:assert/strict';
import { openDatabase } from '../../src/db/knex.js';
import { noteChange, openChangeLog, writeChangeLog } from '../../src/db/change-log.js';
import { NS } from '../helpers/app.js';
import { CLUSTER_SKIP_REASON, CLUSTER_TESTS, conflictFigures, queryNode, servicesOnEveryNode, sharedCluster, type GaleraCluster } from '../helpers/cluster.js';
import { killService, type Service } from '../ops/service.js';
import { assertOneVersion, versionedUpdate } from '../ops/versioned-updates.js';

type Rec = Record<string, any>;

/**
 * Three service processes, one per Galera node, on one database (issue: "past one database server").
 * Writes through different nodes conflict at certification, which Galera reports as a deadlock; the
 * service must retry them so that no client sees a 5xx, and every process must serve every write.
 * Each test prints the certification conflicts it caused, the figure that limits write scaling.
 */
describe(`cluster: three processes on three nodes${CLUSTER_TESTS ? '' : ` (skipped: ${CLUSTER_SKIP_REASON})`}`, function () {
  this.timeout(600_000);
  let cluster: GaleraCluster;
  let services: Service[] = [];
  let authorization: string;

  before(async function () {
    if (!CLUSTER_TESTS) return this.skip();
    cluster = await sharedCluster();
    ({ services, authorization } = await servicesOnEveryNode(cluster, 'cluster-editor'));
  });
  after(() => {
    for (const service of services) killService(service);
    services = [];
  });

  /** The service errors logged so far (a 5xx's cause), for the failure message. */
  const serverErrors = () =>
    services
      .flatMap((service) => service.logs())
      .filter((line) => line.msg === 'request failed')
      .map((line) => JSON.stringify((line.err as Rec | undefined) ?? line).slice(0, 500));

  const send = (service: Service, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${service.url}${NS}${path}`, {
      method,
      headers: { Authorization: authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** Runs `tasks` with at most `limit` at a time. */
  async function pooled<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
    const results: T[] = new Array(tasks.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: limit }, async () => {
        while (next < tasks.length) {
          const index = next++;
          results[index] = await tasks[index]();
        }
      }),
    );
    return results;
  }

  it('3 × 200 concurrent creates with venues, organizers and terms: no 5xx, 600 distinct events readable through every process, unique slugs', async () => {
    const before = await conflictFigures(cluster);
    const started = Date.now();
    // Titles, venues, organizers and terms repeat across the nodes, so slugs and linked records race.
    const creates = services.flatMap((service, node) =>
      Array.from({ length: 200 }, (_, i) => async () => {
        const res = await send(service, 'POST', '/events', {
          title: `Cluster Event ${i % 25}`,
          start_date: '2027-06-01 10:00:00',
          end_date: '2027-06-01 11:00:00',
          venue: { venue: `Cluster Hall ${i % 10}` },
          organizer: [{ organizer: `Cluster Organizer ${i % 10}` }],
          categories: [`Cluster Category ${i % 5}`],
          tags: [`Cluster Tag ${(i + node) % 7}`],
        });
        return { status: res.status, body: (await res.json()) as Rec };
      }),
    );
    const answers = await pooled(creates, 48);
    const seconds = (Date.now() - started) / 1000;
    const after = await conflictFigures(cluster);
    const statuses = answers.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});
    console.log(
      `      600 creates in ${seconds.toFixed(1)} s (${(600 / seconds).toFixed(0)}/s); statuses ${JSON.stringify(statuses)}; ` +
        `cert failures ${after.map((figure, i) => `${figure.node} +${figure.certFailures - before[i].certFailures}`).join(', ')}; ` +
        `bf aborts ${after.map((figure, i) => `${figure.node} +${figure.bfAborts - before[i].bfAborts}`).join(', ')}`,
    );
    const failed = answers.filter(({ status }) => status >= 500);
    assert.deepEqual(
      failed.slice(0, 3).map(({ status, body }) => `${status} ${body.code}`),
      [],
      `${failed.length} of 600 creates answered 5xx\n${serverErrors().slice(0, 5).join('\n')}`,
    );
    for (const { status, body } of answers) assert.equal(status, 201, JSON.stringify(body));

    const ids = answers.map(({ body }) => body.id as number);
    assert.equal(new Set(ids).size, 600);
    assert.equal(new Set(answers.map(({ body }) => body.slug as string)).size, 600, 'slugs are unique');
    // Right after the last answer, every process serves every event (no stale reply on any node).
    for (const service of services) {
      const reads = await pooled(
        ids.map((id) => async () => (await send(service, 'GET', `/events/${id}`)).status),
        16,
      );
      assert.deepEqual(
        reads.filter((status) => status !== 200),
        [],
        `reads through ${service.url}`,
      );
      const list = await send(service, 'GET', '/events?per_page=1&start_date=2027-06-01&end_date=2027-06-01%2023:59:59');
      assert.equal(list.headers.get('x-tec-total'), '600', `list total through ${service.url}`);
    }
  });

  it('concurrent updates of one event through different nodes: one consistent record, equal on every node, and no 5xx', async () => {
    const created = (await (await send(services[0], 'POST', '/events', { title: 'Contended', start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' })).json()) as Rec;
    const before = await conflictFigures(cluster);
    const updates = await Promise.all(Array.from({ length: 12 }, (_, i) => send(services[i % 3], 'POST', `/events/${created.id}`, versionedUpdate(i))));
    const after = await conflictFigures(cluster);
    const statuses = updates.map((res) => res.status).sort();
    console.log(
      `      12 concurrent updates of one event: statuses ${JSON.stringify(statuses)}; ` +
        `cert failures ${after.map((figure, i) => `${figure.node} +${figure.certFailures - before[i].certFailures}`).join(', ')}; ` +
        `bf aborts ${after.map((figure, i) => `${figure.node} +${figure.bfAborts - before[i].bfAborts}`).join(', ')}`,
    );
    // Whatever the answers, the record is one whole version, the same through every node.
    // Each process names its own origin in the records' URLs: compare the records without it.
    const finals = await Promise.all(
      services.map(async (service) => JSON.parse((await (await send(service, 'GET', `/events/${created.id}`)).text()).replaceAll(service.url, 'ORIGIN')) as Rec),
    );
    assertOneVersion(finals[0]);
    for (const final of finals.slice(1)) assert.deepEqual(final, finals[0]);
    assert.deepEqual(
      statuses.filter((status) => status !== 200),
      [],
      serverErrors().slice(0, 3).join('\n'),
    );
  });

  it('the change feed followed through one node while two others write misses nothing', async () => {
    const feedPage = async (after: string) => {
      const res = await send(services[0], 'GET', `/changes?types=event&per_page=50&after=${after}`);
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Rec;
    };
    const head = (await send(services[0], 'GET', '/events?per_page=1')).headers.get('x-tec-change-cursor')!;
    assert.ok(head);
    // The consumer follows the feed through node 1 for as long as the writers run, and then to its end.
    const seen = new Set<number>();
    let cursor = head;
    let writing = true;
    const consumer = (async () => {
      for (;;) {
        const stillWriting = writing;
        const page = await feedPage(cursor);
        for (const change of page.changes as Rec[]) seen.add(change.id as number);
        cursor = page.next_cursor as string;
        if (!page.has_more && !stillWriting) return;
      }
    })();
    // Two writers through nodes 2 and 3: creates, and an update of each created event.
    const before = await conflictFigures(cluster);
    const orderedWrites = async () => Number((await queryNode<Rec>(cluster.nodes[0], 'SET STATEMENT wsrep_sync_wait = 1 FOR SELECT writes FROM tec.change_sequence'))[0].writes);
    const orderedBefore = await orderedWrites();
    const writes = [1, 2].flatMap((node) =>
      Array.from({ length: 100 }, (_, i) => async () => {
        const created = await send(services[node], 'POST', '/events', {
          title: `Feed ${node}-${i}`,
          start_date: '2027-10-01 10:00:00',
          end_date: '2027-10-01 11:00:00',
          categories: [`Feed Category ${i % 3}`],
        });
        const body = (await created.json()) as Rec;
        assert.equal(created.status, 201, JSON.stringify(body));
        const updated = await send(services[3 - node], 'POST', `/events/${body.id}`, { title: `Feed ${node}-${i} changed` });
        assert.equal(updated.status, 200, await updated.text());
        return body.id as number;
      }),
    );
    const ids = await pooled(writes, 16);
    writing = false;
    await consumer;
    const after = await conflictFigures(cluster);
    console.log(
      `      200 creates and 200 updates through nodes 2 and 3 while following the feed through node 1; ` +
        `cert failures ${after.map((figure, i) => `${figure.node} +${figure.certFailures - before[i].certFailures}`).join(', ')}; ` +
        `bf aborts ${after.map((figure, i) => `${figure.node} +${figure.bfAborts - before[i].bfAborts}`).join(', ')}`,
    );
    const missed = ids.filter((id) => !seen.has(id));
    assert.deepEqual(missed, [], `${missed.length} of ${ids.length} events never appeared in the feed`);
    // Each write took its change numbers under the written row that keeps commit order across nodes.
    assert.ok((await orderedWrites()) - orderedBefore >= 400, 'writes take change numbers under the change_sequence row (src/db/change-log.ts)');
  });

  it('a writer on another node that took its change number before a later commit cannot commit behind the feed', async () => {
    // A venue whose change a transaction on node 2 records, held open after taking its number.
    const venue = (await (await send(services[0], 'POST', '/venues', { venue: 'Held Hall' })).json()) as Rec;
    const head = (await send(services[0], 'GET', '/events?per_page=1')).headers.get('x-tec-change-cursor')!;
    const { db: node2 } = openDatabase(cluster.urls[1]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let numbered!: () => void;
    const hasNumber = new Promise<void>((resolve) => (numbered = resolve));
    // The service's own change-log steps, with a pause before the commit.
    const held = node2.transaction(async (trx) => {
      openChangeLog(trx);
      noteChange(trx, 'venue', venue.id as number);
      await writeChangeLog(trx);
      numbered();
      await released;
    });
    const outcome = held.then(
      () => 'committed',
      (err: { errno?: number }) => `failed ${err.errno}`,
    );
    try {
      await hasNumber;
      // Meanwhile three events are created through node 3 (at least one takes a larger number), and the
      // feed is read through node 1 past them.
      for (let i = 0; i < 3; i++) {
        const res = await send(services[2], 'POST', '/events', { title: `Overtaking ${i}`, start_date: '2027-11-01 10:00:00', end_date: '2027-11-01 11:00:00' });
        assert.equal(res.status, 201, await res.text());
      }
      const page = (await (await send(services[0], 'GET', `/changes?types=event&after=${head}`)).json()) as Rec;
      assert.equal(page.changes.length, 3);
      release();
      const result = await outcome;
      // Whether the held transaction committed or was rolled back by the cluster, the feed followed
      // from the cursor read in between must not have passed a change that commits afterwards.
      const after = (await (await send(services[0], 'GET', `/changes?types=venue&after=${page.next_cursor}`)).json()) as Rec;
      console.log(`      the held transaction on node 2: ${result}; venue changes after the cursor read meanwhile: ${after.changes.length}`);
      if (result === 'committed')
        assert.deepEqual(
          after.changes.map((change: Rec) => change.id),
          [venue.id],
          'a change committed behind the feed was missed',
        );
      else assert.equal(result, 'failed 1213');
    } finally {
      release();
      await outcome;
      await node2.destroy();
    }
  });

  it('one Idempotency-Key sent through two nodes at once creates one event, and replays it through a third', async () => {
    const key = `cluster-key-${Date.now()}`;
    const title = `Idempotent ${key}`;
    const body = { title, start_date: '2027-12-01 10:00:00', end_date: '2027-12-01 11:00:00', venue: { venue: 'Idempotent Hall' } };
    const answers = await Promise.all(
      [0, 1].map(async (node) => {
        const res = await send(services[node], 'POST', '/events', body, { 'Idempotency-Key': key });
        return { status: res.status, body: (await res.json()) as Rec };
      }),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    // Both finished at once (one replays the other's answer) or one found the key still in use (409).
    assert.ok(['201,201', '201,409'].includes(statuses.join()), JSON.stringify(answers));
    const created = answers.find((answer) => answer.status === 201)!.body;
    for (const answer of answers.filter((a) => a.status === 201)) assert.equal(answer.body.id, created.id);
    const replay = await send(services[2], 'POST', '/events', body, { 'Idempotency-Key': key });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await replay.json()) as Rec).id, created.id);
    for (const service of services) {
      const found = (await (await send(service, 'GET', `/events?search=${encodeURIComponent(key)}&start_date=2027-12-01`)).json()) as Rec;
      assert.deepEqual(
        found.events.map((event: Rec) => event.id),
        [created.id],
        `one event through ${service.url}`,
      );
    }
  });

  it('If-Match gives 412 across nodes as on one', async () => {
    const created = (await (await send(services[0], 'POST', '/events', { title: 'Tagged', start_date: '2027-08-01 10:00:00', end_date: '2027-08-01 11:00:00' })).json()) as Rec;
    // A tag read through node 1, a write with it through node 2, then the same tag again through node 3.
    const tag = (await send(services[0], 'GET', `/events/${created.id}`)).headers.get('etag')!;
    assert.ok(tag);
    assert.equal((await send(services[1], 'POST', `/events/${created.id}`, { title: 'Changed on node 2' }, { 'If-Match': tag })).status, 200);
    const stale = await send(services[2], 'POST', `/events/${created.id}`, { title: 'Stale on node 3' }, { 'If-Match': tag });
    assert.equal(stale.status, 412, await stale.text());
    for (const service of services) assert.equal(((await (await send(service, 'GET', `/events/${created.id}`)).json()) as Rec).title, 'Changed on node 2');
  });

  it('checks that need each other through two nodes at once: category parents never make a cycle, identical venue creates one venue', async () => {
    // The write locks (src/db/write-locks.ts) are rows both writes write: a certification conflict
    // across nodes, and the loser runs again and checks again. Without them 37 of 40 swaps made a cycle.
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Rec });
    for (let round = 0; round < 10; round++) {
      const [a, b] = await Promise.all(
        [`Swap A ${round}`, `Swap B ${round}`].map(async (name) => (await json(await send(services[0], 'POST', '/categories', { name }))).body.id as number),
      );
      const answers = await Promise.all([
        send(services[0], 'PATCH', `/categories/${a}`, { parent: b }).then(json),
        send(services[1], 'PATCH', `/categories/${b}`, { parent: a }).then(json),
      ]);
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 400], JSON.stringify(answers));
      const venue = { venue: `Twin Hall ${round}`, city: 'Lyon', status: 'publish' };
      const twins = await Promise.all([send(services[0], 'POST', '/venues', venue).then(json), send(services[1], 'POST', '/venues', venue).then(json)]);
      assert.deepEqual(
        twins.map((twin) => twin.status),
        [201, 201],
        JSON.stringify(twins),
      );
      assert.equal(twins[0].body.id, twins[1].body.id, `one venue in round ${round}`);
    }
    assert.deepEqual(serverErrors(), []);
  });
});
