import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import type { Response } from 'supertest';

/**
 * Reading the public pages as a browser would (parse5 is the WHATWG HTML parser): elements, their
 * attributes and text, the JSON-LD blocks, the OpenGraph tags, and the checks every page must pass.
 */

type Node = DefaultTreeAdapterMap['node'];
export type Element = DefaultTreeAdapterMap['element'];

export interface ParsedPage {
  /** Every element, in document order. */
  all: Element[];
  byTag(tag: string): Element[];
  /** The `content` of `<meta property=...>` (OpenGraph) or `<meta name=...>`. */
  meta(key: string): string | undefined;
  /** The data of each `<script type="application/ld+json">`, parsed. */
  jsonLd: unknown[];
  /** `href` of every link in the body. */
  links: string[];
  html: string;
}

export function attr(element: Element, name: string): string | undefined {
  return element.attrs.find((a) => a.name === name)?.value;
}

export function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  if ('childNodes' in node) return node.childNodes.map((child) => textOf(child as Node)).join('');
  return '';
}

export function parsePage(html: string): ParsedPage {
  const all: Element[] = [];
  const visit = (node: Node) => {
    if ('tagName' in node) all.push(node);
    if ('childNodes' in node) for (const child of node.childNodes) visit(child as Node);
  };
  visit(parse(html) as unknown as Node);
  const byTag = (tag: string) => all.filter((element) => element.tagName === tag);
  return {
    all,
    byTag,
    meta: (key) => {
      const found = byTag('meta').find((m) => attr(m, 'property') === key || attr(m, 'name') === key);
      return found && attr(found, 'content');
    },
    jsonLd: byTag('script')
      .filter((s) => attr(s, 'type') === 'application/ld+json')
      .map((s) => JSON.parse(textOf(s))),
    links: byTag('a')
      .map((a) => attr(a, 'href'))
      .filter((href): href is string => href !== undefined),
    html,
  };
}

/**
 * What every page must be: HTML in UTF-8, English, one `<h1>`, the four landmarks once each, a
 * `<title>`, the plugin's discovery headers and WordPress's API link, its own CSP whose style hash is
 * that of the one inline stylesheet, no script that runs, and no `X-Robots-Tag`.
 */
export function checkPage(res: Response, apiRoot: string, status = 200): ParsedPage {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text?.slice(0, 300)}`);
  assert.match(res.headers['content-type'] ?? '', /^text\/html; charset=utf-8$/);
  checkHeaders(res, apiRoot);
  const page = parsePage(res.text);
  assert.equal(attr(page.byTag('html')[0]!, 'lang'), 'en');
  assert.equal(page.byTag('h1').length, 1, 'one h1');
  for (const landmark of ['header', 'nav', 'main', 'footer']) assert.ok(page.byTag(landmark).length >= 1, `a <${landmark}>`);
  assert.equal(page.byTag('main').length, 1, 'one main');
  assert.ok(textOf(page.byTag('title')[0]!).trim().length > 0, 'a title');
  for (const script of page.byTag('script')) assert.equal(attr(script, 'type'), 'application/ld+json', 'only JSON-LD data blocks');
  const styles = page.byTag('style');
  assert.equal(styles.length, 1, 'one inline stylesheet');
  const hash = crypto.createHash('sha256').update(textOf(styles[0]!)).digest('base64');
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /(^|; )default-src 'none'(;|$)/);
  assert.ok(csp.includes(`style-src 'sha256-${hash}'`), `the CSP allows the page's stylesheet: ${csp}`);
  assert.doesNotMatch(csp, /script-src|unsafe-inline|unsafe-eval/);
  for (const element of page.all) for (const { name } of element.attrs) assert.doesNotMatch(name, /^on|^style$/i, `<${element.tagName} ${name}>`);
  for (const link of page.links) assert.match(link, /^(https?:|webcal:|mailto:|tel:)/, `link ${link}`);
  return page;
}

/** The discovery headers (docs/contract.md §13), on GET and HEAD alike. */
export function checkHeaders(res: Response, apiRoot: string): void {
  assert.equal(res.headers['x-tec-api-version'], 'v1');
  assert.equal(res.headers['x-tec-api-root'], apiRoot);
  assert.equal(res.headers['x-tec-api-origin'], 'http://api.test');
  assert.match(String(res.headers.link), /<http:\/\/api\.test\/wp-json\/>; rel="https:\/\/api\.w\.org\/"/);
  assert.equal(res.headers['x-robots-tag'], undefined, 'pages may be indexed');
  assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
}
