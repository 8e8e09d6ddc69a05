import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/core/config.js';

describe('operations settings', () => {
  it('default to a single process, metrics off and bounded waits', () => {
    const config = loadConfig({});
    assert.equal(config.workers, 1);
    assert.equal(config.metrics, false);
    assert.equal(config.metricsToken, undefined);
    assert.equal(config.requestTimeoutSeconds, 30);
    assert.equal(config.dbTimeoutSeconds, 5);
    assert.equal(config.shutdownTimeoutSeconds, 25);
    assert.equal(config.keepAliveTimeoutSeconds, 65);
  });

  it('are read from the environment', () => {
    const config = loadConfig({
      DATABASE_URL: 'mysql://u@h/db',
      WORKERS: '4',
      METRICS: 'on',
      METRICS_TOKEN: 't0ken',
      REQUEST_TIMEOUT: '2.5',
      DB_TIMEOUT: '1',
      SHUTDOWN_TIMEOUT: '10',
      KEEP_ALIVE_TIMEOUT: '75',
    });
    assert.deepEqual(
      [config.workers, config.metrics, config.metricsToken, config.requestTimeoutSeconds, config.dbTimeoutSeconds, config.shutdownTimeoutSeconds, config.keepAliveTimeoutSeconds],
      [4, true, 't0ken', 2.5, 1, 10, 75],
    );
  });

  it('are refused with the variable named when malformed', () => {
    for (const [name, value] of [
      ['WORKERS', '0'],
      ['METRICS', 'maybe'],
      ['REQUEST_TIMEOUT', '-1'],
      ['DB_TIMEOUT', 'x'],
      ['SHUTDOWN_TIMEOUT', '0'],
      ['KEEP_ALIVE_TIMEOUT', 'soon'],
    ]) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: 'mysql://u@h/db', [name]: value }),
        (err: Error) => err instanceof ConfigError && err.message.includes(name),
        name,
      );
    }
  });
});
