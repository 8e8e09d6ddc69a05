import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../../src/core/config.js';
import { checkOutboundUrl, checkOutboundUrlNow, parseOutboundUrl, refusalOf, UnsafeDestination } from '../../src/core/outbound.js';

/** Where the service may send a request (docs/settings.md "Outbound requests"): public https addresses, or the networks the operator lists. */
describe('outbound requests (src/core/outbound.ts)', () => {
  const none: string[] = [];
  const resolvesTo =
    (...addresses: string[]) =>
    async () =>
      addresses;

  it('accepts https URLs whose host is, or resolves only to, public addresses', async () => {
    assert.equal((await checkOutboundUrl('https://93.184.215.14/hook', none)).hostname, '93.184.215.14');
    assert.equal((await checkOutboundUrl('https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook', none)).pathname, '/hook');
    assert.equal((await checkOutboundUrl('https://hooks.example.org/calendar?x=1', none, resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'))).search, '?x=1');
  });

  for (const [url, why] of [
    ['https://127.0.0.1/hook', /loopback/],
    ['https://169.254.169.254/latest/meta-data/', /linkLocal/],
    ['https://10.0.0.1/', /private/],
    ['https://192.168.1.20/', /private/],
    ['https://100.64.0.1/', /carrierGradeNat/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://224.0.0.1/', /multicast/],
    ['https://[::1]/', /loopback/],
    ['https://[fd00::1]/', /uniqueLocal/],
    ['https://[fe80::1]/', /linkLocal/],
    ['https://[::ffff:10.0.0.1]/', /private/],
    ['https://[::]/', /unspecified/],
  ] as const) {
    it(`refuses ${url}`, async () => {
      await assert.rejects(checkOutboundUrl(url, none), (err: Error) => err instanceof UnsafeDestination && why.test(err.message));
    });
  }

  it('refuses a name when any address it resolves to is refused, and accepts a name that does not resolve now', async () => {
    await assert.rejects(checkOutboundUrl('https://hooks.example.org/', none, resolvesTo('93.184.215.14', '127.0.0.1')), /127\.0\.0\.1 is a loopback address/);
    // Nothing is reached through it; each request resolves it again (checkedLookup).
    const unresolved = await checkOutboundUrl('https://nowhere.example.org/', none, async () => {
      throw new Error('ENOTFOUND');
    });
    assert.equal(unresolved.href, 'https://nowhere.example.org/');
    assert.equal((await checkOutboundUrl('https://empty.example.org/', none, resolvesTo())).href, 'https://empty.example.org/');
  });

  it('refuses other forms: http without allowed networks, other schemes, credentials, fragments, long URLs, non-URLs', () => {
    for (const url of [
      'http://93.184.215.14/',
      'ftp://93.184.215.14/',
      'https://user:pw@93.184.215.14/',
      'https://93.184.215.14/#frag',
      'not a url',
      `https://93.184.215.14/${'a'.repeat(2048)}`,
    ]) {
      assert.throws(() => parseOutboundUrl(url, none), UnsafeDestination, url);
    }
  });

  it('lets listed networks through, and only they may be reached over http', async () => {
    const allowed = ['127.0.0.0/8', 'fd00::/8'];
    assert.equal((await checkOutboundUrl('http://127.0.0.1:9000/hook', allowed)).port, '9000');
    assert.equal((await checkOutboundUrl('https://[fd00::5]/hook', allowed)).hostname, '[fd00::5]');
    await assert.rejects(checkOutboundUrl('http://93.184.215.14/hook', allowed), /only those may be reached over http/);
    await assert.rejects(checkOutboundUrl('https://10.0.0.1/hook', allowed), /private/);
    assert.equal(refusalOf('::ffff:127.0.0.1', allowed, 'https:'), undefined, 'an IPv4-mapped address is matched as IPv4');
  });

  /**
   * Every range of the IANA IPv4 and IPv6 special-purpose address registries that is not globally
   * reachable, and the address space outside IPv6 global unicast, each with an address in it and the
   * name the refusal gives; then the globally reachable ones the registries list inside them.
   */
  const REFUSED: Array<[string, string]> = [
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['172.16.0.1', 'private'],
    ['172.31.255.1', 'private'],
    ['192.0.0.1', 'ietfProtocolAssignment'], // IPv4 service continuity prefix 192.0.0.0/29
    ['192.0.0.8', 'ietfProtocolAssignment'], // IPv4 dummy address
    ['192.0.0.170', 'ietfProtocolAssignment'], // NAT64/DNS64 discovery
    ['192.0.0.171', 'ietfProtocolAssignment'],
    ['192.0.2.10', 'documentation'],
    ['192.88.99.1', 'deprecated6to4Relay'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::2', 'ipv4Compatible'],
    ['::169.254.169.254', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:10.0.0.1', 'ipv4Mapped'],
    ['::ffff:169.254.169.254', 'ipv4Mapped'],
    ['::ffff:0:7f00:1', 'ipv4Translated'],
    ['64:ff9b::7f00:1', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'nat64'],
    ['64:ff9b:1::8.8.8.8', 'nat64LocalUse'],
    ['100::1', 'discardOnly'],
    ['100:0:0:1::1', 'dummy'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'], // client 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo'], // client 10.0.0.1
    ['2001:2::1', 'benchmarking'],
    ['2001:5::1', 'ietfProtocolAssignment'],
    ['2001:1::4', 'ietfProtocolAssignment'],
    ['2001:10::1', 'deprecatedOrchid'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:c0a8:101::1', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'segmentRouting'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fec0::1', 'siteLocal'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'reserved'],
    ['1::1', 'reserved'],
  ];
  const GLOBAL = [
    '8.8.8.8',
    '93.184.215.14',
    '192.0.0.9',
    '192.0.0.10',
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.1',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    '2001:1::1',
    '2001:1::2',
    '2001:1::3',
    '2001:3::1',
    '2001:4:112::1',
    '2001:20::1',
    '2001:30::1',
    '2620:4f:8000::1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo client 8.8.8.8
  ];

  for (const [address, name] of REFUSED) {
    it(`refuses ${address} over https (${name})`, () => {
      const refusal = refusalOf(address, none, 'https:');
      assert.ok(refusal?.startsWith(`${address} is a ${name} address`), `${address}: ${refusal}`);
      const literal = address.includes(':') ? `[${address}]` : address;
      assert.throws(() => checkOutboundUrlNow(`https://${literal}/`, none), UnsafeDestination);
    });
  }

  it('accepts the globally reachable addresses over https, and none of them over http unless listed', () => {
    for (const address of GLOBAL) {
      assert.equal(refusalOf(address, none, 'https:'), undefined, address);
      assert.match(refusalOf(address, ['10.0.0.0/8'], 'http:') ?? '', /only those may be reached over http/, address);
    }
    assert.equal(refusalOf('8.8.8.8', ['8.8.8.0/24'], 'http:'), undefined);
  });

  it('takes OUTBOUND_ALLOWED_NETWORKS, else its older name WEBHOOK_ALLOWED_NETWORKS', () => {
    assert.deepEqual(loadConfig({}).outbound.allowedNetworks, []);
    assert.deepEqual(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' }).outbound.allowedNetworks, ['127.0.0.0/8']);
    assert.deepEqual(loadConfig({ OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8' }).outbound.allowedNetworks, ['10.0.0.0/8', 'fd00::/8']);
    // The new name wins, even empty.
    assert.deepEqual(loadConfig({ OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' }).outbound.allowedNetworks, ['10.0.0.0/8']);
    assert.deepEqual(loadConfig({ OUTBOUND_ALLOWED_NETWORKS: '', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' }).outbound.allowedNetworks, []);
    assert.throws(
      () => loadConfig({ OUTBOUND_ALLOWED_NETWORKS: 'localhost' }),
      (err: Error) => err instanceof ConfigError && /OUTBOUND_ALLOWED_NETWORKS/.test(err.message),
    );
  });
});
