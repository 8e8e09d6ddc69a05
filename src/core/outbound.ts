import dns from 'node:dns';
import ipaddr from 'ipaddr.js';
import { invalidParam } from './errors.js';

/**
 * The one rule for every request this service makes to an address a caller chose (docs/settings.md
 * "Outbound requests"): webhook deliveries and their URL checks, `POST /events/import` with a `url`,
 * `import-ics URL`. Such a URL is chosen by a caller but fetched from inside the service's network, so
 * without this rule it could reach the cloud's metadata service (169.254.169.254), the database, or
 * anything else only the service can reach (server-side request forgery).
 *
 * A URL may use `https` to a globally reachable address: every range of the IANA IPv4 and IPv6
 * special-purpose address registries that is not globally reachable is refused (the table below),
 * and so is every IPv6 address outside global unicast (`2000::/3`), including the deprecated
 * IPv4-compatible form (`::/96`). Forms that embed an IPv4 address (IPv4-mapped, NAT64 `64:ff9b::/96`,
 * 6to4, Teredo) are judged by the address they embed. The networks of OUTBOUND_ALLOWED_NETWORKS are
 * exempt, and only there may a URL use plain `http`. The check runs on the URL (its host, when an IP
 * literal, which the connection does not look up), and at connect time on every address the host
 * name resolves to (`checkedLookup`, so a name that resolves elsewhere later is not followed there),
 * on every redirect hop.
 */

/** Longest URL the service fetches or sends to. */
const MAX_URL_LENGTH = 2048;

/** Every network: a request the operator's own command makes (`import-site`) is not restricted. */
export const ANY_NETWORK: readonly string[] = ['0.0.0.0/0', '::/0'];

/** Why the service will not send a request there; the message is told to the caller. */
export class UnsafeDestination extends Error {}

/** How a range is reached: globally, not at all (its name says why), or as the IPv4 address it embeds. */
type Reach = true | false | 'mapped' | 'nat64' | '6to4' | 'teredo';

/** A range of the registries; the longest prefix containing an address decides. */
interface Range {
  cidr: string;
  name: string;
  reach: Reach;
}

/**
 * The IANA IPv4 Special-Purpose Address Registry (plus multicast), by "Globally Reachable"; ranges
 * the registry marks globally reachable inside a refused one are listed to be let through. Anything
 * not listed is global unicast.
 */
const IPV4_RANGES: Range[] = [
  { cidr: '0.0.0.0/0', name: 'unicast', reach: true },
  { cidr: '0.0.0.0/8', name: 'unspecified', reach: false },
  { cidr: '10.0.0.0/8', name: 'private', reach: false },
  { cidr: '100.64.0.0/10', name: 'carrierGradeNat', reach: false },
  { cidr: '127.0.0.0/8', name: 'loopback', reach: false },
  { cidr: '169.254.0.0/16', name: 'linkLocal', reach: false },
  { cidr: '172.16.0.0/12', name: 'private', reach: false },
  // IETF protocol assignments: the service continuity prefix, the dummy address, NAT64 discovery...
  { cidr: '192.0.0.0/24', name: 'ietfProtocolAssignment', reach: false },
  // ...but the PCP and TURN anycast addresses are globally reachable.
  { cidr: '192.0.0.9/32', name: 'unicast', reach: true },
  { cidr: '192.0.0.10/32', name: 'unicast', reach: true },
  { cidr: '192.0.2.0/24', name: 'documentation', reach: false },
  { cidr: '192.88.99.0/24', name: 'deprecated6to4Relay', reach: false },
  { cidr: '192.168.0.0/16', name: 'private', reach: false },
  { cidr: '198.18.0.0/15', name: 'benchmarking', reach: false },
  { cidr: '198.51.100.0/24', name: 'documentation', reach: false },
  { cidr: '203.0.113.0/24', name: 'documentation', reach: false },
  { cidr: '224.0.0.0/4', name: 'multicast', reach: false },
  { cidr: '240.0.0.0/4', name: 'reserved', reach: false },
  { cidr: '255.255.255.255/32', name: 'broadcast', reach: false },
];

