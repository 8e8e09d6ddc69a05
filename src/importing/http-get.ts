import http from 'node:http';
import https from 'node:https';
import { checkedLookup, checkOutboundUrlNow, hostOf, REFUSED_ADDRESS, UnsafeDestination } from '../core/outbound.js';

/**
 * One GET of a source (node:http, not fetch: docs/performance.md "Memory"), under the outbound rule
 * (core/outbound.ts, docs/settings.md "Outbound requests"): the URL of every hop, redirects
 * included, is checked before connecting, and the addresses a host name resolves to are checked at
 * connect time; at most `maxBytes` of the answer are read, the whole GET (every hop) ends within
 * `timeoutMs`, and at most a few redirects are followed.
 */

export interface GetAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Why a GET got no answer: the network, the time limit, too many redirects or too large an answer. */
export class GetFailed extends Error {}

/** A GET the outbound rule refused: the URL, a redirect or an address its host resolved to. */
export class GetRefused extends GetFailed {}

/** Bytes of an answer read, past `maxBytes`: the answer is too large. */
export class GetTooLarge extends GetFailed {}

export interface GetSettings {
  headers?: Record<string, string>;
  /** Time the whole GET may take, redirects included. */
  timeoutMs: number;
  /** Bytes of an answer read at most. */
  maxBytes: number;
  maxRedirects?: number;
  /** Networks the GET may reach although not globally reachable, the only ones over http (config.outbound.allowedNetworks). */
  allowedNetworks: readonly string[];
}

export async function httpGet(url: string, settings: GetSettings): Promise<GetAnswer> {
  const deadline = Date.now() + settings.timeoutMs;
  let target = checked(url, settings);
  for (let redirects = 0; ; redirects++) {
    const answer = await getOnce(target, settings, deadline);
    const location = answer.headers.location;
    if (answer.status < 300 || answer.status >= 400 || !location) return answer;
    if (redirects >= (settings.maxRedirects ?? 5)) throw new GetFailed('too many redirects');
    const next = checked(new URL(location, target).href, settings, 'a redirect to ');
    // Credentials go only to the host they were given for.
    if (next.host !== target.host) settings = { ...settings, headers: { ...settings.headers, authorization: '' } };
    target = next;
  }
}

/** The URL, when the outbound rule lets it be fetched (its host name is checked again when connecting). */
function checked(url: string, settings: GetSettings, what = ''): URL {
  try {
    return checkOutboundUrlNow(url, settings.allowedNetworks);
  } catch (err) {
    if (err instanceof UnsafeDestination) throw new GetRefused(`${what}${url}: ${err.message}`);
    throw err;
  }
}

function getOnce(target: URL, settings: GetSettings, deadline: number): Promise<GetAnswer> {
  const headers = Object.fromEntries(Object.entries({ accept: 'application/json', ...settings.headers }).filter(([, value]) => value !== ''));
  const seconds = settings.timeoutMs / 1000;
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).get(
      {
        protocol: target.protocol,
        hostname: hostOf(target),
        port: target.port === '' ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        headers,
        timeout: settings.timeoutMs,
        // A connection of its own, to the address checked for it.
        agent: false,
        lookup: checkedLookup(settings.allowedNetworks, target.protocol),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > settings.maxBytes) {
            request.destroy(new GetTooLarge(`the answer is larger than ${settings.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
      },
    );
    const timer = setTimeout(() => request.destroy(new GetFailed(`no answer within ${seconds} s`)), Math.max(0, deadline - Date.now()));
    function fail(err: NodeJS.ErrnoException): void {
      clearTimeout(timer);
      if (err instanceof GetFailed) reject(err);
      else if (err.code === REFUSED_ADDRESS) reject(new GetRefused(`${target.href}: ${err.message}`));
      else reject(new GetFailed(err.code ?? err.message));
    }
    request.on('timeout', () => request.destroy(new GetFailed(`no answer within ${seconds} s`)));
    request.on('error', fail);
  });
}
