import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { UserError } from '../../../src/repositories/users.js';
import { createEvent, database, reads } from './fixtures.js';

describe('UserRepository', () => {
  it('add creates a user with a first secret; find by login and by id', async () => {
    const db = await database();
    const users = reads(db).users;
    const { user, secret, secretId } = await users.add('ann.lee@example', 'editor');
    assert.deepEqual(user, { id: user.id, login: 'ann.lee@example', role: 'editor' });
    assert.match(secret, /^[A-Za-z0-9]{24}$/, 'a generated secret');
    assert.ok(Number.isSafeInteger(secretId) && secretId > 0);
    assert.deepEqual(await users.findByLogin('ann.lee@example'), user);
    assert.deepEqual(await users.findById(user.id), user);
    assert.deepEqual(await users.findByLogin('ANN.LEE@example'), user, 'logins are found in any case');
    assert.equal(await users.findByLogin('ann.lee'), undefined);
    assert.equal(await users.findById(user.id + 1), undefined);
    // Only the SHA-256 of the secret is stored.
    assert.deepEqual((await db('secrets').pluck('hash')).map(String), [crypto.createHash('sha256').update(secret).digest('hex')]);
  });

  it('add refuses a bad login, an unknown role, a short secret and a login in use', async () => {
    const db = await database();
    const users = reads(db).users;
    await users.add('taken', 'author', 'chosen secret 1');
    await assert.rejects(users.add('with space', 'author'), UserError);
    await assert.rejects(users.add('x'.repeat(61), 'author'), UserError);
    await assert.rejects(users.add('new', 'owner'), /unknown role "owner"/);
    await assert.rejects(users.add('new', 'author', 'short  1'), /too short/);
    await assert.rejects(users.add('taken', 'editor'), /already exists/);
    await assert.rejects(users.add('TAKEN', 'editor'), /already exists/, 'logins are unique in any case');
    await assert.rejects(users.add('new', 'editor', undefined, 'not an address'), /is not an e-mail address/);
    assert.deepEqual(
      (await users.list()).map(({ login, role, secrets }) => [login, role, secrets]),
      [['taken', 'author', 1]],
    );
  });

  it('authenticates a secret alone (Bearer) or with its login (Basic)', async () => {
    const db = await database();
    const users = reads(db).users;
    const ann = await users.add('ann', 'author');
    const bob = await users.add('bob', 'contributor', 'abcd efgh ijkl');
    assert.deepEqual(await users.authenticateSecret(ann.secret), ann.user);
    assert.deepEqual(await users.authenticateSecret('abcdefghijkl'), bob.user, 'spaces do not count');
    assert.deepEqual(await users.authenticateLogin('bob', 'abcd efgh ijkl'), bob.user);
    assert.equal(await users.authenticateLogin('ann', bob.secret), undefined, 'another user’s secret');
    assert.equal(await users.authenticateLogin('nobody', ann.secret), undefined);
    assert.equal(await users.authenticateSecret(`${ann.secret}x`), undefined);
  });

  it('finds a user by the exact login first, then the login in any case, then the e-mail address', async () => {
    const db = await database();
    const users = reads(db).users;
    const ann = await users.add('ann', 'author', 'ann secret 1', 'Ann@Example.org');
    const upper = await users.add('Bob', 'editor', 'bob secret 1');
    const named = await users.add('ann@example.org', 'contributor', 'named secret 1');
    assert.deepEqual(await users.findByLogin('ANN'), ann.user);
    assert.deepEqual(await users.findByLogin('bob'), upper.user);
    assert.deepEqual(await users.findByLogin('ann@example.org'), named.user, 'a login that is an address wins over an e-mail');
    assert.deepEqual(await users.authenticateLogin('ANN@EXAMPLE.ORG', 'named secret 1'), named.user);
    assert.equal(await users.authenticateLogin('ANN@EXAMPLE.ORG', 'ann secret 1'), undefined);
    await assert.rejects(users.add('carol', 'author', undefined, 'ann@EXAMPLE.org'), /e-mail address "ann@EXAMPLE.org" already exists/);
    await users.remove('ann@example.org');
    assert.deepEqual(await users.findByLogin('ANN@EXAMPLE.ORG'), ann.user, 'then by e-mail address');
    assert.deepEqual(await users.authenticateLogin('ann@example.org', 'ann secret 1'), ann.user);
  });

  it('a secret two users chose identifies neither as a Bearer token, each with their login', async () => {
    const db = await database();
    const users = reads(db).users;
    const ann = await users.add('ann', 'author', 'same secret 123');
    const bob = await users.add('bob', 'editor', 'same secret 123');
    assert.equal(await users.authenticateSecret('same secret 123'), undefined);
    assert.deepEqual(await users.authenticateLogin('ann', 'same secret 123'), ann.user);
    assert.deepEqual(await users.authenticateLogin('bob', 'same secret 123'), bob.user);
  });

  it('every secret of a user works until revoked; revoking takes the newest, or all', async () => {
    const db = await database();
    const users = reads(db).users;
    const { user, secret: first } = await users.add('ann', 'author');
    const { secret: second } = await users.addSecret('ann');
    const { secret: third } = await users.addSecret('ann', 'my third secret');
    for (const secret of [first, second, third]) assert.deepEqual(await users.authenticateLogin('ann', secret), user);
    assert.equal(await users.revokeSecrets('ann', false), 1);
    assert.deepEqual([await users.authenticateSecret(first), await users.authenticateSecret(second), await users.authenticateSecret(third)], [user, user, undefined]);
    assert.equal(await users.revokeSecrets('ann', true), 2);
    assert.equal(await users.authenticateSecret(first), undefined);
    await assert.rejects(users.revokeSecrets('ann', false), /has no secret/);
    await assert.rejects(users.addSecret('nobody'), /no user with the login "nobody"/);
  });

  it('removing a user keeps their events, without an author', async () => {
    const db = await database();
    const users = reads(db).users;
    const { user } = await users.add('ann', 'author');
    const event = await createEvent(db, { author_id: user.id });
    await users.remove('ann');
    assert.equal(await users.findByLogin('ann'), undefined);
    assert.deepEqual(await db('secrets').select('id'), []);
    assert.equal((await reads(db).posts.find(event))?.authorId, null);
    await assert.rejects(users.remove('ann'), UserError);
  });
});
