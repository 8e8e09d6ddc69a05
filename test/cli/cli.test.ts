import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { projectRoot } from '../../src/openapi/document.js';
import { TEST_DATABASE_URL, openTestDatabase } from '../helpers/database.js';
import { UserRepository } from '../../src/repositories/users.js';

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
    assert.deepEqual(Object.keys(printed), ['id', 'login', 'role', 'email', 'secret']);
    assert.equal(printed.email, null);
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
    assert.deepEqual(
      list.map((u: { login: string; secrets: number }) => [u.login, u.secrets]),
      [['gina', 2]],
    );
    assert.match(cli(url, 'secret', 'revoke', 'gina').stdout, /revoked 1/);
    assert.match(cli(url, 'secret', 'revoke', 'gina', '--all').stdout, /revoked 1/);
    list = JSON.parse(cli(url, 'user', 'list', '--json').stdout);
    assert.equal(list[0].secrets, 0);
    assert.equal(cli(url, 'user', 'remove', 'gina').status, 0);
    assert.deepEqual(JSON.parse(cli(url, 'user', 'list', '--json').stdout), []);
    assert.equal(cli(url, 'user', 'remove', 'gina').status, 1);
  });

  it('records an e-mail address, and treats logins and addresses case-insensitively', async () => {
    const url = databaseUrl();
    const res = cli(url, 'user', 'add', 'Hana', '--role', 'author', '--secret', 'hana-secret-1', '--email', 'Hana@Example.org', '--json');
    assert.equal(res.status, 0, res.stderr);
    const printed = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(printed), ['id', 'login', 'role', 'email', 'secret']);
    assert.deepEqual([printed.login, printed.email], ['Hana', 'Hana@Example.org']);
    const sameLogin = cli(url, 'user', 'add', 'hANA', '--role', 'author');
    assert.equal(sameLogin.status, 1);
    assert.match(sameLogin.stderr, /login "Hana" already exists/);
    const sameEmail = cli(url, 'user', 'add', 'ivan', '--role', 'author', '--email', 'hana@EXAMPLE.org');
    assert.equal(sameEmail.status, 1);
    assert.match(sameEmail.stderr, /e-mail address .* already exists/);
    for (const bad of ['not-an-address', 'a b@example.org', `${'x'.repeat(95)}@example.org`]) {
      const invalid = cli(url, 'user', 'add', 'ivan', '--role', 'author', '--email', bad);
      assert.equal(invalid.status, 1, bad);
      assert.match(invalid.stderr, /is not an e-mail address/, bad);
    }
    assert.equal(cli(url, 'secret', 'add', 'HANA', '--secret', 'hana-secret-2').status, 0);
    const list = JSON.parse(cli(url, 'user', 'list', '--json').stdout);
    assert.deepEqual(
      list.map((u: { login: string; email: string; secrets: number }) => [u.login, u.email, u.secrets]),
      [['Hana', 'Hana@Example.org', 2]],
    );
    assert.match(cli(url, 'user', 'list').stdout, /Hana\tauthor\tHana@Example\.org\t2 secret/);
    if (!url.startsWith('sqlite:')) {
      const { db } = await openTestDatabase();
      assert.equal((await new UserRepository(db).authenticateLogin('hana@example.org', 'hana-secret-2'))?.login, 'Hana');
    }
    assert.equal(cli(url, 'user', 'remove', 'hana').status, 0);
    assert.deepEqual(JSON.parse(cli(url, 'user', 'list', '--json').stdout), []);
  });

  it('runs migrations on demand', () => {
    const url = databaseUrl();
    const res = cli(url, 'migrate');
    assert.equal(res.status, 0, res.stderr);
    assert.match(cli(url, 'migrate').stdout, /up to date/);
  });

  /** A failure told in one line on stderr, with status 1: no stack trace, no driver warnings. */
  function expectOneLineError(res: ReturnType<typeof cli>, message: RegExp): void {
    assert.equal(res.status, 1, res.stderr);
    assert.equal(res.stdout, '');
    const lines = res.stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, res.stderr);
    assert.match(lines[0], message);
  }

  it('says in one line that the database cannot be reached', async () => {
    // A port nothing listens on: taken from the system, then freed.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const res = cli(`mysql://someone:hidden-password@127.0.0.1:${port}/events`, 'user', 'list');
    expectOneLineError(res, new RegExp(`^error: cannot reach the database \\(mysql 127\\.0\\.0\\.1:${port}/events\\): connect ECONNREFUSED`));
    assert.doesNotMatch(res.stderr, /hidden-password/);
  });

  it('says in one line that a SQLite file cannot be opened', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cli-')), 'a-file');
    fs.writeFileSync(file, '');
    expectOneLineError(cli(`sqlite:${file}/events.sqlite`, 'user', 'list'), /^error: cannot open the database \(sqlite .*a-file\/events\.sqlite\): /);
  });

  (TEST_DATABASE_URL.startsWith('sqlite:') ? it.skip : it)('says in one line that a MySQL database does not exist (MySQL leg)', () => {
    const url = new URL(TEST_DATABASE_URL.replace(/^mariadb:/, 'mysql:'));
    url.pathname = '/tec_no_such_database';
    expectOneLineError(cli(url.toString(), 'user', 'list'), /^error: the database does not exist \(mysql .*\/tec_no_such_database\): create it first/);
  });
});
