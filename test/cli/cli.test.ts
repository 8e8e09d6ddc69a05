import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { projectRoot } from '../../src/openapi/document.js';
import { TEST_DATABASE_URL, openTestDatabase } from '../helpers/database.js';
import { UserRepository } from '../../src/auth/users.js';

/**
 * The command-line tool, run as a separate process the way users run it. On SQLite it gets a file
 * of its own (the test database lives in memory); on MySQL it shares the test database.
 */
function databaseUrl(): string {
  if (!TEST_DATABASE_URL.startsWith('sqlite:')) return TEST_DATABASE_URL;
  return `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cli-')), 'events.sqlite')}`;
}

function cli(url: string, ...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: projectRoot(),
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('command-line tool', function () {
  this.timeout(60_000);

  it('creates a user with a chosen secret and prints it as JSON', async () => {
    const url = databaseUrl();
    const res = cli(url, 'user', 'add', 'alice', '--role', 'editor', '--secret', 'alice-secret-1', '--json');
    assert.equal(res.status, 0, res.stderr);
    const printed = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(printed), ['id', 'login', 'role', 'secret']);
    assert.equal(printed.login, 'alice');
    assert.equal(printed.role, 'editor');
    assert.equal(printed.secret, 'alice-secret-1');
    if (!url.startsWith('sqlite:')) {
      const { db } = await openTestDatabase();
      assert.equal((await new UserRepository(db).authenticateLogin('alice', 'alice-secret-1'))?.login, 'alice');
    }
  });

  it('generates a long random secret when none is given, and never stores it in clear', async () => {
    const url = databaseUrl();
    const res = cli(url, 'user', 'add', 'bob', '--role', 'author', '--json');
    assert.equal(res.status, 0, res.stderr);
    const { secret } = JSON.parse(res.stdout);
    assert.match(secret, /^[A-Za-z0-9]{24}$/);
    const again = JSON.parse(cli(url, 'secret', 'add', 'bob', '--json').stdout).secret;
    assert.notEqual(again, secret);
    if (!url.startsWith('sqlite:')) {
      const { db } = await openTestDatabase();
      const stored = await db('secrets').pluck('hash');
      assert.ok(stored.every((hash: string) => /^[0-9a-f]{64}$/.test(hash) && hash !== secret));
    }
  });

  it('refuses a duplicate login, an unknown role and a short secret with a clear message', () => {
    const url = databaseUrl();
    assert.equal(cli(url, 'user', 'add', 'carol', '--role', 'subscriber').status, 0);
    const duplicate = cli(url, 'user', 'add', 'carol', '--role', 'subscriber');
    assert.equal(duplicate.status, 1);
    assert.match(duplicate.stderr, /already exists/);
    const role = cli(url, 'user', 'add', 'dave', '--role', 'wizard');
    assert.equal(role.status, 1);
    assert.match(role.stderr, /unknown role "wizard"/);
    const short = cli(url, 'user', 'add', 'erin', '--role', 'editor', '--secret', 'abc');
    assert.equal(short.status, 1);
    assert.match(short.stderr, /too short/);
    const usage = cli(url, 'user', 'add', 'frank');
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--role/);
  });

  it('lists, revokes secrets and removes users', () => {
    const url = databaseUrl();
    cli(url, 'user', 'add', 'gina', '--role', 'contributor', '--secret', 'gina-secret-1');
    cli(url, 'secret', 'add', 'gina', '--secret', 'gina-secret-2');
    let list = JSON.parse(cli(url, 'user', 'list', '--json').stdout);
    assert.deepEqual(list.map((u: { login: string; secrets: number }) => [u.login, u.secrets]), [['gina', 2]]);
    assert.match(cli(url, 'secret', 'revoke', 'gina').stdout, /revoked 1/);
    assert.match(cli(url, 'secret', 'revoke', 'gina', '--all').stdout, /revoked 1/);
    list = JSON.parse(cli(url, 'user', 'list', '--json').stdout);
    assert.equal(list[0].secrets, 0);
    assert.equal(cli(url, 'user', 'remove', 'gina').status, 0);
    assert.deepEqual(JSON.parse(cli(url, 'user', 'list', '--json').stdout), []);
    assert.equal(cli(url, 'user', 'remove', 'gina').status, 1);
  });

  it('runs migrations on demand', () => {
    const url = databaseUrl();
    const res = cli(url, 'migrate');
    assert.equal(res.status, 0, res.stderr);
    assert.match(cli(url, 'migrate').stdout, /up to date/);
  });
});
