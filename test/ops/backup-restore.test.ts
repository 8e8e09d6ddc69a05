import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { runCli } from '../helpers/cli.js';
import { NS } from '../helpers/app.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { addUser, killService, serviceDatabase, startService, type Service } from './service.js';

/**
 * Backup and restore (docs/durability.md): a copy taken while the service takes 50 writes per second
 * restores into a service whose records equal the source's at the copy's feed position; after the
 * restore the feed continues from there, a cursor the old database gave out after the copy answers
 * 410 (also once new writes have passed its position), cursors from before the copy keep working, and
 * idempotency keys recorded before the copy replay. On SQLite with `cli backup`/`cli restore`; on
 * MariaDB with the documented recipe (mariadb-dump --single-transaction, load, `cli restored`).
 */

type Rec = Record<string, any>;

const run = promisify(execFile);
const onMysql = /^(mysql|mariadb):/.test(TEST_DATABASE_URL);

function request(service: Service, auth: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${service.url}${NS}${route}`, {
    method,
    headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The position a cursor stands for (its first part, base 36: the tests know the format). */
const positionOf = (cursor: string) => parseInt(cursor.split('.')[0], 36);

/** Every change after `after` (all pages), and the last next_cursor. */
async function readFeed(service: Service, auth: string, after?: string): Promise<{ status: number; changes: Rec[]; next: string; body: Rec }> {
  const changes: Rec[] = [];
  let cursor = after;
  for (;;) {
    const res = await request(service, auth, 'GET', `/changes?per_page=100${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`);
    const body = (await res.json()) as Rec;
    if (res.status !== 200) return { status: res.status, changes, next: cursor ?? '', body };
    changes.push(...body.changes);
    cursor = body.next_cursor;
    if (!body.has_more) return { status: 200, changes, next: cursor!, body };
  }
}

/** A change as comparable across services: no cursor (its history differs) and no host:port. */
const comparable = (service: Service) => (change: Rec) => {
  const { cursor, ...rest } = change;
  void cursor;
  return JSON.stringify(rest).replaceAll(service.url, 'BASE');
};

/** Creates (events, venues, tags in turn) at `perSecond`, until stop(); every answer must be 201. */
function steadyWrites(service: Service, auth: string, tag: string, perSecond = 50) {
  const pending = new Set<Promise<void>>();
  const failures: string[] = [];
  let count = 0;
  let acknowledged = 0;
  const timer = setInterval(() => {
    const i = count++;
    const [route, body] = [
      ['/events', { title: `${tag} event ${i}`, start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 12:00:00', status: 'publish' }],
      ['/venues', { venue: `${tag} venue ${i}`, status: 'publish' }],
      ['/tags', { name: `${tag} tag ${i}` }],
    ][i % 3] as [string, unknown];
    const write = request(service, auth, 'POST', route, body).then(
      async (res) => {
        if (res.status !== 201) failures.push(`${route} ${res.status} ${await res.text()}`);
        else acknowledged++;
      },
      (err: unknown) => void failures.push(String(err)),
    );
    pending.add(write);
    void write.finally(() => pending.delete(write));
  }, 1000 / perSecond);
  return {
    /** Resolves once `n` more writes than now have been acknowledged (a loaded machine answers slower than 50/s). */
    async more(n: number): Promise<void> {
      const target = acknowledged + n;
      // A failure ends the wait too: stop() reports it.
      await waitFor(() => acknowledged >= target || failures.length > 0, `${n} more writes acknowledged`, 120_000, 20);
    },
    async stop(): Promise<number> {
      clearInterval(timer);
      await Promise.all(pending);
      assert.deepEqual(failures, []);
      return count;
    },
  };
}

/** What the source holds before the copy: one idempotent create and a cursor. */
async function beforeTheCopy(source: Service, auth: string) {
  const body = { title: 'Created once', start_date: '2030-06-01 10:00:00', end_date: '2030-06-01 11:00:00', status: 'publish' };
  const first = await request(source, auth, 'POST', '/events', body, { 'Idempotency-Key': 'before-the-copy' });
  assert.equal(first.status, 201);
  const created = (await first.json()) as Rec;
  const { next: before } = await readFeed(source, auth);
  return { body, created, before };
}

/**
 * The checks after a restore: the restored feed equals the source's up to the copy's position, a
 * cursor from before the copy continues, one from after it answers 410 even once new writes have
 * passed its position, the idempotent create replays, and the feed goes on in the new history.
 */
async function checkRestored(
  restoredService: Service,
  auth: string,
  copyPosition: number,
  source: { changes: Rec[]; head: string; before: string; url: string; idempotent: Rec },
  { committedAfterTheSnapshot = 0 } = {},
) {
  const sourceAtCopy = source.changes.filter((change) => positionOf(change.cursor) <= copyPosition);
  const restoredFeed = await readFeed(restoredService, auth);
  assert.ok(restoredFeed.changes.length > 40, `a copy taken mid-stream holds many changes (${restoredFeed.changes.length})`);
  const restored = restoredFeed.changes.map(comparable(restoredService));
  const expected = sourceAtCopy.map((change) => comparable({ url: source.url } as Service)(change));
  // A dump's documented limit (docs/durability.md): a write numbered before the snapshot but committed
  // after it is missing from the copy while later numbers are in it. Only such writes may be missing:
  // at most as many as were in flight, each a record the copy holds no version of; the rest is equal,
  // in order.
  const missing = sourceAtCopy.filter((_, i) => !restored.includes(expected[i]));
  assert.ok(missing.length <= committedAfterTheSnapshot, `missing from the copy: ${JSON.stringify(missing)}`);
  for (const change of missing) {
    assert.ok(!restoredFeed.changes.some((kept) => kept.type === change.type && kept.id === change.id), `the copy holds another version of ${change.type} ${change.id}`);
  }
  assert.deepEqual(
    restored,
    expected.filter((change) => restored.includes(change)),
  );
  // From before the copy: the changes after it, as the source had them up to the copy.
  const fromBefore = await readFeed(restoredService, auth, source.before);
  assert.equal(fromBefore.status, 200);
  assert.deepEqual(
    fromBefore.changes.map(comparable(restoredService)),
    sourceAtCopy
      .filter((change) => positionOf(change.cursor) > positionOf(source.before) && !missing.includes(change))
      .map((change) => comparable({ url: source.url } as Service)(change)),
  );
  // From after the copy: 410, not a silent gap, also once the restored feed has passed its position.
  assert.ok(positionOf(source.head) > copyPosition, 'the source went on writing after the copy');
  const gone = await readFeed(restoredService, auth, source.head);
  assert.equal(gone.status, 410, JSON.stringify(gone.body));
  assert.equal(gone.body.code, 'rest_cursor_expired');
  for (let i = 0; positionOf(restoredFeed.next) + i <= positionOf(source.head); i++) {
    assert.equal((await request(restoredService, auth, 'POST', '/tags', { name: `after the restore ${i}` })).status, 201);
  }
  assert.equal((await readFeed(restoredService, auth, source.head)).status, 410);
  // The idempotency key recorded before the copy replays its first answer.
  const replay = await request(restoredService, auth, 'POST', '/events', source.idempotent.body, { 'Idempotency-Key': 'before-the-copy' });
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(((await replay.json()) as Rec).id, source.idempotent.created.id);
  // The feed continues from the copy's position, in a new history whose cursors work.
  const continued = await readFeed(restoredService, auth, restoredFeed.next);
  assert.equal(continued.status, 200);
  assert.ok(continued.changes.length > 0 && continued.changes.every((change) => positionOf(change.cursor) > copyPosition));
  assert.notEqual(continued.next.split('.').length, 2, 'a cursor of the new history names it');
  assert.equal((await readFeed(restoredService, auth, continued.changes[0].cursor)).status, 200);
}

/** Writes under way, a copy taken meanwhile, more writes; returns what the source's feed held. */
async function copyUnderWrites(source: Service, auth: string, takeCopy: () => Promise<void>) {
  const idempotent = await beforeTheCopy(source, auth);
  const writes = steadyWrites(source, auth, 'Before');
  // At least a second and 40 acknowledged writes before the copy, and as much after it (the second
  // is the point, kept in issue 49: writes under way for a while, not only a count of them).
  await Promise.all([sleep(1000), writes.more(40)]);
  await takeCopy();
  await Promise.all([sleep(1000), writes.more(40)]);
  const written = await writes.stop();
  assert.ok(written >= 80, `${written} writes`);
  const feed = await readFeed(source, auth);
  return { changes: feed.changes, head: feed.next, before: idempotent.before, url: source.url, idempotent };
}

describe('backup and restore (docs/durability.md)', function () {
  this.timeout(240_000);
  let services: Service[] = [];
  afterEach(() => {
    for (const service of services) killService(service);
    services = [];
  });
  const start = async (env: Record<string, string>) => {
    const service = await startService(env);
    services.push(service);
    return service;
  };
  const stop = async (service: Service) => {
    service.child.kill('SIGTERM');
    assert.equal((await service.exited).code, 0);
  };

  describe('on SQLite: cli backup and cli restore', function () {
    let folder: string;
    let url: string;
    let auth: string;
    before(function () {
      if (onMysql) this.skip();
    });
    beforeEach(async () => {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tec-backup-'));
      url = `sqlite:${path.join(folder, 'events.sqlite')}`;
      const { db } = openDatabase(url);
      await migrateLatest(db);
      auth = await addUser(db, 'admin', 'administrator');
      await db.destroy();
    });
    afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

    it('copies under 50 writes per second; the restored service equals the source at the copy and the feed goes on', async () => {
      const copy = path.join(folder, 'copy.sqlite');
      const source = await start({ DATABASE_URL: url });
      let printed: Rec = {};
      const seen = await copyUnderWrites(source, auth, async () => {
        const res = await runCli(url, 'backup', copy, '--json');
        assert.equal(res.status, 0, res.stderr);
        printed = JSON.parse(res.stdout);
      });
      assert.deepEqual(Object.keys(printed.records), ['events', 'venues', 'organizers', 'categories', 'tags', 'users']);
      assert.ok(printed.records.events > 10 && printed.records.tags > 10, JSON.stringify(printed));
      // Restoring while the source runs is refused, and changes nothing.
      const refused = await runCli(url, 'restore', copy);
      assert.equal(refused.status, 2, refused.stderr);
      assert.match(refused.stderr, /a service is running on .*events\.sqlite .*stop it first/);
      assert.equal((await readFeed(source, auth)).next, seen.head);
      await stop(source);

      const restored = await runCli(url, 'restore', copy, '--json');
      assert.equal(restored.status, 0, restored.stderr);
      assert.equal(JSON.parse(restored.stdout).feed.position, printed.feed.position);
      assert.deepEqual(JSON.parse(restored.stdout).records, printed.records);
      for (const side of ['-wal', '-shm']) assert.ok(!fs.existsSync(`${url.slice('sqlite:'.length)}${side}`) || side === '-shm');
      const service = await start({ DATABASE_URL: url });
      await checkRestored(service, auth, printed.feed.position, seen);
      const counts = { events: 0, tags: 0 };
      // The lists agree: every record copied is there (events in the window of the copies', tags with no event).
      for (const [kind, query] of [
        ['events', 'start_date=2030-01-01&end_date=2030-12-31'],
        ['tags', 'hide_empty=false'],
      ] as const) {
        const res = await request(service, auth, 'GET', `/${kind}?per_page=1&${query}`);
        assert.equal(res.status, 200, await res.clone().text());
        counts[kind] = Number(res.headers.get('x-wp-total'));
      }
      assert.ok(counts.events >= printed.records.events && counts.tags > printed.records.tags, `${JSON.stringify(counts)} ${JSON.stringify(printed.records)}`);
    });

    it('refuses to overwrite a file without --force (exit 2), replaces it with --force', async () => {
      const copy = path.join(folder, 'copy.sqlite');
      fs.writeFileSync(copy, 'keep me');
      const refused = await runCli(url, 'backup', copy);
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /copy\.sqlite exists: pass --force to replace it/);
      assert.equal(fs.readFileSync(copy, 'utf8'), 'keep me');
      const forced = await runCli(url, 'backup', copy, '--force');
      assert.equal(forced.status, 0, forced.stderr);
      assert.match(forced.stdout, /^copied to .*copy\.sqlite \(\d+ bytes\): 0 events, 0 venues, 0 organizers, 0 categories, 0 tags, 1 users; change feed position \d+\n$/);
    });

    it('refuses to restore a file that is not a database of this service, and leaves the database alone', async () => {
      const other = path.join(folder, 'other.sqlite');
      const { db } = openDatabase(`sqlite:${other}`);
      await db.raw('CREATE TABLE t (x)');
      await db.destroy();
      const before = fs.readFileSync(url.slice('sqlite:'.length));
      const res = await runCli(url, 'restore', other);
      assert.equal(res.status, 2);
      assert.match(res.stderr, /is not a database of this service/);
      assert.deepEqual(fs.readFileSync(url.slice('sqlite:'.length)), before);
    });

    // Every kind of difference is shown in test/integration/db/schema-shape.test.ts; here the command's answer.
    it('refuses (exit 2, naming the copy) a copy whose schema is not what the migrations create, and leaves the database alone', async () => {
      const target = url.slice('sqlite:'.length);
      const before = fs.readFileSync(target);
      const hostile: Array<[string, string[], RegExp]> = [
        ['no-events.sqlite', ['DROP TABLE events'], /table events is missing/],
        [
          'trigger.sqlite',
          ["CREATE TRIGGER promote AFTER INSERT ON secrets BEGIN UPDATE users SET role = 'administrator' WHERE id = new.user_id; END"],
          /trigger promote is not ours/,
        ],
      ];
      for (const [name, statements, problem] of hostile) {
        const copy = path.join(folder, name);
        fs.copyFileSync(target, copy);
        const { db } = openDatabase(`sqlite:${copy}`);
        for (const statement of statements) await db.raw(statement);
        await db.destroy();
        const res = await runCli(url, 'restore', copy);
        assert.equal(res.status, 2, `${name}: ${res.stderr}`);
        assert.ok(res.stderr.includes(`${copy} does not have the schema the migrations create`), res.stderr);
        assert.match(res.stderr, problem);
      }
      const text = path.join(folder, 'text.sqlite');
      fs.writeFileSync(text, 'not a database at all, but long enough to be read as one by SQLite');
      const res = await runCli(url, 'restore', text);
      assert.equal(res.status, 2, res.stderr);
      assert.ok(res.stderr.includes(`${text} is not a database`), res.stderr);
      assert.doesNotMatch(res.stderr, /events\.sqlite/, 'the copy is named, not the target');
      assert.deepEqual(fs.readFileSync(target), before);
    });
  });

  describe('on MariaDB: the recipe of docs/durability.md', function () {
    before(function () {
      if (!onMysql) this.skip();
      if (spawnSync('mariadb-dump', ['--version']).status !== 0) {
        if (process.env.REQUIRE_SDK === '1') throw new Error('mariadb-dump is missing');
        this.skip();
      }
    });

    it('a dump under 50 writes per second, loaded into another database and marked restored, equals the source at its position', async () => {
      const { db, url, close } = await serviceDatabase();
      const auth = await addUser(db, 'admin', 'administrator');
      const target = new URL(url.replace(/^mariadb:/, 'mysql:'));
      const sourceName = target.pathname.slice(1);
      const restoredName = `${sourceName}_restored`;
      const client = ['-h', target.hostname, '-P', target.port || '3306', '-u', decodeURIComponent(target.username)];
      if (target.password) client.push(`--password=${decodeURIComponent(target.password)}`);
      const dump = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tec-dump-')), 'dump.sql');
      const source = await start({ DATABASE_URL: url });
      const seen = await copyUnderWrites(source, auth, async () => {
        await run('sh', ['-c', `mariadb-dump --single-transaction --routines --triggers --events "$@" ${sourceName} > ${dump}`, 'sh', ...client]);
      });
      await stop(source);
      await run('mariadb', [...client, '-e', `DROP DATABASE IF EXISTS ${restoredName}; CREATE DATABASE ${restoredName} CHARACTER SET utf8mb4`]);
      await run('sh', ['-c', `mariadb "$@" ${restoredName} < ${dump}`, 'sh', ...client]);
      target.pathname = `/${restoredName}`;
      const marked = await runCli(target.toString(), 'restored', '--json');
      assert.equal(marked.status, 0, marked.stderr);
      const position = JSON.parse(marked.stdout).feed.position as number;
      const service = await start({ DATABASE_URL: target.toString() });
      // Writes in flight when the dump's snapshot began: at 50 per second, a handful at most.
      await checkRestored(service, auth, position, seen, { committedAfterTheSnapshot: 10 });
      await stop(service);
      // A dump that brings code of its own (the recipe loads triggers, routines and events) is refused.
      await run('mariadb', [...client, restoredName, '-e', 'CREATE TRIGGER promote BEFORE INSERT ON secrets FOR EACH ROW SET @promoted = 1']);
      const refused = await runCli(target.toString(), 'restored');
      assert.equal(refused.status, 2, refused.stderr);
      assert.ok(refused.stderr.includes(`${restoredName} holds code the migrations do not create: trigger promote`), refused.stderr);
      await run('mariadb', [...client, '-e', `DROP DATABASE ${restoredName}`]);
      await close();
    });

    it('backup and restore refuse on MySQL and point to the recipe', async () => {
      for (const args of [
        ['backup', '/tmp/never.sqlite'],
        ['restore', '/tmp/never.sqlite'],
      ]) {
        const res = await runCli(TEST_DATABASE_URL, ...args);
        assert.equal(res.status, 2);
        assert.match(res.stderr, /MySQL\/MariaDB: use the recipe in docs\/durability\.md "MySQL and MariaDB"/);
      }
    });
  });
});
