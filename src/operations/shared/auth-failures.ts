import type { Request, RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../core/config.js';
import { RestError } from '../../core/errors.js';

/** How many clients each counter remembers at most; past that, the oldest entries are forgotten. */
const MAX_ENTRIES = 100_000;

/** Failures of one key within a fixed window that starts at its first failure. */
interface Window {
  count: number;
  resetAt: number;
}

/** A map of fixed windows per key, bounded in size, forgetting expired windows as it goes (logins and record passwords). */
class WindowCounter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs: number) {}

  get(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.resetAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  add(key: string, now: number): void {
    const window = this.get(key, now);
    if (window) window.count++;
    else this.windows.set(key, { count: 1, resetAt: now + this.windowMs });
    if (this.windows.size > MAX_ENTRIES) this.shrink(now);
  }

  /** Starts a new window for the key now, whatever it had (a sliding mark rather than a count). */
  renew(key: string, now: number): void {
    this.windows.delete(key);
    this.windows.set(key, { count: 1, resetAt: now + this.windowMs });
    if (this.windows.size > MAX_ENTRIES) this.shrink(now);
  }

  private shrink(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full (many clients failing at once): forget the oldest windows (a Map keeps insertion
    // order), so memory stays bounded; those clients start a fresh window.
    for (const key of this.windows.keys()) {
      if (this.windows.size <= MAX_ENTRIES * 0.9) break;
      this.windows.delete(key);
    }
  }
}

/**
 * The client's address as the throttle counts it: `req.ip` (which follows TRUST_PROXY), with an
 * IPv4-mapped IPv6 address read as IPv4 and an IPv6 address reduced to its /64 network, since one
 * IPv6 client usually holds a whole /64 and could otherwise start afresh from each of its addresses.
 */
export function clientAddress(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return ip ?? '';
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toString()}/64`).toString()}/64`;
}

/**
 * The login a request's credentials name, lower-cased (logins are matched without regard to case):
 * the user part of `Basic`. A `Bearer` secret names no login, and a malformed header names nothing;
 * both give undefined.
 */
export function loginOf(header: string): string | undefined {
  const match = /^Basic\s+(.+)$/i.exec(header.trim());
  if (!match) return undefined;
  const decoded = Buffer.from(match[1].trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decoded.slice(0, colon).toLowerCase() : undefined;
}

/**
 * Slows down credential guessing without letting one client lock out others: wrong credentials stay
 * 401 `rest_invalid_credentials` (docs/contract.md §5) until a limit is reached, then 429
 * `rest_too_many_requests` with `Retry-After`.
 *
 * Every refused authentication counts twice: against its client address and login (the pair), and
 * against the address alone. A pair that failed `AUTH_FAILURE_LIMIT` times within the window is
 * refused until its window ends: someone guessing one user's secret. An address that failed
 * `AUTH_FAILURE_ADDRESS_LIMIT` times (a looser ceiling) is refused for every login that has not
 * authenticated from it within the last window: someone trying one secret on many logins. So good
 * credentials are never refused because of another login's failures at the same address, nor
 * because of failures at another address; behind a proxy, TRUST_PROXY makes the address the real
 * client's. Bearer secrets and malformed headers name no login and count against the address only.
 *
 * Only real failures count, so concurrent requests with good credentials and requests without
 * credentials are never refused. Counters are per process.
 */
export class AuthFailureLimiter {
  private readonly pairs: WindowCounter;
  private readonly addresses: WindowCounter;
  /** Pairs that authenticated within the last window: the address ceiling does not apply to them. */
  private readonly known: WindowCounter;

  constructor(
    private readonly pairLimit: number,
    private readonly addressLimit: number,
    windowMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.pairs = new WindowCounter(windowMs);
    this.addresses = new WindowCounter(windowMs);
    this.known = new WindowCounter(windowMs);
  }

  /** Refuses credentials whose pair or address used up its failures; runs before authentication. */
  readonly guard: RequestHandler = (req, _res, next) => {
    const header = req.headers.authorization;
    if (!header) return next();
    const now = this.clock();
    const address = clientAddress(req.ip);
    const login = loginOf(header);
    if (login !== undefined) {
      const key = pairKey(address, login);
      const pair = this.pairs.get(key, now);
      if (pair && pair.count >= this.pairLimit) return next(tooManyFailures(pair, now));
      if (this.known.get(key, now)) return next();
    }
    const ceiling = this.addresses.get(address, now);
    if (ceiling && ceiling.count >= this.addressLimit) return next(tooManyFailures(ceiling, now));
    next();
  };

  /** Records one refused authentication of the request's client. */
  recordFailure(req: Request): void {
    const now = this.clock();
    const address = clientAddress(req.ip);
    const login = loginOf(req.headers.authorization ?? '');
    if (login !== undefined) this.pairs.add(pairKey(address, login), now);
    this.addresses.add(address, now);
  }

  /**
   * Records a successful authentication: the pair is known at that address for a window from now, so
   * a login in steady use from an address keeps working there whatever others do.
   */
  recordSuccess(req: Request): void {
    const login = loginOf(req.headers.authorization ?? '');
    if (login === undefined) return;
    this.known.renew(pairKey(clientAddress(req.ip), login), this.clock());
  }
}

function pairKey(address: string, login: string): string {
  // A space cannot occur in an address, so the key is unambiguous whatever the login holds.
  return `${address} ${login}`;
}

function tooManyFailures(window: Window, now: number): RestError {
  const seconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  return new RestError(429, 'rest_too_many_requests', 'Too many failed authentication attempts. Try again later.', {}, { 'Retry-After': String(seconds) });
}

export function authFailureLimiter(config: Config): AuthFailureLimiter {
  return new AuthFailureLimiter(config.authFailureLimit, config.authFailureAddressLimit, config.authFailureWindowSeconds * 1000);
}
