/**
 * Records the answers of a peer (a real site running The Events Calendar, filled by
 * populate-peer.ts) that `import-site` reads, anonymously and as its administrator, into
 * test/fixtures/tec-site/peer.json, replayed by test/helpers/tec-site-server.ts (CI cannot build the peer).
 *
 *   PEER_URL=http://127.0.0.1:8082 PEER_AUTH=admin:APP_PASSWORD node --import tsx scripts/import-site/record-fixtures.ts
 *
 * It runs the import's own source through a recording proxy, so every page the importer reads is
 * recorded (and nothing else); the peer's origin becomes `{{ORIGIN}}`. Run `npm run format` after it.
 */
import http from 'node:http';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { openSite } from '../../src/importing/tec-site-http.js';
import { tecSiteSource } from '../../src/importing/tec-site.js';
import { ADMIN_CREDENTIALS, RECORDING_FILE, type SiteRecording } from '../../test/helpers/tec-site-server.js';

const peer = (process.env.PEER_URL ?? 'http://127.0.0.1:8082').replace(/\/$/, '');
const peerAuth = `Basic ${Buffer.from(process.env.PEER_AUTH ?? '').toString('base64')}`;
const KEPT_HEADERS = ['content-type', 'link', 'x-wp-total', 'x-wp-totalpages', 'x-tec-total', 'x-tec-totalpages'];
/** Records per page while recording: small, so that the fixtures hold several pages of each list. */
export const RECORDED_PER_PAGE = 10;

async function main(): Promise<void> {
  const recording: SiteRecording = { anonymous: {}, authenticated: {} };
  let proxyOrigin = '';
  const proxy = http.createServer(async (req, res) => {
    const authenticated = req.headers.authorization === `Basic ${Buffer.from(ADMIN_CREDENTIALS).toString('base64')}`;
    const upstream = await fetch(`${peer}${req.url}`, { headers: authenticated ? { authorization: peerAuth } : {}, redirect: 'manual' });
    const body = (await upstream.text()).split(peer).join('{{ORIGIN}}').split(peer.replace(/\//g, '\\/')).join('{{ORIGIN}}'.replace(/\//g, '\\/'));
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) headers[name] = value.split(peer).join('{{ORIGIN}}');
    }
    recording[authenticated ? 'authenticated' : 'anonymous'][req.url ?? '/'] = { status: upstream.status, headers, body };
    res.writeHead(upstream.status, Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.split('{{ORIGIN}}').join(proxyOrigin)])));
    res.end(body.split('{{ORIGIN}}').join(proxyOrigin));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyOrigin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  for (const credentials of [undefined, ADMIN_CREDENTIALS]) {
    const site = await openSite(proxyOrigin, { credentials });
    let count = 0;
    for await (const record of tecSiteSource(site, { perPage: RECORDED_PER_PAGE }).records()) count += record ? 1 : 0;
    console.log(`${credentials ? 'authenticated' : 'anonymous'}: ${count} records`);
  }
  proxy.close();
  // The home page is read for its `Link` header only.
  recording.anonymous['/'].body = '';
  fs.writeFileSync(RECORDING_FILE, `${JSON.stringify(recording, null, 1)}\n`);
  console.log(`wrote ${RECORDING_FILE}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
