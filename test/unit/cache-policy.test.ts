import assert from 'node:assert/strict';
import { cachePolicy } from '../../src/http/cache-policy.js';

/**
 * The rule of docs/contract.md §19 as a table, for the cases HTTP cannot reach: no anonymous GET of
 * the service answers 410 today (the change feed's 410 sets its own no-store), but a 410 is as
 * cacheable as a 404. Every case through HTTP: test/api/caching/cache-headers.test.ts.
 */
describe('cache policy (docs/contract.md §19)', () => {
  const settings = { cacheMaxAge: 60, cacheStaleSeconds: 300, cacheNotFoundMaxAge: 10, trustProxy: false, publicUrl: undefined };
  const asker = (method = 'GET', headers: Record<string, string> = {}, target = '/wp-json/tribe/events/v1/events') => ({ method, headers, target, query: () => ({}) });

  it('gives each status of an anonymous GET its directives, 410 as 404', () => {
    const policy = cachePolicy(settings, '/wp-json/tribe/events/v1');
    const expected: Array<[number, string]> = [
      [200, 'public, max-age=60, stale-while-revalidate=300, stale-if-error=300'],
      [204, 'public, max-age=60, stale-while-revalidate=300, stale-if-error=300'],
      [304, 'public, max-age=60, stale-while-revalidate=300, stale-if-error=300'],
      [404, 'public, max-age=10'],
      [410, 'public, max-age=10'],
      [301, 'no-store'],
      [400, 'no-store'],
      [403, 'no-store'],
      [500, 'no-store'],
      [503, 'no-store'],
    ];
    for (const [status, cacheControl] of expected) assert.deepEqual(policy.directives(asker(), status), { cacheControl }, String(status));
    assert.equal(policy.directives(asker('HEAD'), 410).cacheControl, 'public, max-age=10');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) assert.equal(policy.directives(asker(method), 410).cacheControl, 'no-store', method);
    assert.equal(policy.directives(asker('GET', { cookie: 'a=b' }), 410).cacheControl, 'private, no-store');
    assert.equal(policy.directives(asker('GET', { authorization: 'Bearer x' }), 410).expires, 'Wed, 11 Jan 1984 05:00:00 GMT');
    // Credentials come first, whatever the method: the plugin sends its headers on every logged-in request.
    assert.equal(policy.directives(asker('PATCH', { authorization: 'Bearer x' }), 200).cacheControl, 'no-cache, must-revalidate, max-age=0, no-store, private');
  });

  it('bounds a 404 or 410 by CACHE_MAX_AGE, and stores none when it is 0', () => {
    assert.equal(cachePolicy({ ...settings, cacheNotFoundMaxAge: 600 }, '/ns').directives(asker(), 410).cacheControl, 'public, max-age=60');
    assert.equal(cachePolicy({ ...settings, cacheMaxAge: 0 }, '/ns').directives(asker(), 410).cacheControl, 'no-store');
    assert.equal(cachePolicy({ ...settings, cacheMaxAge: 0 }, '/ns').directives(asker(), 200).cacheControl, 'no-cache');
  });
});
