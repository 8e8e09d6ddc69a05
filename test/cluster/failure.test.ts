import assert from 'node:assert/strict';
import { NS } from '../helpers/app.js';
import { CLUSTER_SKIP_REASON, CLUSTER_TESTS, nodeStatus, queryNode, servicesOnEveryNode, sharedCluster, type GaleraCluster, type GaleraNode } from '../helpers/cluster.js';
import { killService, type Service } from '../ops/service.js';
import { REFUSED_THEN_RAN, STATEMENT_RETRY_WINDOW_MS } from '../../src/db/statement-retries.js';

type Rec = Record<string, any>;

interface Answer {
  writer: number;
  title: string;
  status: number;
  id?: number;
  code?: string;
  retryAfter?: string | null;
  at: number;
}

/**
 * A node killed (SIGKILL) while three writers run, one per process and node (docs/contract.md §18):
 * the process on the dead node answers 503 with `Retry-After` (and `/readyz` too) and recovers by itself
 * once the node has rejoined by IST; the other two processes keep serving without an error; afterwards
 * every acknowledged write is on all three nodes, and nothing is half written.
 */
describe(`cluster: a node killed under load${CLUSTER_TESTS ? '' : ` (skipped: ${CLUSTER_SKIP_REASON})`}`, function () {
  this.timeout(600_000);
  let cluster: GaleraCluster;
  let services: Service[] = [];
  let authorization: string;

  before(async function () {
    if (!CLUSTER_TESTS) return this.skip();
    cluster = await sharedCluster();
    ({ services, authorization } = await servicesOnEveryNode(cluster, 'cluster-killer'));
  });
  after(async () => {
    for (const service of services) killService(service);
    services = [];
    // Leave the shared cluster whole for the files that run after this one.
    const dead = cluster?.nodes.find((node) => !node.process);
    if (dead) await cluster.rejoin(dead);
  });

  const ready = async (service: Service) => (await fetch(`${service.url}/readyz`).catch(() => undefined))?.status;

  async function waitUntil(what: string, test: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    const started = Date.now();
    while (!(await test())) {
      if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return Date.now() - started;
  }

  it('the process on a killed node answers 503 and recovers after the rejoin; the others never fail; every acknowledged write is on every node, none half there', async () => {
    const run = `Kill ${Date.now().toString(36)}`;
    const answers: Answer[] = [];
    let writing = true;
    const started = Date.now();
    // Three writers, one per process, each with two creates in flight.
    const writer = async (index: number, lane: number) => {
      for (let n = 0; writing; n++) {
        const title = `${run} w${index} l${lane} n${n}`;
        const res = await fetch(`${services[index].url}${NS}/events`, {
          method: 'POST',
          headers: { Authorization: authorization, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            title,
            start_date: '2027-09-01 10:00:00',
            end_date: '2027-09-01 11:00:00',
            venue: { venue: `Kill Hall ${n % 3}` },
            organizer: [{ organizer: `Kill Organizer ${n % 3}` }],
            categories: [`Kill Category ${n % 2}`],
          }),
        }).catch((err: unknown) => ({ status: 0, err }) as const);
        if ('err' in res) {
          answers.push({ writer: index, title, status: 0, code: String(res.err), at: Date.now() - started });
          continue;
        }
        const body = (await res.json().catch(() => ({}))) as Rec;
        answers.push({ writer: index, title, status: res.status, id: body.id, code: body.code, retryAfter: res.headers.get('retry-after'), at: Date.now() - started });
        if (res.status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const writers = [0, 1, 2].flatMap((index) => [writer(index, 0), writer(index, 1)]);

    await new Promise((resolve) => setTimeout(resolve, 3000));
    const victim: GaleraNode = cluster.nodes[2];
    const killedAt = Date.now() - started;
    await cluster.kill(victim);
    const unreadyAfter = await waitUntil('/readyz of the process on the killed node answers 503', async () => (await ready(services[2])) === 503, 30_000);
    // The survivors keep serving while the node is away.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const rejoinedAt = Date.now() - started;
    await cluster.rejoin(victim);
    const readyAfter = await waitUntil('/readyz of the process on the rejoined node answers 200', async () => (await ready(services[2])) === 200, 60_000);
    // Writes through the rejoined node succeed again.
    const recoveredAt = Date.now() - started;
    await waitUntil('a create through the rejoined node answers 201', async () => answers.some((a) => a.writer === 2 && a.status === 201 && a.at > recoveredAt), 30_000);
    writing = false;
    await Promise.all(writers);

    const count = (writer: number, status: number) => answers.filter((a) => a.writer === writer && a.status === status).length;
    // Statements that the node refused while the cluster regrouped and that ran again (src/db/statement-retries.ts).
    const ranAgain = services.map((service) => service.logs().filter((line) => String(line.msg).startsWith(REFUSED_THEN_RAN)).length);
    console.log(
      `      killed ${victim.name} at ${(killedAt / 1000).toFixed(1)} s, /readyz 503 after ${unreadyAfter} ms; rejoin began at ${(rejoinedAt / 1000).toFixed(1)} s, ` +
        `/readyz 200 ${readyAfter} ms after the node synced; answers per process: ` +
        [0, 1, 2].map((w) => `p${w + 1} ${count(w, 201)}×201 ${answers.filter((a) => a.writer === w && a.status !== 201).length}×other`).join(', ') +
        `; statements run again after a refusal: ${ranAgain.map((n, w) => `p${w + 1} ${n}`).join(', ')}`,
    );

    // The processes on the two live nodes never failed.
    const survivorsFailed = answers.filter((a) => a.writer !== 2 && a.status !== 201);
    const causes = services.flatMap((service) => service.logs()).filter((line) => line.msg === 'request failed' && (line.res as Rec | undefined)?.statusCode !== 503);
    assert.deepEqual(
      survivorsFailed.slice(0, 5),
      [],
      `${survivorsFailed.length} failed answers through the live nodes\n${causes.map((line) => JSON.stringify(line.err ?? line).slice(0, 600)).join('\n')}`,
    );
    // The process on the killed node answered only 201 or 503 with Retry-After, and some of each.
    const victimOther = answers.filter((a) => a.writer === 2 && a.status !== 201);
    assert.ok(victimOther.length > 0, 'the process on the killed node answered something other than 201 while it was down');
    for (const answer of victimOther) {
      assert.equal(answer.status, 503, JSON.stringify(answer));
      assert.ok(answer.retryAfter, `503 without Retry-After: ${JSON.stringify(answer)}`);
    }

    // Every acknowledged create is on every node, whole, and the nodes agree.
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.id!);
    assert.ok(acknowledged.length > 0);
    const perNode = await Promise.all(cluster.nodes.map((node) => wholeEvents(node, run)));
    for (const [i, found] of perNode.entries()) {
      const missing = acknowledged.filter((id) => !found.whole.has(id));
      assert.deepEqual(missing.slice(0, 5), [], `${missing.length} acknowledged creates missing or not whole on ${cluster.nodes[i].name}`);
      assert.deepEqual(found.partial, [], `half-written creates on ${cluster.nodes[i].name}`);
      assert.deepEqual([...found.whole].sort(), [...perNode[0].whole].sort(), `${cluster.nodes[i].name} holds the same events as ${cluster.nodes[0].name}`);
    }
  });

  /**
   * A node cut off from the primary component for a moment (Galera's `gmcast.isolate`), as the
   * survivors of a node's death can be while they regroup: it refuses statements (a failed sync wait,
   * 1205, then 1047). A read that arrives meanwhile runs again until the node is back and answers 200
   * if that took less than the retry window (src/db/statement-retries.ts), 503 with Retry-After
   * otherwise; a write answers 201 or 503 with Retry-After; nothing answers 500, and afterwards the
   * process serves as before without a restart.
   */
  it('a process whose node is cut off for a moment answers once the node is back (503 only if it stayed away longer than the retry window), never 500', async () => {
    const node: GaleraNode = cluster.nodes[0];
    const service = services[0];
    const headers = { Authorization: authorization, 'Content-Type': 'application/json' };
    const body = (title: string) => JSON.stringify({ title, start_date: '2027-10-01 10:00:00', end_date: '2027-10-01 11:00:00', categories: ['Cut Off'] });
    const created = await fetch(`${services[1].url}${NS}/events`, { method: 'POST', headers, body: body('Before the cut') });
    assert.equal(created.status, 201);
    const id = ((await created.json()) as Rec).id as number;

    // The node leaves the primary component a few seconds after it is isolated.
    await queryNode(node, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
    await waitUntil('the isolated node is outside the primary component', async () => (await nodeStatus(node, 'wsrep_cluster_status')) === 'non-Primary', 30_000);
    const sent = Date.now();
    const answer = async (res: Promise<Response>) => {
      const reply = await res;
      return { status: reply.status, retryAfter: reply.headers.get('retry-after'), at: Date.now() - sent, body: (await reply.json().catch(() => ({}))) as Rec };
    };
    const read = answer(fetch(`${service.url}${NS}/events/${id}`));
    const write = answer(fetch(`${service.url}${NS}/events`, { method: 'POST', headers, body: body('During the cut') }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await queryNode(node, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
    const away = await waitUntil(
      'the node is primary and synced again',
      async () => (await nodeStatus(node, 'wsrep_local_state_comment').catch(() => undefined)) === 'Synced',
      60_000,
    );
    const backAfter = Date.now() - sent;
    const [readAnswer, writeAnswer] = await Promise.all([read, write]);
    console.log(
      `      node1 back ${backAfter} ms after the requests (synced ${away} ms after the cut ended); GET ${readAnswer.status} after ${readAnswer.at} ms, POST ${writeAnswer.status} after ${writeAnswer.at} ms; ` +
        `statements run again: ${service.logs().filter((line) => String(line.msg).startsWith(REFUSED_THEN_RAN)).length}`,
    );

    const causes = service.logs().filter((line) => line.msg === 'request failed');
    assert.deepEqual(causes, [], 'no request failed with a 500');
    if (backAfter < STATEMENT_RETRY_WINDOW_MS - 500) assert.equal(readAnswer.status, 200, JSON.stringify(readAnswer));
    for (const reply of [readAnswer, writeAnswer]) {
      assert.ok([200, 201, 503].includes(reply.status), JSON.stringify(reply));
      if (reply.status === 503) assert.ok(reply.retryAfter, JSON.stringify(reply));
    }
    if (readAnswer.status === 200) assert.equal(readAnswer.body.id, id);
    // Served as before, without a restart.
    const after = await fetch(`${service.url}${NS}/events`, { method: 'POST', headers, body: body('After the cut') });
    assert.equal(after.status, 201);
    assert.equal((await fetch(`${service.url}${NS}/events/${id}`)).status, 200);
  });

  /**
   * The run's events on one node, read directly: whole ones (post, event row, venue, organizer and
   * category links, and the change-log row) and any post that lacks one of those.
   */
  async function wholeEvents(node: GaleraNode, run: string): Promise<{ whole: Set<number>; partial: Rec[] }> {
    const rows = await queryNode<Rec>(
      node,
      `SET STATEMENT wsrep_sync_wait = 1 FOR SELECT p.id,
              (SELECT COUNT(*) FROM tec.events e WHERE e.post_id = p.id) AS events,
              (SELECT COUNT(*) FROM tec.event_venues v WHERE v.event_id = p.id) AS venues,
              (SELECT COUNT(*) FROM tec.event_organizers o WHERE o.event_id = p.id) AS organizers,
              (SELECT COUNT(*) FROM tec.event_terms t WHERE t.event_id = p.id) AS terms,
              (SELECT COUNT(*) FROM tec.changes c WHERE c.type = 'event' AND c.record_id = p.id) AS changes
         FROM tec.posts p
        WHERE p.type = 'event' AND p.title LIKE '${run.replace(/[^A-Za-z0-9 ]/g, '')}%'`,
    );
    const whole = new Set<number>();
    const partial: Rec[] = [];
    for (const row of rows) {
      const isWhole = ['events', 'venues', 'organizers', 'terms', 'changes'].every((column) => Number(row[column]) === 1);
      if (isWhole) whole.add(Number(row.id));
      else partial.push(row);
    }
    return { whole, partial };
  }
});
