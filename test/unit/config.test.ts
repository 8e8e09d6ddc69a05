import assert from 'node:assert/strict';
import { ConfigError, isValidTimezone, loadConfig, servesPages } from '../../src/core/config.js';

describe('configuration', () => {
  it('runs on a fresh machine with no settings', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.databaseUrl, 'sqlite:data/events.sqlite');
    assert.equal(config.basePath, '/wp-json');
    assert.equal(config.siteTimezone, 'UTC');
    assert.equal(config.publicUrl, undefined);
    assert.equal(config.validateResponses, false);
  });

  it('reads the webhook delivery settings: the delivery log bounds and the thread', () => {
    const defaults = loadConfig({}).webhooks;
    assert.deepEqual([defaults.logMaxRows, defaults.logDays, defaults.thread, defaults.concurrency], [1000, 30, true, 8]);
    const set = loadConfig({ WEBHOOK_LOG_MAX: '50', WEBHOOK_LOG_DAYS: '7', WEBHOOK_THREAD: 'off' }).webhooks;
    assert.deepEqual([set.logMaxRows, set.logDays, set.thread], [50, 7, false]);
    assert.throws(() => loadConfig({ WEBHOOK_LOG_MAX: '0' }), ConfigError);
    assert.throws(() => loadConfig({ WEBHOOK_LOG_DAYS: '1.5' }), ConfigError);
  });

  it('reads every setting from the environment', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      DATABASE_URL: 'sqlite::memory:',
      PUBLIC_URL: 'https://api.example.org/',
      SITE_URL: 'https://example.org',
      SITE_TIMEZONE: 'America/New_York',
      BASE_PATH: '/api/',
      LOG_LEVEL: 'warn',
      VALIDATE_RESPONSES: 'true',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, 'https://api.example.org');
    assert.equal(config.siteUrl, 'https://example.org');
    assert.equal(config.siteTimezone, 'America/New_York');
    assert.equal(config.basePath, '/api');
    assert.equal(config.validateResponses, true);
  });

  it('refuses bad settings with the variable named', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x' }),
      (err: Error) => err instanceof ConfigError && /PORT/.test(err.message),
    );
    assert.throws(() => loadConfig({ PUBLIC_URL: 'ftp://x' }), /PUBLIC_URL/);
    assert.throws(() => loadConfig({ SITE_TIMEZONE: 'Mars/Base' }), /SITE_TIMEZONE/);
    assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
    assert.throws(() => loadConfig({ BASE_PATH: 'no slash' }), /BASE_PATH/);
    assert.throws(() => loadConfig({ ICAL_MAX_EVENTS: '0' }), /ICAL_MAX_EVENTS/);
  });

  it('reads PURGE_URL as an optional absolute http(s) URL, and refuses anything else', () => {
    assert.equal(loadConfig({}).purgeUrl, undefined);
    assert.equal(loadConfig({ PURGE_URL: '' }).purgeUrl, undefined);
    assert.equal(loadConfig({ PURGE_URL: 'http://127.0.0.1:6081/' }).purgeUrl, 'http://127.0.0.1:6081');
    assert.equal(loadConfig({ PURGE_URL: 'https://cache.internal' }).purgeUrl, 'https://cache.internal');
    for (const bad of ['127.0.0.1:6081', 'varnish', 'ftp://cache', '/purge'])
      assert.throws(
        () => loadConfig({ PURGE_URL: bad }),
        (err: Error) => err instanceof ConfigError && /^PURGE_URL must be an/.test(err.message),
        bad,
      );
  });

  it('commits SQLite durably unless SQLITE_SYNCHRONOUS=normal, and refuses other levels', () => {
    assert.equal(loadConfig({}).sqliteSynchronous, 'full');
    assert.equal(loadConfig({ SQLITE_SYNCHRONOUS: '' }).sqliteSynchronous, 'full');
    assert.equal(loadConfig({ SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous, 'full');
    assert.equal(loadConfig({ SQLITE_SYNCHRONOUS: ' Normal ' }).sqliteSynchronous, 'normal');
    for (const bad of ['off', 'extra', '0', '1', 'fast'])
      assert.throws(
        () => loadConfig({ SQLITE_SYNCHRONOUS: bad }),
        (err: Error) => err instanceof ConfigError && err.message === `SQLITE_SYNCHRONOUS must be full or normal, got "${bad}"`,
        bad,
      );
  });

  it('reads the iCalendar feed settings (docs/contract.md §11)', () => {
    assert.equal(loadConfig({}).icalMaxEvents, 2000);
    assert.equal(loadConfig({}).siteName, undefined);
    const config = loadConfig({ ICAL_MAX_EVENTS: '500', SITE_NAME: ' Springfield Arts ' });
    assert.equal(config.icalMaxEvents, 500);
    assert.equal(config.siteName, 'Springfield Arts');
  });

  it('reads PAGES, and serves the pages only when the service is its own site (docs/contract.md §13)', () => {
    assert.equal(loadConfig({}).pages, true);
    for (const off of ['off', 'false', '0', 'no', ' OFF ']) assert.equal(loadConfig({ PAGES: off }).pages, false, off);
    for (const on of ['on', 'true', '1', 'yes']) assert.equal(loadConfig({ PAGES: on }).pages, true, on);
    assert.throws(
      () => loadConfig({ PAGES: 'sometimes' }),
      (err: Error) => err instanceof ConfigError && /PAGES/.test(err.message),
    );
    assert.equal(servesPages(loadConfig({})), true);
    assert.equal(servesPages(loadConfig({ PAGES: 'off' })), false);
    assert.equal(servesPages(loadConfig({ PUBLIC_URL: 'https://events.example.org', SITE_URL: 'https://events.example.org/' })), true);
    assert.equal(servesPages(loadConfig({ PUBLIC_URL: 'https://api.example.org', SITE_URL: 'https://www.example.org' })), false);
    assert.equal(servesPages(loadConfig({ SITE_URL: 'https://www.example.org' })), false);
  });

  it('reads the failed-login limits and TRUST_PROXY as Express takes it', () => {
    const defaults = loadConfig({});
    assert.deepEqual([defaults.authFailureLimit, defaults.authFailureAddressLimit, defaults.authFailureWindowSeconds, defaults.trustProxy], [20, 100, 900, false]);
    // The address ceiling follows the per-login limit unless it is set.
    assert.equal(loadConfig({ AUTH_FAILURE_LIMIT: '7' }).authFailureAddressLimit, 35);
    assert.equal(loadConfig({ AUTH_FAILURE_LIMIT: '7', AUTH_FAILURE_ADDRESS_LIMIT: '8' }).authFailureAddressLimit, 8);
    assert.throws(() => loadConfig({ AUTH_FAILURE_LIMIT: '7', AUTH_FAILURE_ADDRESS_LIMIT: '6' }), /AUTH_FAILURE_ADDRESS_LIMIT/);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8 ,fd00::/8' }).trustProxy, ['loopback', '10.0.0.0/8', 'fd00::/8']);
    for (const value of ['10.0.0.300', 'proxy.example.org', '10.0.0.0/33']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (err: Error) => err instanceof ConfigError && /TRUST_PROXY/.test(err.message),
        value,
      );
    }
  });

  it('reads the shared-cache settings as whole seconds from 0 (docs/contract.md §19)', () => {
    const defaults = loadConfig({});
    assert.deepEqual([defaults.cacheMaxAge, defaults.cacheStaleSeconds, defaults.cacheNotFoundMaxAge], [60, 300, 10]);
    const set = loadConfig({ CACHE_MAX_AGE: '0', CACHE_STALE_SECONDS: ' 45 ', CACHE_NOT_FOUND_MAX_AGE: '2147483648' });
    assert.deepEqual([set.cacheMaxAge, set.cacheStaleSeconds, set.cacheNotFoundMaxAge], [0, 45, 2147483648]);
    assert.equal(loadConfig({ CACHE_MAX_AGE: '' }).cacheMaxAge, 60, 'empty is the default');
    for (const name of ['CACHE_MAX_AGE', 'CACHE_STALE_SECONDS', 'CACHE_NOT_FOUND_MAX_AGE']) {
      // Each value would reach the header as written, or is no whole number of seconds.
      for (const value of ['-1', '1.5', 'x', '1e3', '0x10', '2147483649', '60s']) {
        assert.throws(
          () => loadConfig({ [name]: value }),
          (err: Error) => err instanceof ConfigError && err.message === `${name} must be a whole number of seconds from 0 to 2147483648, got "${value}"`,
          `${name}=${value}`,
        );
      }
    }
  });

  it('knows IANA zones and WordPress UTC offsets', () => {
    for (const zone of ['UTC', 'Europe/Paris', 'UTC+5', 'UTC-3.5']) assert.ok(isValidTimezone(zone), zone);
    for (const zone of ['', 'Nowhere/City', 'UTC+']) assert.ok(!isValidTimezone(zone), zone);
  });
});
