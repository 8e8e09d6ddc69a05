import type { RequestHandler } from 'express';
import type { Config } from '../core/config.js';
import { RestError } from '../core/errors.js';
import { parseHost, type HostAndPort } from '../core/host.js';

/** Paths outside the API that load balancers and scrapers reach by address (never checked against ALLOWED_HOSTS). */
const OPERATIONS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The `Host` header decides every absolute URL of a reply when PUBLIC_URL is not set, so it is
 * checked before anything uses it: a malformed value gets 400 `rest_invalid_host` (RFC 9110 asks
 * for a 400), and, with PUBLIC_URL unset and ALLOWED_HOSTS given, so does a host not in that list
 * (except on the health and metrics endpoints, which probes reach by address). A request without
 * `Host` (HTTP/1.0; Node refuses an HTTP/1.1 one itself) is answered with `localhost` in its URLs,
 * unless ALLOWED_HOSTS applies.
 */
export function hostGuard(config: Config): RequestHandler {
  const allowList = config.publicUrl === undefined ? config.allowedHosts : undefined;
  // Nearly every request names the host the one before named: its parse is kept (parseHost is pure).
  let last: { value: string; parsed: HostAndPort | undefined } | undefined;
  return (req, _res, next) => {
    const value = req.headers.host;
    if (value !== undefined && last?.value !== value) last = { value, parsed: parseHost(value) };
    const parsed = value === undefined ? undefined : last!.parsed;
    if (value !== undefined && !parsed) {
      return next(new RestError(400, 'rest_invalid_host', 'The Host header is not a valid host name and port.'));
    }
    if (allowList && !OPERATIONS_PATHS.has(req.path) && !(parsed && hostAllowed(parsed, allowList))) {
      return next(new RestError(400, 'rest_invalid_host', 'This service does not answer for that host.'));
    }
    next();
  };
}

/** An ALLOWED_HOSTS entry matches the same host, on its port when it names one, on any port otherwise. */
function hostAllowed(given: HostAndPort, allowList: HostAndPort[]): boolean {
  return allowList.some((entry) => entry.host === given.host && (entry.port === undefined || entry.port === given.port));
}
