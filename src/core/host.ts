import net from 'node:net';

/** Longest host name accepted (a DNS name has at most 253 characters); a port adds at most 6. */
const MAX_HOST_LENGTH = 253;

/** A `Host` value taken apart: the host (lower-cased, IPv6 literals in brackets) and the port, if any. */
export interface HostAndPort {
  host: string;
  port: number | undefined;
}

/** RFC 3986 `reg-name` without percent-encoding: unreserved characters and sub-delimiters. */
const REG_NAME = /^[A-Za-z0-9\-._~!$&'()*+,;=]+$/;
/** RFC 3986 `IPv4address`: four decimal octets. */
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Parses a `Host` header value as RFC 3986 `host [ ":" port ]` (RFC 9110 §7.2), bounded in length:
 * a registered name of letters, digits and `-._~!$&'()*+,;=` (no percent-encoding), an IPv4
 * address, or an IPv6 address in brackets; a port of at most 5 digits up to 65535. Undefined when
 * the value is anything else (`a b`, `a<b`, `[::1`, `a:99999`, an empty value, a 15,000-character one).
 */
export function parseHost(value: string): HostAndPort | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{0,5}))?$/.exec(value);
  if (!match) return undefined;
  const [, host, portText] = match;
  if (host.length === 0 || host.length > MAX_HOST_LENGTH) return undefined;
  if (host.startsWith('[')) {
    if (!net.isIPv6(host.slice(1, -1))) return undefined;
  } else if (!IPV4.test(host) && !REG_NAME.test(host)) {
    return undefined;
  }
  const port = portText === undefined || portText === '' ? undefined : Number(portText);
  if (port !== undefined && port > 65535) return undefined;
  return { host: host.toLowerCase(), port };
}
