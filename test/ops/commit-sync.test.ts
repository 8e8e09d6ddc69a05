import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { NS } from '../helpers/app.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { addUser, killService, startService, type Service } from './service.js';

const CREATES = 20;

/** Why strace cannot watch a process here (not installed, or tracing not allowed), or undefined. */
function straceMissing(): string | undefined {
  const probe = spawnSync('strace', ['-f', '-e', 'trace=none', 'true'], { encoding: 'utf8' });
  if (probe.error) return `strace is not installed (${probe.error.message})`;
  if (probe.status !== 0) return `strace cannot trace here: ${probe.stderr.trim()}`;
  return undefined;
}

/** Syncs of the write-ahead log in strace's output so far (`-y` names each descriptor's file). */
function walSyncs(traceFile: string): number {
  const text = fs.existsSync(traceFile) ? fs.readFileSync(traceFile, 'utf8') : '';
  return text.split('\n').filter((line) => /\b(fsync|fdatasync)\(\d+<[^>]*events\.sqlite-wal>\)/.test(line)).length;
}

/**
 * The machine-crash half of "durable by default" that a SIGKILL cannot show (crash.test.ts): the
 * real service, under strace, syncs SQLite's write-ahead log to the disk at each commit of a create
 * before answering it, and does not with SQLITE_SYNCHRONOUS=normal. This checks the whole path, from
 * the setting to the system call; the guarantee that a synced log survives a power cut is the disk's
 * and the operating system's (docs/settings.md "Commit durability").
 */
describe('each acknowledged create is synced to the disk first (the service under strace)', function () {
  this.timeout(120_000);
  let folder: string;
  let service: Service | undefined;

  before(function () {
    if (TEST_DATABASE_URL.startsWith('mysql:') || TEST_DATABASE_URL.startsWith('mariadb:')) this.skip();
    const missing = straceMissing();
    if (missing) {
      process.stdout.write(`      skipped: ${missing}\n`);
      this.skip();
    }
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tec-commit-sync-'));
  });
  afterEach(() => killService(service));
  after(() => folder && fs.rmSync(folder, { recursive: true, force: true }));

  /** Syncs of the log while the service answers CREATES creates one after another. */
  async function syncsDuringCreates(level: 'full' | 'normal'): Promise<number> {
    const file = path.join(folder, level, 'events.sqlite');
    fs.mkdirSync(path.dirname(file));
    const { db } = openDatabase(`sqlite:${file}`);
    await migrateLatest(db);
    const authorization = await addUser(db, 'sync-editor');
    await db.destroy();
    const traceFile = path.join(folder, `${level}.strace`);
    // --seccomp-bpf stops the process only at the two calls watched, so the service runs at speed.
    const wrapper = ['strace', '-f', '-y', '--seccomp-bpf', '-e', 'trace=fsync,fdatasync', '-o', traceFile];
    const running = await startService({ DATABASE_URL: `sqlite:${file}`, SQLITE_SYNCHRONOUS: level }, { wrapper });
    service = running;
    const before = walSyncs(traceFile);
    for (let i = 0; i < CREATES; i++) {
      const res: Response = await fetch(`${running.url}${NS}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: authorization },
        body: JSON.stringify({ title: `Synced ${i}`, start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00', status: 'publish' }),
      });
      assert.equal(res.status, 201, await res.text());
    }
    const during = walSyncs(traceFile) - before;
    // The service's own process (strace's child) stops on SIGTERM; strace then ends with it.
    process.kill(Number(running.logs().find((line) => typeof line.pid === 'number')?.pid), 'SIGTERM');
    await running.exited;
    service = undefined;
    return during;
  }

  it(`syncs the log at every commit by default (SQLITE_SYNCHRONOUS=full), not with normal`, async () => {
    const full = await syncsDuringCreates('full');
    const normal = await syncsDuringCreates('normal');
    process.stdout.write(`      syncs of the log during ${CREATES} creates: full ${full}, normal ${normal}\n`);
    assert.ok(full >= CREATES, `full: ${full} syncs for ${CREATES} commits`);
    assert.ok(normal < CREATES / 2, `normal: ${normal} syncs for ${CREATES} commits`);
  });
});
