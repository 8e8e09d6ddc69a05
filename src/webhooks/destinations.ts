import dns from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may send (docs/webhooks.md "Safety"): a receiver on the public internet, over
 * `https`. A webhook's URL is chosen by a caller but fetched by this service from inside its network,
 * so without these checks it could reach the cloud's metadata service (169.254.169.254), the database,
 * or anything else only the service can reach (server-side request forgery). The checks run when a
 * webhook is created or its URL changed, and again at every delivery on the addresses the connection
 * will use (DNS may answer differently later): `lookupPublic` is the `lookup` the sender connects with.
 *
 * Networks listed in WEBHOOK_ALLOWED_NETWORKS are exempt, and only there may a URL use plain `http`
 * (a receiver on the operator's own network, such as a test receiver on 127.0.0.1).
 */

/** Longest URL a webhook may have. */
export const MAX_URL_LENGTH = 2048;

export class UnsafeDestination extends Error {}

/** The URL as sent, checked for its form only (scheme, no credentials, length); throws UnsafeDestination. */
export function parseWebhookUrl(text: string, allowedNetworks: readonly string[]): URL {
  if (text.length > MAX_URL_LENGTH) throw new UnsafeDestination(`url must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeDestination('url must be an absolute https URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowedNetworks.length > 0)) {
    throw new UnsafeDestination('url must be an https URL (http only for networks listed in WEBHOOK_ALLOWED_NETWORKS).');
  }
  if (url.username !== '' || url.password !== '') throw new UnsafeDestination('url must not carry a user name or password.');
  if (url.hash !== '') throw new UnsafeDestination('url must not have a fragment.');
  return url;
}

/** The ipaddr.js range names of addresses a webhook may reach without being listed: public unicast only. */
const PUBLIC_RANGE = 'unicast';

/** Why `address` may not be reached, or undefined when it may (public, or in an allowed network). */
export function refusalOf(address: string, allowedNetworks: readonly string[], protocol: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is that IPv4 address.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const allowed = allowedNetworks.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === parsed.kind() && parsed.match([network, bits] as [typeof parsed, number]);
  });
  if (allowed) return undefined;
  if (protocol === 'http:') return `${address} is not in WEBHOOK_ALLOWED_NETWORKS, and only those may be reached over http`;
  const range = parsed.range();
  return range === PUBLIC_RANGE ? undefined : `${address} is a ${range} address`;
}

export type Resolver = (host: string) => Promise<string[]>;

/** Every address a host name resolves to (A and AAAA), as the sender's connection would see them. */
export const resolveAll: Resolver = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Checks the URL's form and every address its host resolves to now; throws UnsafeDestination naming
 * the first refused one. A name that does not resolve is refused too (nothing could be delivered).
 */
export async function checkWebhookUrl(text: string, allowedNetworks: readonly string[], resolve: Resolver = resolveAll): Promise<URL> {
  const url = parseWebhookUrl(text, allowedNetworks);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new UnsafeDestination(`url's host ${host} does not resolve.`);
    }
    if (addresses.length === 0) throw new UnsafeDestination(`url's host ${host} does not resolve.`);
  }
  for (const address of addresses) {
    const refusal = refusalOf(address, allowedNetworks, url.protocol);
    if (refusal) throw new UnsafeDestination(`url may not be delivered to: ${refusal}.`);
  }
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that resolves as usual and fails the connection when an address is
 * refused: the check runs on the very addresses the socket connects to, so a name that resolved to a
 * public address at creation and to 127.0.0.1 now is not followed there.
 */
export function lookupPublic(allowedNetworks: readonly string[], protocol: string) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      for (const entry of list) {
        const refusal = refusalOf(entry.address, allowedNetworks, protocol);
        if (refusal) return callback(Object.assign(new UnsafeDestination(`refused: ${refusal}`), { code: 'EREFUSEDADDRESS' }), '', 0);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}
