import type { ApiDocument } from '../openapi/document.js';
import type { Urls } from '../core/urls.js';

/**
 * `GET /doc`: the bundled document (generated/openapi.yaml) itself, with `servers` set to this
 * request's real namespace URL (scheme, host and port; PUBLIC_URL wins), so SDK generators pointed at
 * it work as they are.
 */
export function documentationFor(document: ApiDocument, urls: Urls): ApiDocument {
  return { ...document, servers: [{ url: urls.namespace, description: 'This service' }] };
}