/** The IANA IPv6 Special-Purpose Address Registry, and the address space outside global unicast. */
const IPV6_RANGES: Range[] = [
  { cidr: '::/0', name: 'reserved', reach: false },
  { cidr: '2000::/3', name: 'unicast', reach: true },
  { cidr: '::/128', name: 'unspecified', reach: false },
  { cidr: '::1/128', name: 'loopback', reach: false },
  { cidr: '::/96', name: 'ipv4Compatible', reach: false },
  { cidr: '::ffff:0:0/96', name: 'ipv4Mapped', reach: 'mapped' },
  { cidr: '::ffff:0:0:0/96', name: 'ipv4Translated', reach: false },
  { cidr: '64:ff9b::/96', name: 'nat64', reach: 'nat64' },
  { cidr: '64:ff9b:1::/48', name: 'nat64LocalUse', reach: false },
  { cidr: '100::/64', name: 'discardOnly', reach: false },
  { cidr: '100:0:0:1::/64', name: 'dummy', reach: false },
  { cidr: '2001::/23', name: 'ietfProtocolAssignment', reach: false },
  { cidr: '2001::/32', name: 'teredo', reach: 'teredo' },
  { cidr: '2001:1::1/128', name: 'unicast', reach: true },
  { cidr: '2001:1::2/128', name: 'unicast', reach: true },
  { cidr: '2001:1::3/128', name: 'unicast', reach: true },
  { cidr: '2001:2::/48', name: 'benchmarking', reach: false },
  { cidr: '2001:3::/32', name: 'unicast', reach: true },
  { cidr: '2001:4:112::/48', name: 'unicast', reach: true },
  { cidr: '2001:10::/28', name: 'deprecatedOrchid', reach: false },
  { cidr: '2001:20::/28', name: 'unicast', reach: true },
  { cidr: '2001:30::/28', name: 'unicast', reach: true },
  { cidr: '2001:db8::/32', name: 'documentation', reach: false },
  { cidr: '2002::/16', name: '6to4', reach: '6to4' },
  { cidr: '3fff::/20', name: 'documentation', reach: false },
  { cidr: '5f00::/16', name: 'segmentRouting', reach: false },
  { cidr: 'fc00::/7', name: 'uniqueLocal', reach: false },
  { cidr: 'fe80::/10', name: 'linkLocal', reach: false },
  { cidr: 'fec0::/10', name: 'siteLocal', reach: false },
  { cidr: 'ff00::/8', name: 'multicast', reach: false },
];

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Parsed = { range: Range; network: Address; bits: number };

const compile = (ranges: Range[]): Parsed[] =>
  ranges.map((range) => {
    const [network, bits] = ipaddr.parseCIDR(range.cidr);
    return { range, network, bits };
  });
const PARSED_V4 = compile(IPV4_RANGES);
const PARSED_V6 = compile(IPV6_RANGES);

/** The most specific range of the table holding the address. */
function rangeOf(address: Address): Range {
  let best: Parsed | undefined;
  for (const entry of address.kind() === 'ipv4' ? PARSED_V4 : PARSED_V6) {
    if (entry.network.kind() !== address.kind() || (best && best.bits >= entry.bits)) continue;
    if (address.match([entry.network, entry.bits] as [Address, number])) best = entry;
  }
  return best!.range;
}

/** The IPv4 address in bytes `at` … `at + 3` of an IPv6 address, each byte XORed with `mask`. */
function embedded(address: ipaddr.IPv6, at: number, mask = 0): ipaddr.IPv4 {
  const bytes = address.toByteArray().slice(at, at + 4);
  return new ipaddr.IPv4(bytes.map((byte) => byte ^ mask));
}

/** The IPv4 address a form embeds (IPv4-mapped, NAT64, 6to4, Teredo's client, whose bits are inverted). */
function embeddedOf(address: ipaddr.IPv6, reach: Reach): ipaddr.IPv4 | undefined {
  if (reach === 'mapped' || reach === 'nat64') return embedded(address, 12);
  if (reach === '6to4') return embedded(address, 2);
  if (reach === 'teredo') return embedded(address, 12, 0xff);
  return undefined;
}

/** Why the address is not globally reachable, or undefined when it is. */
function specialPurposeOf(address: Address): string | undefined {
  const range = rangeOf(address);
  if (range.reach === true) return undefined;
  if (range.reach === false) return `is a ${range.name} address (${range.cidr})`;
  const inner = embeddedOf(address as ipaddr.IPv6, range.reach)!;
  const why = specialPurposeOf(inner);
  return why === undefined ? undefined : `is a ${range.name} address embedding ${inner.toString()}, which ${why}`;
}

/**
 * An IP address as a connection reads it. An IPv6 address is first written in hexadecimal by the URL
 * parser: ipaddr.js reads `::127.0.0.1` as the IPv4-mapped `::ffff:127.0.0.1`, but it is the
 * IPv4-compatible `::7f00:1`.
 */
