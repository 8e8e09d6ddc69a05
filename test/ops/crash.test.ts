import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { NS } from '../helpers/app.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
const CREATES = 200;

type Created = Record<string, unknown> & { id: number };

const event = (round: number, i: number) => ({
  title: `Crash ${round}-${i}`,
  description: `<p>Round ${round}, create ${i}: written with its venue, organizer and terms in one transaction.</p>`,
  start_date: '2027-06-01 18:00:00',
  end_date: '2027-06-01 21:00:00',
  status: 'publish',
  cost: '$12',
  venue: { venue: `Crash Hall ${round}-${i}`, city: 'Springfield' },
  organizer: [{ organizer: `Crash Org ${round}-${i}` }],
  categories: ['Crash Test'],
  tags: [`round ${round}`],
});

/**
 * What a later read must repeat of a 201: the event's own fields whole, and of its venue, organizers
 * and terms who they are. The linked records' own counts and modification times move with later
 * writes (the other creates of the burst use the same terms), and a venue embedded in a create's
 * answer carries no `json_ld` (nor does the event: it is built for reads alone) while a read's does,
 * so those are left out.
 */
function stable(record: Created): Record<string, unknown> {
  const who = (linked: unknown) => {
    const { id, slug, name, venue, organizer } = linked as Record<string, unknown>;
    return { id, slug, name, venue, organizer };
  };
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { venue, organizer, categories, tags, json_ld, ...own } = record;
  return {
    ...own,
    venue: who(venue),
    organizer: (organizer as unknown[]).map(who),
    categories: (categories as unknown[]).map(who),
    tags: (tags as unknown[]).map(who),
  };
}

/** A fixed sequence (mulberry32), so every run kills at the same points. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Issue #29 "Durable by default": the service is killed with SIGKILL in the middle of 200 concurrent
 * creates, 20 times. Every create it acknowledged (a whole 201 body reached the client) must be there
 * after the restart, equal to that body, and the SQLite file must pass `PRAGMA integrity_check`.
 *
 * What this proves and what it does not: SIGKILL ends the process, not the machine, so the operating
 * system still writes out what the process had handed it; this test catches a 201 sent before its
 * commit, a write split over several transactions, and a file left damaged by a process dying mid-write.
 * Surviving a power loss rests on `synchronous = FULL` syncing the log at each commit (SQLite's
 * documentation; test/integration/db/synchronous.test.ts checks the setting, commit-sync.test.ts the
 * sync calls), which needs a virtual machine to test for real (docs/settings.md "Commit durability").
 */
