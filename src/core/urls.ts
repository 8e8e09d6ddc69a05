import type { Request } from 'express';
import type { Config } from './config.js';
import { NAMESPACE } from '../openapi/document.js';

/**
 * Absolute URLs for one request. PUBLIC_URL wins over the request's Host (docs/contract.md §1), and the site
 * URL (permalinks, global ids) defaults to the public URL.
 */
export class Urls {
  /** `http://host:port` (+ any path prefix of PUBLIC_URL). */
  readonly origin: string;
  /** `{origin}{BASE_PATH}`: the REST root, e.g. `http://host:8080/wp-json`. */
  readonly restRoot: string;
  /** `{restRoot}/tribe/events/v1`. */
  readonly namespace: string;
  /** The public site, for permalinks such as `{site}/event/{slug}/`. */
  readonly site: string;

  constructor(config: Config, req: Request) {
    this.origin = requestOrigin(config, req);
    this.restRoot = `${this.origin}${config.basePath}`;
    this.namespace = `${this.restRoot}/${NAMESPACE}`;
    this.site = config.siteUrl ?? this.origin;
  }

  /** `{namespace}/{collection}` (no trailing slash), e.g. `.../categories`. */
  collection(name: string): string {
    return `${this.namespace}/${name}`;
  }

  /** `{namespace}/{collection}/{id}`. */
  item(name: string, id: number): string {
    return `${this.namespace}/${name}/${id}`;
  }

  /** A permalink on the public site: `{site}/{segments...}/` with each segment URL-encoded (`encodeSegment`). */
  permalink(...segments: string[]): string {
    return `${this.site}/${segments.map(encodeSegment).join('/')}/`;
  }

  /**
   * `global_id`: the host (and path) of the site URL, then `?id=N` (the plugin's Global_ID::generate).
   * The port is not part of it, as in the plugin.
   */
  globalId(id: number): string {
    const site = new URL(this.site);
    return `${site.hostname}${site.pathname.replace(/\/+$/, '')}?id=${id}`;
  }
}

/** The origin of a request's URLs: PUBLIC_URL, else the request's scheme and Host. Everything in `Urls` follows from it. */
export function requestOrigin(config: Config, req: Request): string {
  return config.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/**
 * A path segment of a permalink as WordPress writes a slug into a link: a slug is stored already
 * percent-encoded (`%e3%82%a4...`, text/slugs.ts), so its `%xx` octets are kept; anything else is
 * encoded (a slug stored before slugs were encoded, such as `smørrebrød`). Hex in lower case, as
 * WordPress's, so the same slug, given decoded or encoded, always gives the same link.
 */
function encodeSegment(segment: string): string {
  return segment
    .split(/(%[0-9a-fA-F]{2})/)
    .map((part, index) => (index % 2 === 1 ? part : encodeURIComponent(part)).replace(/%[0-9A-F]{2}/g, (octet) => octet.toLowerCase()))
    .join('');
}