function parseAddress(address: string): Address | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  if (!address.includes(':')) return ipaddr.parse(address);
  try {
    return ipaddr.parse(hostOf(new URL(`http://[${address}]/`)));
  } catch {
    return undefined;
  }
}

function inNetworks(address: Address, allowedNetworks: readonly string[]): boolean {
  return allowedNetworks.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === address.kind() && address.match([network, bits] as [Address, number]);
  });
}

/**
 * Why `address` may not be reached over `protocol` (`https:` or `http:`), or undefined when it may:
 * listed in the allowed networks (an IPv4-mapped address also by its IPv4 address), or, over https,
 * globally reachable.
 */
export function refusalOf(address: string, allowedNetworks: readonly string[], protocol: string): string | undefined {
  const parsed = parseAddress(address);
  if (!parsed) return `${address} is not an IP address`;
  const mapped = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : undefined;
  if (inNetworks(parsed, allowedNetworks) || (mapped && inNetworks(mapped, allowedNetworks))) return undefined;
  if (protocol === 'http:') return `${address} is not in OUTBOUND_ALLOWED_NETWORKS, and only those may be reached over http`;
  const why = specialPurposeOf(parsed);
  return why === undefined ? undefined : `${address} ${why}`;
}

/** The URL as given, checked for its form only (scheme, no credentials or fragment, length); throws UnsafeDestination. */
export function parseOutboundUrl(text: string, allowedNetworks: readonly string[]): URL {
  if (text.length > MAX_URL_LENGTH) throw new UnsafeDestination(`url must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeDestination('url must be an absolute https URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowedNetworks.length > 0)) {
    throw new UnsafeDestination('url must be an https URL (http only for networks listed in OUTBOUND_ALLOWED_NETWORKS).');
  }
  if (url.username !== '' || url.password !== '') throw new UnsafeDestination('url must not carry a user name or password.');
  if (url.hash !== '') throw new UnsafeDestination('url must not have a fragment.');
  return url;
}

/** The host of a URL as a connection takes it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The URL's form, and its host when that is an IP address (a connection to an IP literal does not
 * call `lookup`, so this is its only check); a name is checked by `checkedLookup` when connecting.
 */
export function checkOutboundUrlNow(text: string, allowedNetworks: readonly string[]): URL {
  const url = parseOutboundUrl(text, allowedNetworks);
  const host = hostOf(url);
  if (ipaddr.isValid(host)) {
    const refusal = refusalOf(host, allowedNetworks, url.protocol);
    if (refusal) throw new UnsafeDestination(`url may not be reached: ${refusal}.`);
  }
  return url;
}

/**
 * What a request that named a refused URL in its `url` field is answered: 400 `rest_invalid_param`
 * naming `url` for an UnsafeDestination; any other error as it is. For `catch (err) { throw ... }`
 * around the checks above, wherever an operation takes a URL the service will reach.
 */
export function asUrlParamError(err: unknown): unknown {
  return err instanceof UnsafeDestination ? invalidParam('url', err.message) : err;
}

export type Resolver = (host: string) => Promise<string[]>;

/** Every address a host name resolves to (A and AAAA), as a connection would see them. */
export const resolveAll: Resolver = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Checks the URL's form and every address its host resolves to now; throws UnsafeDestination naming
 * the first refused one. A name that does not resolve now is accepted: nothing is reached through it,
 * and every request resolves it again and checks the addresses it connects to (`checkedLookup`).
 */
export async function checkOutboundUrl(text: string, allowedNetworks: readonly string[], resolve: Resolver = resolveAll): Promise<URL> {
  const url = checkOutboundUrlNow(text, allowedNetworks);
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return url;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    addresses = [];
  }
  for (const address of addresses) {
    const refusal = refusalOf(address, allowedNetworks, url.protocol);
    if (refusal) throw new UnsafeDestination(`url may not be reached: ${refusal}.`);
  }
  return url;
}

/** The error code a connection refused by `checkedLookup` fails with. */
export const REFUSED_ADDRESS = 'EREFUSEDADDRESS';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that resolves as usual and fails the connection when an address is
 * refused: the check runs on the very addresses the socket connects to, so a name that resolved to a
 * public address when a URL was checked and to 127.0.0.1 now is not followed there (DNS rebinding).
 */
export function checkedLookup(allowedNetworks: readonly string[], protocol: string) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      for (const entry of list) {
        const refusal = refusalOf(entry.address, allowedNetworks, protocol);
        if (refusal) return callback(Object.assign(new UnsafeDestination(`refused: ${refusal}`), { code: REFUSED_ADDRESS }), '', 0);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}
