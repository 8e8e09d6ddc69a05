import path from 'node:path';
import { createRequire } from 'node:module';
import { Router, type Response } from 'express';
import type { Config } from '../core/config.js';
import { NAMESPACE } from '../openapi/document.js';
import { escapeHtml } from '../records/pages/layout.js';
import { withoutCacheDirectives } from './shared/conditional-reads.js';

/** Where npm put swagger-ui-dist (the pinned version in package.json); found the same from src/ or dist/src/. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * The only files of swagger-ui-dist the page needs. Anything else under /docs/ (its petstore
 * index.html and initializer, package.json, `..` tricks) is not a file name here, so it is a 404.
 */
const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-16x16.png', 'favicon-32x32.png']);

/** Our own start-up script's name under /docs/ (scripts must be files: the CSP allows no inline script). */
const INITIALIZER = 'docs-page.js';

/**
 * The CSP of every /docs response, replacing helmet's API-wide one, which has `upgrade-insecure-requests`
 * (on a plain-http deployment the browser would fetch the assets over https and fail) and allows more
 * than the page needs. Everything comes from this service, and only what Swagger UI uses is allowed;
 * the browser test runs the page under this policy and fails on any violation the browser reports.
 * - scripts: the bundle and the initializer, as files. No inline script and no 'unsafe-eval' (the
 *   bundle's only `new Function` is a fallback for browsers without `globalThis`).
 * - styles: the stylesheet only. No 'unsafe-inline': React sets element styles through the DOM, which
 *   the CSP does not govern, and the bundle inserts no `<style>` elements.
 * - images: the stylesheet's icons are `data:` SVGs and PNGs. There are no web fonts.
 * - connect: the document and every "Try it out" call go to this same origin.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/**
 * `GET /docs`: an interactive reference of the OpenAPI document (Swagger UI, served from node_modules,
 * nothing from the internet). Outside the namespace, like /healthz, and outside the validated routes.
 *
 * Its answers are cached as any anonymous read (http/cache-policy.ts): the page, its script and the
 * pinned Swagger UI files change only with a new release.
 *
 * Every URL in the page is relative (`docs/...`, `wp-json/.../doc`), so it works unchanged behind a
 * proxy that mounts the service under a path prefix (a PUBLIC_URL with a path). The page loads the
 * service's own `GET {BASE_PATH}/tribe/events/v1/doc` and points "Try it out" at the namespace URL
 * as the browser sees it, not at the document's `servers` (that is PUBLIC_URL when set, which may be
 * another origin than the one the page was opened on, and the CSP would refuse it).
 */
export function docsPage(config: Config): Router {
  const namespacePath = `${config.basePath}/${NAMESPACE}`.replace(/^\//, '');
  const page = pageHtml({ documentUrl: `${namespacePath}/doc`, namespaceUrl: namespacePath });
  const router = Router();

  router.get('/docs', (req, res) => {
    setDocsHeaders(res);
    const trailingSlashes = /\/*$/.exec(pathOf(req.originalUrl))![0].length;
    // `/docs/` would make the page's relative URLs point under /docs/docs/: send the browser to /docs.
    if (trailingSlashes > 0) return res.redirect(301, `${'../'.repeat(trailingSlashes)}docs`);
    res.type('html').send(page);
  });

  router.get('/docs/:file', (req, res, next) => {
    const file = req.params.file;
    if (file === INITIALIZER) {
      setDocsHeaders(res);
      return res.type('text/javascript').send(INITIALIZER_SCRIPT);
    }
    if (!SWAGGER_UI_FILES.has(file)) return next();
    setDocsHeaders(res);
    // Only a fixed name from the set above reaches the file system; sendFile's own errors go to the
    // error middleware, whose answer names no path. Its 304 follows the service's rule (operations/shared/conditional-reads.ts).
    withoutCacheDirectives(req);
    // `cacheControl: false`: send's own `public, max-age=0` would win over the service's rule (http/cache-policy.ts).
    res.sendFile(file, { root: SWAGGER_UI_DIR, dotfiles: 'deny', cacheControl: false }, (err) => {
      if (err) next(err);
    });
  });

  return router;
}

function setDocsHeaders(res: Response): void {
  res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
}

function pathOf(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
}

function pageHtml({ documentUrl, namespaceUrl }: { documentUrl: string; namespaceUrl: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The Events Calendar REST API: reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" sizes="32x32" href="docs/favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="docs/favicon-16x16.png">
</head>
<body>
<div id="swagger-ui" data-document-url="${escapeHtml(documentUrl)}" data-namespace-url="${escapeHtml(namespaceUrl)}">Loading the API reference…</div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/${INITIALIZER}"></script>
</body>
</html>
`;
}

/**
 * Runs in the browser: fetches the document, replaces its `servers` with this service's namespace as
 * the browser reaches it (so "Try it out" calls this same service), then starts Swagger UI on it.
 * The validator badge is off: it would send the document to validator.swagger.io.
 */
const INITIALIZER_SCRIPT = `'use strict';
(() => {
  const root = document.getElementById('swagger-ui');
  const documentUrl = new URL(root.dataset.documentUrl, window.location.href);
  const namespaceUrl = new URL(root.dataset.namespaceUrl, window.location.href);
  fetch(documentUrl, { headers: { Accept: 'application/json' } })
    .then((response) => {
      if (!response.ok) throw new Error('GET ' + documentUrl + ' answered ' + response.status);
      return response.json();
    })
    .then((spec) => {
      spec.servers = [{ url: namespaceUrl.href, description: 'This service' }];
      root.textContent = '';
      window.ui = SwaggerUIBundle({
        spec,
        dom_id: '#swagger-ui',
        deepLinking: true,
        displayOperationId: true,
        validatorUrl: null,
        presets: [SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
      });
    })
    .catch((error) => {
      root.textContent = 'The API document could not be loaded: ' + error.message;
    });
})();
`;
