/**
 * After `import-site` from a peer into an empty database: every record the peer has, read by id from
 * both sides (signed in as an administrator on each), compared field by field apart from URL origins
 * (docs/importing.md "How equal the copy is").
 *
 *   PEER_URL=http://127.0.0.1:8082 PEER_AUTH=admin:APP_PASSWORD \
 *   OURS_URL=http://127.0.0.1:8200 OURS_AUTH=cmp:SECRET node --import tsx scripts/import-site/compare.ts
 *
 * Prints, per type, how many records were equal and every field that differed with an example; exit
 * status 1 when a field differed that docs/importing.md does not list as one that cannot be equal.
 */
import { openSite, pages } from '../../src/importing/tec-site-http.js';
import { isKnownDifference } from '../../test/helpers/tec-site-server.js';

const NS = '/tribe/events/v1';
const peerUrl = (process.env.PEER_URL ?? 'http://127.0.0.1:8082').replace(/\/$/, '');
const oursUrl = (process.env.OURS_URL ?? 'http://127.0.0.1:8200').replace(/\/$/, '');

type Json = Record<string, unknown>;

function differences(a: unknown, b: unknown, path: string, out: Array<{ path: string; peer: unknown; ours: unknown }>): void {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    if (Array.isArray(a) !== Array.isArray(b)) {
      out.push({ path, peer: a, ours: b });
      return;
    }
    const keys = new Set([...Object.keys(a as Json), ...Object.keys(b as Json)]);
    for (const key of keys) differences((a as Json)[key], (b as Json)[key], `${path}.${Array.isArray(a) ? '*' : key}`, out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, peer: a, ours: b });
}

async function main(): Promise<void> {
  const peer = await openSite(peerUrl, { credentials: process.env.PEER_AUTH });
  const ours = await openSite(`${oursUrl}/wp-json${NS}`, { credentials: process.env.OURS_AUTH });
  const ids: Array<[string, string]> = [];
  const window = `start_date=${encodeURIComponent('1000-01-01 00:00:00')}&end_date=${encodeURIComponent('9999-12-31 23:59:59')}`;
  const statuses = 'status=publish,future,draft,pending,private';
  for (const collection of ['categories', 'tags'])
    for await (const page of pages(peer, `${NS}/${collection}?hide_empty=0`, collection, 50)) ids.push(...page.map((r): [string, string] => [collection, String(r.id)]));
  for (const collection of ['venues', 'organizers'])
    for await (const page of pages(peer, `${NS}/${collection}?${statuses}`, collection, 50)) ids.push(...page.map((r): [string, string] => [collection, String(r.id)]));
  const events = new Set<string>();
  for await (const page of pages(peer, `${NS}/events?${statuses}&${window}`, 'events', 50)) for (const r of page) events.add(String(r.id));
  for await (const page of pages(peer, `/wp/v2/tribe_events?_fields=id&${statuses}`, undefined, 100)) for (const r of page) events.add(String(r.id));
  ids.push(...[...events].map((id): [string, string] => ['events', id]));

  const byField = new Map<string, { count: number; example: unknown }>();
  const equal = new Map<string, number>();
  for (const [collection, id] of ids) {
    // URL origins aside: the service's own (`PUBLIC_URL`) and its site's (`SITE_URL`, the peer's or not).
    const origins = (body: unknown) => JSON.parse(JSON.stringify(body).split(peerUrl).join('ORIGIN').split(oursUrl).join('ORIGIN'));
    const a = origins((await peer.get(`${NS}/${collection}/${id}`)).body);
    const b = origins((await ours.get(`${NS}/${collection}/${id}`)).body);
    const out: Array<{ path: string; peer: unknown; ours: unknown }> = [];
    differences(a, b, collection, out);
    if (out.length === 0) equal.set(collection, (equal.get(collection) ?? 0) + 1);
    for (const d of out) {
      const seen = byField.get(d.path);
      byField.set(d.path, { count: (seen?.count ?? 0) + 1, example: seen?.example ?? { id, peer: d.peer, ours: d.ours } });
    }
  }
  const totals = new Map<string, number>();
  for (const [collection] of ids) totals.set(collection, (totals.get(collection) ?? 0) + 1);
  for (const [collection, total] of totals) console.log(`${collection}: ${equal.get(collection) ?? 0} of ${total} equal in every field`);
  let unexpected = 0;
  for (const [path, { count, example }] of [...byField].sort()) {
    const known = isKnownDifference(path);
    if (!known) unexpected++;
    console.log(`${known ? 'known ' : 'DIFFER'} ${path} (${count}): ${JSON.stringify(example).slice(0, 300)}`);
  }
  process.exit(unexpected ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
