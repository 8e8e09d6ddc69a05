import assert from 'node:assert/strict';
import type { Config } from '../../../src/core/config.js';
import { testApp, NS, createUser, type TestUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';

/**
 * The failed-login throttle through HTTP: per client address and login, a looser ceiling per address,
 * and TRUST_PROXY deciding whether X-Forwarded-For names the client. Every test builds its own app
 * (testApp with a clock is never cached), so no counter carries over from another test.
 */
async function freshApp(overrides: Partial<Config>) {
  return testApp(overrides, () => new Date());
}

/** Basic credentials for a login with a wrong secret. */
function wrong(login: string): string {
  return `Basic ${Buffer.from(`${login}:not-the-secret`).toString('base64')}`;
}

function bearer(user: TestUser): string {
  return `Bearer ${user.secret}`;
}

describe('failed-login throttle', () => {
  const TAGS = `${NS}/tags`;

  it('locks a login at one address after its failures, never other logins there nor that login elsewhere', async () => {
    const { http } = await freshApp({ authFailureLimit: 3, authFailureAddressLimit: 100, trustProxy: ['loopback'] });
    const editor = await createUser('editor');
    const author = await createUser('author');
    const from = (address: string, authorization: string) => http().get(TAGS).set('X-Forwarded-For', address).set('Authorization', authorization);

    for (let i = 0; i < 3; i++) expectError(await from('203.0.113.1', wrong('editor')), 401, 'rest_invalid_credentials');
    // The pair is locked: even the right secret waits (it cannot be told from a lucky guess).
    const locked = await from('203.0.113.1', editor.authorization);
    expectError(locked, 429, 'rest_too_many_requests');
    const retryAfter = Number(locked.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${locked.headers['retry-after']}`);
    // Logins are matched without regard to case, so another spelling is the same pair.
    expectError(await from('203.0.113.1', wrong('EDITOR')), 429, 'rest_too_many_requests');
    // Someone else at that address, and the same login from another address, are not affected.
    expectStatus(await from('203.0.113.1', author.authorization), 200);
    expectStatus(await from('203.0.113.2', editor.authorization), 200);
    // Requests without credentials are never counted or refused.
    expectStatus(await http().get(TAGS).set('X-Forwarded-For', '203.0.113.1'), 200);
  });

  it('refuses logins new to an address past its ceiling, but not logins that authenticated there', async () => {
    const { http } = await freshApp({ authFailureLimit: 3, authFailureAddressLimit: 5, trustProxy: ['loopback'] });
    const editor = await createUser('editor');
    const author = await createUser('author');
    const from = (address: string, authorization: string) => http().get(TAGS).set('X-Forwarded-For', address).set('Authorization', authorization);

    expectStatus(await from('198.51.100.7', editor.authorization), 200);
    // One wrong secret on each of five logins: no login reaches its own limit, the address does.
    for (let i = 0; i < 5; i++) expectError(await from('198.51.100.7', wrong(`user${i}`)), 401, 'rest_invalid_credentials');
    expectError(await from('198.51.100.7', wrong('user9')), 429, 'rest_too_many_requests');
    const refused = await from('198.51.100.7', author.authorization);
    expectError(refused, 429, 'rest_too_many_requests');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // The editor authenticated from there before: still served, and still under its own limit.
    expectStatus(await from('198.51.100.7', editor.authorization), 200);
    for (let i = 0; i < 3; i++) expectError(await from('198.51.100.7', wrong('editor')), 401, 'rest_invalid_credentials');
    expectError(await from('198.51.100.7', editor.authorization), 429, 'rest_too_many_requests');
    // Other addresses are not affected.
    expectStatus(await from('198.51.100.8', author.authorization), 200);
  });

  it('counts bearer secrets, which name no login, against the address only', async () => {
    const { http } = await freshApp({ authFailureLimit: 2, authFailureAddressLimit: 4, trustProxy: ['loopback'] });
    const editor = await createUser('editor');
    const author = await createUser('author');
    const from = (address: string, authorization: string) => http().get(TAGS).set('X-Forwarded-For', address).set('Authorization', authorization);

    for (let i = 0; i < 3; i++) expectError(await from('192.0.2.10', 'Bearer wrong-secret-0123456789'), 401, 'rest_invalid_credentials');
    // Three bearer failures are more than the per-login limit, yet lock no login.
    expectStatus(await from('192.0.2.10', bearer(editor)), 200);
    expectStatus(await from('192.0.2.10', editor.authorization), 200);
    // A malformed header counts against the address too; that reaches the ceiling of 4.
    expectError(await from('192.0.2.10', 'Digest nonsense'), 401, 'rest_invalid_credentials');
    expectError(await from('192.0.2.10', bearer(author)), 429, 'rest_too_many_requests');
    expectError(await from('192.0.2.10', author.authorization), 429, 'rest_too_many_requests');
    // The editor's login authenticated there within the window.
    expectStatus(await from('192.0.2.10', editor.authorization), 200);
    expectStatus(await from('192.0.2.11', bearer(author)), 200);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY trusts the peer, so a client cannot choose its address', async () => {
    for (const trustProxy of [false, ['10.9.9.9']] as Config['trustProxy'][]) {
      const { http } = await freshApp({ authFailureLimit: 3, authFailureAddressLimit: 100, trustProxy });
      const editor = await createUser('editor', `editor${trustProxy ? 'b' : 'a'}`);
      for (let i = 0; i < 3; i++) {
        expectError(
          await http()
            .get(TAGS)
            .set('X-Forwarded-For', `203.0.113.${i + 20}`)
            .set('Authorization', wrong(editor.login)),
          401,
          'rest_invalid_credentials',
        );
      }
      // Every attempt came from the test's own loopback peer, whatever the header claimed.
      expectError(await http().get(TAGS).set('X-Forwarded-For', '203.0.113.99').set('Authorization', editor.authorization), 429, 'rest_too_many_requests');
    }
  });

  it('takes the address the trusted proxy saw, not what the client wrote before it', async () => {
    // One trusted hop: the right-most X-Forwarded-For entry, added by that proxy, is the client.
    const { http } = await freshApp({ authFailureLimit: 3, authFailureAddressLimit: 100, trustProxy: 1 });
    const editor = await createUser('editor');
    for (let i = 0; i < 3; i++) {
      expectError(await http().get(TAGS).set('X-Forwarded-For', `198.18.0.${i}, 203.0.113.50`).set('Authorization', wrong('editor')), 401, 'rest_invalid_credentials');
    }
    expectError(await http().get(TAGS).set('X-Forwarded-For', '198.18.0.77, 203.0.113.50').set('Authorization', editor.authorization), 429, 'rest_too_many_requests');
    expectStatus(await http().get(TAGS).set('X-Forwarded-For', '203.0.113.51').set('Authorization', editor.authorization), 200);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    const { http } = await freshApp({ authFailureLimit: 3, authFailureAddressLimit: 100, trustProxy: ['loopback'] });
    const editor = await createUser('editor');
    for (let i = 1; i <= 3; i++) {
      expectError(await http().get(TAGS).set('X-Forwarded-For', `2001:db8:0:7::${i}`).set('Authorization', wrong('editor')), 401, 'rest_invalid_credentials');
    }
    expectError(await http().get(TAGS).set('X-Forwarded-For', '2001:db8:0:7:ffff::9').set('Authorization', editor.authorization), 429, 'rest_too_many_requests');
    expectStatus(await http().get(TAGS).set('X-Forwarded-For', '2001:db8:0:8::1').set('Authorization', editor.authorization), 200);
  });

  it('never refuses concurrent requests with good credentials while someone else fails at the same address', async () => {
    const { http } = await freshApp({ authFailureLimit: 2, authFailureAddressLimit: 10, trustProxy: ['loopback'] });
    const editor = await createUser('editor');
    const from = (authorization: string) => http().get(TAGS).set('X-Forwarded-For', '203.0.113.200').set('Authorization', authorization);
    expectStatus(await from(editor.authorization), 200);
    // Someone at the same address fails more often than the address ceiling while the editor works.
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => from(editor.authorization)),
      ...Array.from({ length: 12 }, (_, i) => from(wrong(i % 2 ? 'mallory' : `mallory${i}`))),
    ]);
    assert.deepEqual(
      answers.slice(0, 20).map((res) => res.status),
      Array(20).fill(200),
    );
    for (const res of answers.slice(20)) assert.ok([401, 429].includes(res.status), `${res.status}`);
    expectError(await from(wrong('mallory')), 429, 'rest_too_many_requests');
    expectStatus(await from(editor.authorization), 200);
  });

  it('reads the scheme from X-Forwarded-Proto only behind a trusted proxy', async () => {
    const trusted = await freshApp({ trustProxy: ['loopback'] });
    const untrusted = await freshApp({ trustProxy: false });
    const viaTrusted = await trusted.http().get(TAGS).set('X-Forwarded-Proto', 'https');
    const viaUntrusted = await untrusted.http().get(TAGS).set('X-Forwarded-Proto', 'https');
    assert.match(viaTrusted.body.rest_url ?? viaTrusted.headers.link, /https:\/\//);
    assert.doesNotMatch(viaUntrusted.body.rest_url ?? viaUntrusted.headers.link, /https:\/\//);
  });
});