describe('SIGKILL in the middle of 200 concurrent creates, 20 times (the service as a child process)', function () {
  // 21 starts of the service and 20 bursts: 11 minutes measured on a 2-core machine that other work
  // kept at a load average of 15; the bound leaves room for such a machine.
  this.timeout(1_800_000);
  const onMysql = TEST_DATABASE_URL.startsWith('mysql:') || TEST_DATABASE_URL.startsWith('mariadb:');
  let url: string;
  let folder: string | undefined;
  let closeMysql: (() => Promise<void>) | undefined;
  let authorization: string;
  let service: Service | undefined;
  // 200 creates at once queue for MySQL's 10 pooled connections, for long on a busy machine: the
  // waits are raised so that every create is answered 201 or cut by the kill, never refused for time.
  const ENV = () => ({ DATABASE_URL: url, DB_TIMEOUT: '120', REQUEST_TIMEOUT: '120' });
  /** An answer with the origin of this start (its port changes at each start) written as `ORIGIN`. */
  const portless = (running: Service, text: string) => JSON.parse(text.replaceAll(running.url, 'ORIGIN')) as Created;

  // Not in a before hook: the root hooks empty the test database before each test (test/hooks.ts).
  async function prepare(): Promise<void> {
    if (onMysql) {
      // The database server keeps running: this shows the service's own part (no 201 before the commit).
      const database = await serviceDatabase();
      url = database.url;
      authorization = await addUser(database.db, 'crash-editor');
      closeMysql = database.close;
    } else {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tec-crash-'));
      url = `sqlite:${path.join(folder, 'events.sqlite')}`;
      // The test keeps no connection open while the service runs: after each kill, the next opener
      // recovers the file from its write-ahead log as it would after a real crash.
      const { db } = openDatabase(url);
      await migrateLatest(db);
      authorization = await addUser(db, 'crash-editor');
      await db.destroy();
    }
  }
  after(async () => {
    killService(service);
    await closeMysql?.();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** One round: 200 creates at once; SIGKILL once `killAfter` of them have been answered 201. */
  async function killedRound(running: Service, round: number, killAfter: number): Promise<{ acknowledged: Created[]; unanswered: number }> {
    const acknowledged: Created[] = [];
    const refused: string[] = [];
    let unanswered = 0;
    const create = async (i: number) => {
      try {
        const res = await fetch(`${running.url}${NS}/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: authorization },
          body: JSON.stringify(event(round, i)),
        });
        const text = await res.text();
        if (res.status !== 201) {
          refused.push(`${res.status} ${text}`);
          return;
        }
        acknowledged.push(portless(running, text));
        if (acknowledged.length === killAfter) running.child.kill('SIGKILL');
      } catch {
        // The connection died with the process before a whole answer arrived: not acknowledged.
        unanswered++;
      }
    };
    await Promise.all(Array.from({ length: CREATES }, (_, i) => create(i)));
    // Never reached when fewer than `killAfter` creates succeeded: stop the process, then say why.
    if (acknowledged.length < killAfter) running.child.kill('SIGKILL');
    const { signal } = await running.exited;
    assert.deepEqual(refused.slice(0, 3), [], `round ${round}: every create answered before the kill is a 201 (${refused.length} were not)`);
    assert.equal(signal, 'SIGKILL', `round ${round}: the process was killed`);
    return { acknowledged, unanswered };
  }

  /** Every acknowledged create, read back through a restarted service, equals its 201 body. */
  async function checkKept(running: Service, acknowledged: Created[], round: number): Promise<void> {
    for (const created of acknowledged) {
      const res = await fetch(`${running.url}${NS}/events/${created.id}`, { headers: { Authorization: authorization } });
      assert.equal(res.status, 200, `round ${round}: the acknowledged event ${created.id} (${String(created.title)}) is there`);
      assert.deepEqual(stable(portless(running, await res.text())), stable(created), `round ${round}: event ${created.id} is whole`);
    }
  }

  async function checkIntegrity(round: number): Promise<void> {
    if (onMysql) return;
    const { db } = openDatabase(url);
    try {
      const rows = (await db.raw('PRAGMA integrity_check')) as Array<{ integrity_check: string }>;
      assert.deepEqual(
        rows.map((row) => row.integrity_check),
        ['ok'],
        `round ${round}: PRAGMA integrity_check`,
      );
    } finally {
      await db.destroy();
    }
  }

  it('keeps every acknowledged create, whole, and the file passes PRAGMA integrity_check', async () => {
    await prepare();
    const random = sequence(29);
    const everyId: number[] = [];
    const summary: string[] = [];
    let previous: Created[] = [];
    let cutMidway = 0;
    for (let round = 1; round <= ROUNDS + 1; round++) {
      // Each start after a kill is the restart: it recovers the database, then the creates the killed
      // process acknowledged are read back through it before its own burst.
      const running = await startService(ENV());
      service = running;
      await checkKept(running, previous, round - 1);
      if (round > ROUNDS) {
        running.child.kill('SIGTERM');
        await running.exited;
        break;
      }
      // Anywhere from early to late in the burst, so the kill finds different work under way.
      const killAfter = 10 + Math.floor(random() * 130);
      const { acknowledged, unanswered } = await killedRound(running, round, killAfter);
      service = undefined;
      assert.ok(acknowledged.length >= killAfter, `round ${round}: ${acknowledged.length} acknowledged before the kill, fewer than ${killAfter}`);
      // The kill is sent when the client has read the killAfter-th answer; a fast service may have
      // written out the rest of the burst by then (seen once in 20 rounds on Node 24). Such a round
      // still checks durability; the test only needs most rounds to cut the burst mid-way.
      if (unanswered > 0) cutMidway++;
      await checkIntegrity(round);
      everyId.push(...acknowledged.map((created) => created.id));
      summary.push(String(acknowledged.length));
      previous = acknowledged;
    }
    assert.ok(cutMidway >= ROUNDS * 0.75, `the kill cut the burst mid-way in only ${cutMidway} of ${ROUNDS} rounds`);
    // And at the end, every create acknowledged in any round is still there.
    const { db } = openDatabase(url);
    try {
      const kept = await db('posts').whereIn('id', everyId).andWhere('type', 'event').count({ n: '*' });
      assert.equal(Number(kept[0].n), everyId.length);
    } finally {
      await db.destroy();
    }
    process.stdout.write(`      creates acknowledged before each kill (of ${CREATES}): ${summary.join(', ')}; cut mid-way in ${cutMidway} of ${ROUNDS} rounds\n`);
  });
});
