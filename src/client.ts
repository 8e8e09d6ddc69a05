import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';

/**
 * A typed client for TypeScript consumers, with no code generation beyond the project's own
 * `generated/openapi.d.ts`: openapi-fetch checks paths, parameters, bodies and responses against
 * those types at compile time and sends plain `fetch` requests. The service itself never imports
 * this module. To use it elsewhere, copy this file and generated/openapi.d.ts and install
 * openapi-fetch (see docs/sdks.md "Client SDKs").
 */
export type EventsClient = Client<paths>;

/** An application password, sent as HTTP Basic (`login:secret`) or as a bearer token. */
export type Credentials = { login: string; secret: string } | { bearer: string };

/**
 * @param baseUrl the namespace URL, as `GET …/doc` reports it in `servers[0].url`, e.g.
 *   `http://127.0.0.1:8080/wp-json/tribe/events/v1`.
 * @param auth credentials for writes and non-public reads; none for anonymous reads.
 * @param options further openapi-fetch options (a custom `fetch`, headers...).
 */
export function createEventsClient(baseUrl: string, auth?: Credentials, options: Omit<ClientOptions, 'baseUrl'> = {}): EventsClient {
  const headers = new Headers(options.headers as HeadersInit | undefined);
  if (auth) headers.set('Authorization', 'bearer' in auth ? `Bearer ${auth.bearer}` : `Basic ${base64(`${auth.login}:${auth.secret}`)}`);
  return createClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, ''), headers });
}

/** Base64 of the UTF-8 bytes, in browsers and Node alike (`btoa` alone rejects non-Latin-1 text). */
function base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
