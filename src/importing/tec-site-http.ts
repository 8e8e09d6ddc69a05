/**
 * Reading a site that runs The Events Calendar (docs/importing.md "Moving from WordPress"): finding its
 * REST API from the site's address, checking the credentials, and reading JSON pages. Every failure
 * to read is a `SiteError` with a message for the person running the import; the engine writes
 * nothing when the site cannot be opened, and stops (keeping what it wrote) when a page cannot be read.
 */

import { ANY_NETWORK } from '../core/outbound.js';
import { GetFailed, httpGet, type GetAnswer, type GetSettings } from './http-get.js';

/** A site that cannot be read as a source, told in one line (`status`: the site's HTTP status, when it answered). */
export class SiteError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

interface SiteOptions {
  /** `LOGIN:APPLICATION_PASSWORD` of a WordPress user (HTTP Basic), or none: what anyone sees. */
  credentials?: string;
  /** Time allowed for one request. */
  timeoutMs?: number;
  /**
   * The outbound rule's allowed networks (core/outbound.ts); default every network: the operator's own
   * `import-site` command may read a site on their network (docs/importing.md "Moving from WordPress").
   */
  allowedNetworks?: readonly string[];
}

/** An opened site: where its APIs are, and how to read them. */
export interface Site {
  /** The site's address (no trailing slash), the key of its imports. */
  home: string;
  /** The root of its REST API (`…/wp-json`). */
  apiRoot: string;
  /** The site's time zone: an IANA name, or a UTC offset in hours (WordPress's `gmt_offset`). */
  timezone: string | number;
  authenticated: boolean;
  /** A JSON answer of the REST API (`path` under the root: `/tribe/events/v1/events?page=2`), with its headers. */
  get(path: string): Promise<{ body: unknown; headers: GetAnswer['headers'] }>;
}

const NAMESPACE = 'tribe/events/v1';

/** Bytes of one answer read at most: a page of 50 events is about 300 KB. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** A GET, told as a SiteError when the site cannot be reached. */
/** The time limit of one request and the networks requests may reach. */
type Limits = Pick<GetSettings, 'timeoutMs' | 'allowedNetworks'>;

async function request(url: string, headers: Record<string, string>, limits: Limits): Promise<GetAnswer> {
  try {
    return await httpGet(url, { headers, ...limits, maxBytes: MAX_ANSWER_BYTES });
  } catch (err) {
    if (err instanceof GetFailed) throw new SiteError(`cannot reach ${url}: ${err.message}`);
    throw err;
  }
}

function jsonOf(res: GetAnswer, url: string): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new SiteError(`${url} did not answer JSON (HTTP ${res.status}): is it a WordPress site?`);
  }
}

const ok = (res: GetAnswer) => res.status >= 200 && res.status < 300;

/** The REST index of the site at `given`: `…/wp-json/`, found as WordPress says (the `Link` header of the home page) or at its usual place. */
async function findIndex(given: string, limits: Limits): Promise<{ apiRoot: string; index: Record<string, unknown> }> {
  const trimmed = given.replace(/\/+$/, '');
  const namespaced = trimmed.match(/^(.*\/wp-json)\/tribe\/events\/v1$/);
  const candidates = namespaced ? [namespaced[1]] : [`${trimmed}/wp-json`];
  if (!namespaced) {
    const home = await request(`${trimmed}/`, {}, limits);
    const link = /<([^>]+)>;\s*rel="https:\/\/api\.w\.org\/"/.exec(String(home.headers.link ?? ''))?.[1];
    if (link) candidates.unshift(link.replace(/\/+$/, ''));
  }
  for (const apiRoot of candidates) {
    const res = await request(`${apiRoot}/`, {}, limits);
    if (!ok(res)) continue;
    let index: unknown;
    try {
      index = jsonOf(res, `${apiRoot}/`);
    } catch {
      continue;
    }
    if (index && typeof index === 'object' && Array.isArray((index as { namespaces?: unknown }).namespaces)) return { apiRoot, index: index as Record<string, unknown> };
  }
  throw new SiteError(`${given} has no WordPress REST API (looked for ${candidates.map((c) => `${c}/`).join(' and ')})`);
}

/**
 * Opens a site: finds its REST API, checks that it runs The Events Calendar and, with credentials,
 * that they are accepted (a wrong password is told before anything is read or written).
 */
export async function openSite(given: string, options: SiteOptions = {}): Promise<Site> {
  if (!/^https?:\/\/[^/]/i.test(given)) throw new SiteError(`"${given}" is not an http(s) URL`);
  const limits: Limits = { timeoutMs: options.timeoutMs ?? 30_000, allowedNetworks: options.allowedNetworks ?? ANY_NETWORK };
  const { apiRoot, index } = await findIndex(given, limits);
  if (!(index.namespaces as unknown[]).includes(NAMESPACE)) throw new SiteError(`${given} does not run The Events Calendar: its REST API has no ${NAMESPACE}`);
  const headers: Record<string, string> = {};
  if (options.credentials !== undefined) {
    if (!options.credentials.includes(':')) throw new SiteError('--credentials must be LOGIN:APPLICATION_PASSWORD');
    headers.authorization = `Basic ${Buffer.from(options.credentials).toString('base64')}`;
    // Any request with wrong credentials is refused (401), on WordPress and on this service alike.
    const res = await request(`${apiRoot}/${NAMESPACE}/events?per_page=1`, headers, limits);
    if (!ok(res)) {
      let body: { message?: string } = {};
      try {
        body = jsonOf(res, `${apiRoot}/${NAMESPACE}/events`) as { message?: string };
      } catch {
        // No JSON: the status says enough.
      }
      throw new SiteError(`the site refused the credentials (HTTP ${res.status}${body.message ? `: ${body.message}` : ''})`);
    }
  }
  const get = async (path: string) => {
    const url = `${apiRoot}${path}`;
    const res = await request(url, headers, limits);
    const body = jsonOf(res, url);
    if (!ok(res)) throw new SiteError(`${url} answered HTTP ${res.status}: ${(body as { message?: string }).message ?? ''}`.trim(), res.status);
    return { body, headers: res.headers };
  };
  const home = String(index.home ?? index.url ?? apiRoot.replace(/\/wp-json$/, '')).replace(/\/+$/, '');
  const timezone = typeof index.timezone_string === 'string' && index.timezone_string !== '' ? index.timezone_string : Number(index.gmt_offset ?? 0);
  return { home, apiRoot, timezone, authenticated: options.credentials !== undefined, get };
}

/**
 * Every item of a paged list of the REST API, a page at a time: `key` names the list in a TEC answer
 * (`{events: [...], total_pages}`); without it the answer is the list (WordPress's own routes, whose
 * pages are counted by `X-WP-TotalPages`).
 */
export async function* pages(site: Site, path: string, key: string | undefined, perPage: number): AsyncGenerator<Array<Record<string, unknown>>> {
  const join = path.includes('?') ? '&' : '?';
  for (let page = 1; ; page++) {
    const { body, headers } = await site.get(`${path}${join}per_page=${perPage}&page=${page}`);
    const items = key === undefined ? body : (body as Record<string, unknown>)[key];
    if (!Array.isArray(items)) throw new SiteError(`${site.apiRoot}${path} did not answer a list${key ? ` of ${key}` : ''}`);
    yield items as Array<Record<string, unknown>>;
    const total = Number(key === undefined ? headers['x-wp-totalpages'] : ((body as { total_pages?: unknown }).total_pages ?? headers['x-tec-totalpages']));
    if (items.length === 0 || !(page < total)) return;
  }
}
