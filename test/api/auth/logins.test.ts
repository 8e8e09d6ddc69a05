import assert from 'node:assert/strict';
import { UserRepository } from '../../../src/repositories/users.js';
import { MIGRATION_TOOLS } from '../../../src/db/migrate.js';
import { up as fillLoginKeys } from '../../../src/db/migrations/20261123000012_fill_users_login_key.js';
import { NS, testApp, type TestApp } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';
import { openTestDatabase } from '../../helpers/database.js';

/**
 * Logins as WordPress treats them: case-insensitive, or the user's e-mail address, with the
 * application password in its plain or grouped (`abcd efgh ...`) form.
 */
describe('logins: any case, e-mail addresses, grouped application passwords', () => {
  let http: TestApp['http'];
  let users: UserRepository;

  beforeEach(async () => {
    ({ http } = await testApp());
    users = new UserRepository((await openTestDatabase()).db);
  });

  /** A write only an editor may make: 201 proves who the credentials named. */
  const writeAs = (login: string, secret: string, name: string) => http().post(`${NS}/tags`).auth(login, secret).send({ name });
  const grouped = (secret: string) => secret.replace(/(.{4})(?!$)/g, '$1 ');

  it('accepts the login in any case', async () => {
    await users.add('Editor.One', 'editor', 'editor-secret-1');
    for (const [i, login] of ['Editor.One', 'editor.one', 'EDITOR.ONE', 'eDiToR.oNe'].entries()) {
      expectStatus(await writeAs(login, 'editor-secret-1', `Tag ${i}`), 201);
    }
    expectError(await writeAs('Editor.Two', 'editor-secret-1', 'x'), 401, 'rest_invalid_credentials');
  });

  it('accepts the e-mail address of a user who has one, in any case, with a plain or grouped secret', async () => {
    const { secret } = await users.add('ann', 'editor', undefined, 'Ann.Lee@Example.org');
    for (const [i, login] of ['Ann.Lee@Example.org', 'ann.lee@example.org', 'ANN.LEE@EXAMPLE.ORG'].entries()) {
      expectStatus(await writeAs(login, secret, `Plain ${i}`), 201);
      expectStatus(await writeAs(login, grouped(secret), `Grouped ${i}`), 201);
    }
    expectStatus(await writeAs('ANN', grouped(secret), 'Login grouped'), 201);
    expectError(await writeAs('ann.lee@example.org', 'wrong-secret-123', 'x'), 401, 'rest_invalid_credentials');
    expectError(await writeAs('someone@example.org', secret, 'x'), 401, 'rest_invalid_credentials');
  });

  it('answers 401 alike whether the address is unknown or the secret wrong', async () => {
    const { secret } = await users.add('ann', 'editor', undefined, 'ann@example.org');
    await users.add('bob', 'editor', 'bob-secret-12');
    const unknown = await writeAs('nobody@example.org', secret, 'x');
    const wrong = await writeAs('ann@example.org', 'bob-secret-12', 'x');
    const noAddress = await writeAs('bob@example.org', 'bob-secret-12', 'x');
    for (const res of [unknown, wrong, noAddress]) expectError(res, 401, 'rest_invalid_credentials');
    assert.deepEqual(wrong.body, unknown.body);
    assert.deepEqual(noAddress.body, unknown.body);
  });

  it('prefers a login to another user\u2019s e-mail address, as WordPress does', async () => {
    await users.add('carol@example.org', 'subscriber', 'carol-secret-1');
    await users.add('dave', 'editor', 'dave-secret-12', 'carol@example.org');
    expectError(await writeAs('carol@example.org', 'dave-secret-12', 'x'), 401, 'rest_invalid_credentials');
    expectError(await writeAs('carol@example.org', 'carol-secret-1', 'x'), 403, 'rest_forbidden');
    expectStatus(await writeAs('dave', 'dave-secret-12', 'Dave'), 201);
  });

  it('names nobody by a login two older users share in different cases, unless typed exactly', async () => {
    const { db } = await openTestDatabase();
    // Logins that differ only in case could be created before logins became case-insensitive.
    await users.add('erin', 'editor', 'erin-secret-12');
    const [id] = await db('users').insert({ login: 'Erin', login_key: 'erin', role: 'editor', created_at: '2026-01-01 00:00:00' });
    await users.addSecret('Erin', 'other-secret-1');
    assert.equal((await users.findByLogin('Erin'))?.id, Number(id));
    expectStatus(await writeAs('erin', 'erin-secret-12', 'Exact lower'), 201);
    expectStatus(await writeAs('Erin', 'other-secret-1', 'Exact upper'), 201);
    expectError(await writeAs('ERIN', 'erin-secret-12', 'x'), 401, 'rest_invalid_credentials');
  });

  it('fills the login key of users created before it existed', async () => {
    const { db } = await openTestDatabase();
    await db('users').insert({ login: 'Old.User', role: 'editor', created_at: '2026-01-01 00:00:00' });
    await users.addSecret('Old.User', 'old-user-secret-1');
    expectError(await writeAs('old.user', 'old-user-secret-1', 'x'), 401, 'rest_invalid_credentials');
    await fillLoginKeys(db, MIGRATION_TOOLS);
    assert.equal((await db('users').where('login', 'Old.User').first('login_key')).login_key, 'old.user');
    expectStatus(await writeAs('old.user', 'old-user-secret-1', 'Old'), 201);
  });
});
