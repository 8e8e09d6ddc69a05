import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

/**
 * A site running The Events Calendar, replayed (docs/importing.md "Tests"): the answers of a real peer
 * recorded by scripts/import-site/record-fixtures.ts, served again on a local port, as an anonymous
 * visitor and as the administrator whose credentials were recorded (`ADMIN_CREDENTIALS`). Answers can
 * be changed or added per test (`override`) to make a site that changed, or holds a record that
 * breaks the service's rules. `{{ORIGIN}}` in a recorded answer is this server's own origin.
 */

export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface SiteRecording {
  /** Answers by request path and query, for anonymous requests and for the recorded administrator. */
  anonymous: Record<string, RecordedAnswer>;
  authenticated: Record<string, RecordedAnswer>;
}

export const ADMIN_CREDENTIALS = 'admin:recorded-app-password';

export const RECORDING_FILE = path.join(import.meta.dirname, '..', 'fixtures', 'tec-site', 'peer.json');

export function loadRecording(file = RECORDING_FILE): SiteRecording {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SiteRecording;
}

export interface ReplayedSite {
  origin: string;
  /** Requests served, as `anonymous|authenticated path`. */
  requests: string[];
  /** Changes one answer's JSON body (both views unless `view` is given). */
  override(pathAndQuery: string, change: (body: unknown) => unknown, view?: keyof SiteRecording): void;
  close(): Promise<void>;
}

/** Serves a recording (or a synthetic site: `answer` decides first, undefined to fall back). */
export async function replaySite(recording: SiteRecording, answer?: (pathAndQuery: string, authenticated: boolean) => RecordedAnswer | undefined): Promise<ReplayedSite> {
  const copy: SiteRecording = JSON.parse(JSON.stringify(recording));
  const requests: string[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization;
    const authenticated = auth === `Basic ${Buffer.from(ADMIN_CREDENTIALS).toString('base64')}`;
    const url = req.url ?? '/';
    requests.push(`${authenticated ? 'authenticated' : 'anonymous'} ${url}`);
    if (auth && !authenticated) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'incorrect_password', message: 'The provided password is an invalid application password.', data: { status: 401 } }));
      return;
    }
    const found = answer?.(url, authenticated) ?? copy[authenticated ? 'authenticated' : 'anonymous'][url];
    if (!found) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'rest_no_route', message: `not recorded: ${url}`, data: { status: 404 } }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(found.headers).map(([k, v]) => [k, v.split('{{ORIGIN}}').join(origin)]));
    res.writeHead(found.status, headers);
    res.end(found.body.split('{{ORIGIN}}').join(origin));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    override(pathAndQuery, change, view) {
      const views = (view ? [view] : (['anonymous', 'authenticated'] as const)).filter((which) => copy[which][pathAndQuery]);
      if (views.length === 0) throw new Error(`not recorded: ${pathAndQuery}`);
      for (const which of views) copy[which][pathAndQuery].body = JSON.stringify(change(JSON.parse(copy[which][pathAndQuery].body)));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Fields of a record read by id that cannot be equal between the plugin and an import of it
 * (docs/importing.md "How equal the copy is"): paths as `type.field` (`*`: any list item).
 */
export const KNOWN_DIFFERENCES = [
  // The service's documented answers (docs/contract.md §3, §12, §14):
  'events.json_ld',
  'venues.json_ld',
  'organizers.json_ld',
  'events.venue.json_ld',
  'events.organizer.*.json_ld',
  'events.custom_fields',
  // An event without a website: the plugin answers its permalink, the service "" (docs/contract.md §3).
  'events.website',
  'events.series_id',
  'events.managed_by',
  'categories._links',
  'tags._links',
  // Drafts: WordPress gives them no slug, no pretty URL and `0000-00-00 00:00:00` UTC dates.
  'events.slug',
  'events.url',
  'events.date_utc',
  'events.modified_utc',
  'venues.url',
  'venues.date_utc',
  'venues.modified_utc',
  'organizers.url',
  'organizers.date_utc',
  'organizers.modified_utc',
  // Not in the plugin's answer, so not carried: an image's file size, a cost as written.
  'events.image.filesize',
  'events.cost',
  'events.cost_details.values',
];

/** Whether a difference at `path` is one of KNOWN_DIFFERENCES. */
export function isKnownDifference(path: string): boolean {
  return KNOWN_DIFFERENCES.some((known) => path === known || path.startsWith(`${known}.`));
}
