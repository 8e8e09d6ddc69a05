import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Response } from 'supertest';
import { testApp, NS } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';

const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page's CSP directives, by name. */
function cspOf(res: Response): Map<string, string[]> {
  const header = res.headers['content-security-policy'];
  assert.equal(typeof header, 'string', 'a Content-Security-Policy header');
  return new Map(
    (header as string)
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...values]) => [name!, values]),
  );
}

/** `src`/`href` values of the page's scripts and stylesheets. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}

describe('GET /docs (route)', () => {
  it('serves an HTML page that loads Swagger UI and its initializer from /docs/, by relative URLs', async () => {
    const { http } = await testApp();
    const res = await http().get('/docs');
    expectStatus(res, 200);
    assert.match(res.headers['content-type'] ?? '', /^text\/html; charset=utf-8/);
    // Cached as any anonymous read (docs/contract.md §19; every case: test/api/caching/cache-headers.test.ts).
    assert.equal(res.headers['cache-control'], 'public, max-age=60, stale-while-revalidate=300, stale-if-error=300');
    const urls = assetUrls(res.text);
    assert.deepEqual(urls.sort(), ['docs/docs-page.js', 'docs/favicon-16x16.png', 'docs/favicon-32x32.png', 'docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']);
    // Nothing from another origin, and no inline script (the CSP would refuse it anyway).
    assert.doesNotMatch(res.text, /https?:\/\//);
    assert.doesNotMatch(res.text, /<script>(?!<\/script>)/);
    assert.match(res.text, /data-document-url="wp-json\/tribe\/events\/v1\/doc"/);
    assert.match(res.text, /data-namespace-url="wp-json\/tribe\/events\/v1"/);
  });

  it('every asset the page names is served with its content type', async () => {
    const { http } = await testApp();
    const page = await http().get('/docs');
    const expected: Record<string, RegExp> = {
      'docs/swagger-ui.css': /^text\/css\b/,
      'docs/swagger-ui-bundle.js': /^(text|application)\/javascript\b/,
      'docs/docs-page.js': /^(text|application)\/javascript\b/,
      'docs/favicon-16x16.png': /^image\/png$/,
      'docs/favicon-32x32.png': /^image\/png$/,
    };
    for (const url of assetUrls(page.text)) {
      const res = await http().get(`/${url}`).buffer(true);
      expectStatus(res, 200);
      assert.match(res.headers['content-type'] ?? '', expected[url]!, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.ok(Number(res.headers['content-length']) > 100 || (res.text ?? '').length > 100, `${url} has content`);
    }
    // The bundle is the installed one, byte for byte.
    const bundle = await http().get('/docs/swagger-ui-bundle.js').buffer(true);
    assert.equal(bundle.text, fs.readFileSync(path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), 'utf8'));
  });

  it('the initializer starts Swagger UI on the fetched document with "Try it out" pointed at this service, and no validator badge', async () => {
    const { http } = await testApp();
    const res = await http().get('/docs/docs-page.js').buffer(true);
    expectStatus(res, 200);
    assert.match(res.text, /fetch\(documentUrl/);
    assert.match(res.text, /spec\.servers = \[\{ url: namespaceUrl\.href/);
    assert.match(res.text, /validatorUrl: null/);
    assert.match(res.text, /SwaggerUIBundle\(/);
  });

  it('sends a CSP that allows only this origin, no inline script or style, no eval and no upgrade-insecure-requests', async () => {
    const { http } = await testApp();
    for (const url of ['/docs', '/docs/swagger-ui-bundle.js', '/docs/docs-page.js']) {
      const csp = cspOf(await http().get(url));
      assert.deepEqual(csp.get('default-src'), ["'none'"], url);
      assert.deepEqual(csp.get('script-src'), ["'self'"], url);
      assert.deepEqual(csp.get('connect-src'), ["'self'"], url);
      assert.deepEqual(csp.get('img-src'), ["'self'", 'data:'], url);
      assert.deepEqual(csp.get('style-src'), ["'self'"], url);
      assert.equal(csp.has('upgrade-insecure-requests'), false, url);
      for (const [name, values] of csp) {
        assert.ok(!values.includes("'unsafe-eval'") && !values.includes("'unsafe-inline'"), `${url}: ${name} allows eval or inline code`);
        assert.ok(!values.some((value) => /^https?:|^\*$/.test(value)), `${url}: ${name} allows another origin`);
      }
    }
  });

  it("leaves the API routes with helmet's own CSP", async () => {
    const { http } = await testApp();
    const csp = cspOf(await http().get(`${NS}/`));
    assert.deepEqual(csp.get('default-src'), ["'self'"]);
  });

  it('redirects /docs/ (and /docs//) to /docs, so the relative asset URLs resolve under /docs/', async () => {
    const { http } = await testApp();
    for (const [url, location] of [
      ['/docs/', '../docs'],
      ['/docs//', '../../docs'],
    ] as const) {
      const res = await http().get(url).redirects(0);
      expectStatus(res, 301);
      assert.equal(res.headers.location, location);
      assert.equal(new URL(location, `http://x${url}`).pathname, '/docs', url);
    }
  });

  it('points at the document under BASE_PATH', async () => {
    for (const [basePath, documentUrl] of [
      ['/api', 'api/tribe/events/v1/doc'],
      ['', 'tribe/events/v1/doc'],
    ] as const) {
      const { http } = await testApp({ basePath });
      const res = await http().get('/docs');
      expectStatus(res, 200);
      assert.ok(res.text.includes(`data-document-url="${documentUrl}"`), basePath);
      // The URL the page will fetch is the service's own document.
      const doc = await http().get(`/${documentUrl}`);
      expectStatus(doc, 200);
      assert.equal(doc.body.openapi.slice(0, 2), '3.');
    }
  });

  it("answers 404 (the API's own rest_no_route) for files it does not serve, naming no file-system path", async () => {
    const { http } = await testApp();
    // swagger-ui-dist holds these, but the page does not need them (index.html and the initializer
    // load the petstore from the internet).
    const urls = ['/docs/nope.js', '/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json', '/docs/swagger-ui-bundle.js.map', '/docs/.npmignore', '/docs/a/b'];
    for (const url of urls) {
      const res = await http().get(url);
      expectStatus(res, 404);
      assert.equal(res.body.code, 'rest_no_route', url);
      assertNoPathLeak(res, url);
    }
  });

  it('cannot be walked out of with .. in any spelling', async () => {
    const { http } = await testApp();
    const urls = [
      '/docs/../package.json',
      '/docs/..%2Fpackage.json',
      '/docs/..%2fpackage.json',
      '/docs/%2e%2e/package.json',
      '/docs/%2e%2e%2fpackage.json',
      '/docs/%2E%2E%2F%2E%2E%2Fpackage.json',
      '/docs/..%5Cpackage.json',
      '/docs/..\\package.json',
      '/docs/%252e%252e%252fpackage.json',
      '/docs/swagger-ui.css/../../package.json',
      '/docs/..%2F..%2F..%2Fpackage.json',
      '/docs/..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd',
      '/docs/%2Fetc%2Fpasswd',
      '/docs/swagger-ui.css%00.png',
    ];
    for (const url of urls) {
      const res = await http().get(url);
      // No route at all, or (for a `..` the client or Express resolved first) the top-level file is
      // still not served; in no case a file's content.
      // Express resolves no `..` and decodes a parameter once: none of these is one of the served
      // names, so each is the API's ordinary 404, never a file's content.
      assert.equal(res.status, 404, url);
      assert.equal(res.body.code, 'rest_no_route', url);
      assert.doesNotMatch(res.text, /"name": "(tec-events-service|swagger-ui-dist)"|root:x:0:0/, url);
      assertNoPathLeak(res, url);
    }
  });
});

function assertNoPathLeak(res: Response, url: string): void {
  for (const fragment of [process.cwd(), SWAGGER_UI_DIR, 'node_modules', 'ENOENT', '/etc/']) {
    assert.ok(!res.text.includes(fragment), `${url}: the answer names "${fragment}"`);
  }
}
