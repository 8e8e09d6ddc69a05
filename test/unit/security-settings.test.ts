import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/core/config.js';

/** The settings that harden the service: wrong-password throttling, allowed hosts, CORS origins, reply size. */
describe('security settings', () => {
  it('throttle wrong record passwords like failed logins by default (20 per 15 minutes)', () => {
    const config = loadConfig({});
    assert.equal(config.passwordFailureLimit, 20);
    assert.equal(config.passwordFailureWindowSeconds, 900);
    const set = loadConfig({ PASSWORD_FAILURE_LIMIT: '5', PASSWORD_FAILURE_WINDOW: '60' });
    assert.deepEqual([set.passwordFailureLimit, set.passwordFailureWindowSeconds], [5, 60]);
    for (const [name, value] of [
      ['PASSWORD_FAILURE_LIMIT', '0'],
      ['PASSWORD_FAILURE_WINDOW', 'soon'],
    ]) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => err instanceof ConfigError && err.message.includes(name),
        name,
      );
    }
  });

  it('read ALLOWED_HOSTS as host names or host:port pairs, and refuse malformed entries', () => {
    assert.equal(loadConfig({}).allowedHosts, undefined);
    assert.deepEqual(loadConfig({ ALLOWED_HOSTS: 'api.example.org, LOCALHOST:8080,[::1]' }).allowedHosts, [
      { host: 'api.example.org', port: undefined },
      { host: 'localhost', port: 8080 },
      { host: '[::1]', port: undefined },
    ]);
    for (const bad of ['a b', 'x:99999', 'https://api.example.org', 'a,,b']) {
      assert.throws(
        () => loadConfig({ ALLOWED_HOSTS: bad }),
        (err: Error) => err instanceof ConfigError && err.message.includes('ALLOWED_HOSTS'),
        bad,
      );
    }
  });

  it('cap replies at 8 MB unless REPLY_LIMIT says otherwise', () => {
    assert.equal(loadConfig({}).replyLimit, 8 * 1024 * 1024);
    assert.equal(loadConfig({ REPLY_LIMIT: '512kb' }).replyLimit, 512 * 1024);
    assert.equal(loadConfig({ REPLY_LIMIT: '2MB' }).replyLimit, 2 * 1024 * 1024);
    assert.equal(loadConfig({ REPLY_LIMIT: '1048576' }).replyLimit, 1024 * 1024);
    for (const bad of ['lots', '0', '100b', '-1mb']) {
      assert.throws(
        () => loadConfig({ REPLY_LIMIT: bad }),
        (err: Error) => err instanceof ConfigError && err.message.includes('REPLY_LIMIT'),
        bad,
      );
    }
  });

  it('read CORS_ORIGINS as origins, normalised as browsers send them, and refuse anything else', () => {
    assert.equal(loadConfig({}).corsOrigins, undefined);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://App.Example.org/, http://localhost:3000,https://x.example:443' }).corsOrigins, [
      'https://app.example.org',
      'http://localhost:3000',
      'https://x.example',
    ]);
    for (const bad of ['app.example.org', 'https://app.example.org/path', 'ftp://x.example', 'https://x.example/?q', '*', 'https:x.example']) {
      assert.throws(
        () => loadConfig({ CORS_ORIGINS: bad }),
        (err: Error) => err instanceof ConfigError && err.message.includes('CORS_ORIGINS'),
        bad,
      );
    }
  });
});
