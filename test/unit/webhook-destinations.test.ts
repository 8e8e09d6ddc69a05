import assert from 'node:assert/strict';
import { checkWebhookUrl, parseWebhookUrl, refusalOf, UnsafeDestination } from '../../src/webhooks/destinations.js';

/** Where a webhook may send (docs/webhooks.md "Safety"): public https receivers, or the networks the operator lists. */
describe('webhook destinations (src/webhooks/destinations.ts)', () => {
  const none: string[] = [];
  const resolvesTo =
    (...addresses: string[]) =>
    async () =>
      addresses;

  it('accepts https URLs whose host is, or resolves only to, public addresses', async () => {
    assert.equal((await checkWebhookUrl('https://93.184.215.14/hook', none)).hostname, '93.184.215.14');
    assert.equal((await checkWebhookUrl('https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook', none)).pathname, '/hook');
    assert.equal((await checkWebhookUrl('https://hooks.example.org/calendar?x=1', none, resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'))).search, '?x=1');
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
      await assert.rejects(checkWebhookUrl(url, none), (err: Error) => err instanceof UnsafeDestination && why.test(err.message));
    });
  }

  it('refuses a name when any address it resolves to is refused, and a name that does not resolve', async () => {
    await assert.rejects(checkWebhookUrl('https://hooks.example.org/', none, resolvesTo('93.184.215.14', '127.0.0.1')), /127\.0\.0\.1 is a loopback address/);
    await assert.rejects(
      checkWebhookUrl('https://nowhere.example.org/', none, async () => {
        throw new Error('ENOTFOUND');
      }),
      /does not resolve/,
    );
    await assert.rejects(checkWebhookUrl('https://empty.example.org/', none, resolvesTo()), /does not resolve/);
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
      assert.throws(() => parseWebhookUrl(url, none), UnsafeDestination, url);
    }
  });

  it('lets listed networks through, and only they may be reached over http', async () => {
    const allowed = ['127.0.0.0/8', 'fd00::/8'];
    assert.equal((await checkWebhookUrl('http://127.0.0.1:9000/hook', allowed)).port, '9000');
    assert.equal((await checkWebhookUrl('https://[fd00::5]/hook', allowed)).hostname, '[fd00::5]');
    await assert.rejects(checkWebhookUrl('http://93.184.215.14/hook', allowed), /only those may be reached over http/);
    await assert.rejects(checkWebhookUrl('https://10.0.0.1/hook', allowed), /private/);
    assert.equal(refusalOf('::ffff:127.0.0.1', allowed, 'https:'), undefined, 'an IPv4-mapped address is matched as IPv4');
  });
});
