import assert from 'node:assert/strict';
import type { NextFunction, Request, Response } from 'express';
import { AuthFailureLimiter, clientAddress, loginOf } from '../../src/operations/shared/auth-failures.js';
import { RestError } from '../../src/core/errors.js';

function basic(login: string, secret = 'x'): string {
  return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`;
}

function request(ip: string, authorization?: string): Request {
  return { ip, headers: authorization ? { authorization } : {} } as Request;
}

/** What the guard does with a request: undefined when it passes, else the error's status. */
function guard(limiter: AuthFailureLimiter, req: Request): number | undefined {
  let result: unknown = 'not called';
  limiter.guard(req, {} as Response, ((err?: unknown) => (result = err)) as NextFunction);
  assert.notEqual(result, 'not called');
  return result === undefined ? undefined : (result as RestError).status;
}

describe('failed-login throttle (unit)', () => {
  it('reads the client address: IPv4, IPv4-mapped IPv6, IPv6 by its /64', () => {
    assert.equal(clientAddress('203.0.113.9'), '203.0.113.9');
    assert.equal(clientAddress('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(clientAddress('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(clientAddress('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
    assert.equal(clientAddress(undefined), '');
  });

  it('reads the login of Basic credentials, lower-cased; none for Bearer or malformed headers', () => {
    assert.equal(loginOf(basic('Editor')), 'editor');
    assert.equal(loginOf(basic('ed@example.org', 'a:b')), 'ed@example.org');
    assert.equal(loginOf('Bearer abc'), undefined);
    assert.equal(loginOf('Basic !!!'), undefined);
    assert.equal(loginOf('Digest x'), undefined);
  });

  it('forgets failures when their window ends', () => {
    let now = 1_000_000;
    const limiter = new AuthFailureLimiter(2, 3, 60_000, () => now);
    const attempt = request('192.0.2.1', basic('editor'));
    limiter.recordFailure(attempt);
    limiter.recordFailure(attempt);
    assert.equal(guard(limiter, attempt), 429);
    now += 59_999;
    assert.equal(guard(limiter, attempt), 429);
    now += 1;
    assert.equal(guard(limiter, attempt), undefined);
  });

  it('lets a login that authenticated from an address within the last window pass its ceiling', () => {
    let now = 0;
    const limiter = new AuthFailureLimiter(2, 3, 60_000, () => now);
    const editor = request('192.0.2.1', basic('editor'));
    limiter.recordSuccess(editor);
    for (const login of ['a', 'b', 'c']) limiter.recordFailure(request('192.0.2.1', basic(login)));
    assert.equal(guard(limiter, request('192.0.2.1', basic('author'))), 429);
    assert.equal(guard(limiter, editor), undefined);
    // Requests without credentials are never refused.
    assert.equal(guard(limiter, request('192.0.2.1')), undefined);
    now = 30_000;
    limiter.recordSuccess(editor); // each success renews the mark
    now = 60_000;
    for (const login of ['d', 'e', 'f']) limiter.recordFailure(request('192.0.2.1', basic(login)));
    assert.equal(guard(limiter, editor), undefined);
    now = 90_000; // a window after the last success
    assert.equal(guard(limiter, editor), 429);
  });
});
