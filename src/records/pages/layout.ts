import crypto from 'node:crypto';

/**
 * The frame every public page shares (docs/contract.md §13): the document head (title, description,
 * canonical URL, OpenGraph, the plugin's discovery meta tags, the record's JSON-LD), the landmarks
 * (`header`, `nav`, `main`, `footer`) and one inline stylesheet. Pure functions of their arguments;
 * every value that reaches the markup goes through `escapeHtml` or `jsonLdScript`.
 */

/** Text for an element's content or a quoted attribute value: the five characters HTML gives meaning to, as references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A JSON-LD data block. The JSON is made safe for the inside of a `<script>` element: `<`, `>` and
 * `&` are written as `\u003c`, `\u003e`, `\u0026` (so neither `</script>` nor `<!--` can appear), and
 * the two line separators JavaScript once refused as `\u2028`/`\u2029`. The value parses to the same data.
 */
export function jsonLdScript(data: unknown): string {
  const json = JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `<script type="application/ld+json">${json}</script>`;
}

/** `webcal://` form of an http(s) feed URL: calendar apps open it as a subscription. */
export function webcalUrl(url: string): string {
  return url.replace(/^https?:\/\//, 'webcal://');
}

/**
 * The one stylesheet, inline: system fonts, a readable measure, and colours with at least 7:1
 * contrast for text (WCAG AAA) and visible focus outlines. Its hash is the only style the CSP allows.
 */
const STYLE = `
:root{color-scheme:light;--ink:#1b1b1f;--muted:#4a4a55;--line:#d5d5dc;--brand:#14365c;--link:#0b4f9c;--bg:#fff;--soft:#f3f4f7}
*{box-sizing:border-box}
body{margin:0;font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--link);text-underline-offset:.15em}
a:focus-visible{outline:3px solid #c24e00;outline-offset:2px}
.wrap{max-width:46rem;margin:0 auto;padding:0 1.25rem}
header.site{background:var(--brand);color:#fff}
header.site .wrap{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:.5rem 1.5rem;padding-top:.9rem;padding-bottom:.9rem}
header.site a{color:#fff}
.site-name{font-weight:700;font-size:1.15rem;text-decoration:none}
nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
main{padding-top:1.5rem;padding-bottom:2.5rem}
h1{font-size:2rem;line-height:1.2;margin:.2rem 0 .8rem}
h2{font-size:1.3rem;margin:2rem 0 .6rem}
.kicker{margin:0;color:var(--muted);font-size:.95rem;text-transform:uppercase;letter-spacing:.06em}
.when{font-size:1.15rem;font-weight:600;margin:0 0 1rem}
.recurrence{margin:-.5rem 0 1rem;color:var(--muted)}
.notice{background:var(--soft);border-left:4px solid var(--brand);padding:.8rem 1rem}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin:1.2rem 0;padding:0;list-style:none}
.button{display:inline-block;padding:.45rem .9rem;border:2px solid var(--link);border-radius:.4rem;text-decoration:none;font-weight:600}
.button.primary{background:var(--link);color:#fff}
.feature{max-width:100%;height:auto;border-radius:.4rem}
.description img{max-width:100%;height:auto}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.2rem;margin:1.2rem 0}
dl.facts dt{font-weight:700}
dl.facts dd{margin:0}
ol.events{list-style:none;margin:0;padding:0}
ol.events li{border-top:1px solid var(--line);padding:1rem 0}
ol.events :is(h2,h3){margin:0 0 .2rem;font-size:1.2rem}
ol.events p{margin:.1rem 0;color:var(--muted)}
.pager{display:flex;justify-content:space-between;margin-top:1.5rem}
footer.site{border-top:1px solid var(--line);color:var(--muted);font-size:.9rem}
footer.site .wrap{padding-top:1rem;padding-bottom:1.5rem}
`.trim();

const STYLE_HASH = `'sha256-${crypto.createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The CSP of every page, replacing helmet's API-wide one: nothing runs (no `script-src`: the JSON-LD
 * block is data, which browsers never execute), the one stylesheet is allowed by its hash, images may
 * come from anywhere over http(s) (records name images on other hosts), and the page may not be framed
 * by others, change its base URL or send forms.
 */
export const PAGE_CSP = ["default-src 'none'", `style-src ${STYLE_HASH}`, 'img-src https: http: data:', "base-uri 'none'", "form-action 'none'", "frame-ancestors 'self'"].join(
  '; ',
);

/** What the frame of a page needs to know about the site. */
export interface SiteFrame {
  /** The site's name, plain text. */
  name: string;
  /** `{site}/events/`: the home of the pages. */
  eventsUrl: string;
  /** The site URL (`X-TEC-API-ORIGIN`, the discovery meta tag). */
  origin: string;
  /** The REST root, `{public}/wp-json/`. */
  restRoot: string;
}

/** One page's head and content. */
export interface PageParts {
  /** Plain text (unescaped): `<title>`, `og:title`. */
  title: string;
  /** Plain text (unescaped), or empty: the meta description and `og:description`. */
  description: string;
  /** The canonical URL: `og:url` and `<link rel="canonical">` (none on a 404). */
  url?: string;
  /** `og:type`. */
  type: 'website' | 'article';
  /** An absolute image URL for `og:image`. */
  image?: string;
  /** The REST URL of what the page shows (`X-TEC-API-ROOT`, `<link rel="alternate">`). */
  apiUrl: string;
  /** The schema.org data of the page, if any. */
  jsonLd?: unknown;
  /** The content of `<main>`, already escaped. */
  main: string;
}

/** A whole page. */
export function renderPage(site: SiteFrame, page: PageParts): string {
  const meta = (property: string, content: string | undefined) => (content ? `<meta property="${property}" content="${escapeHtml(content)}">\n` : '');
  // Cut by code points, so no character is split in two.
  const characters = [...page.description];
  const description = characters.length > 300 ? `${characters.slice(0, 297).join('').trimEnd()}…` : page.description;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · ${escapeHtml(site.name)}</title>
${description ? `<meta name="description" content="${escapeHtml(description)}">\n` : ''}${page.url ? `<link rel="canonical" href="${escapeHtml(page.url)}">\n` : ''}<meta name="tec-api-version" content="v1">
<meta name="tec-api-origin" content="${escapeHtml(site.origin)}">
<link rel="alternate" type="application/json" href="${escapeHtml(page.apiUrl)}">
<link rel="https://api.w.org/" href="${escapeHtml(site.restRoot)}">
<link rel="icon" href="data:,">
${meta('og:site_name', site.name)}${meta('og:title', page.title)}${meta('og:type', page.type)}${meta('og:url', page.url)}${meta('og:description', description)}${meta('og:image', page.image)}<style>${STYLE}</style>
${page.jsonLd === undefined ? '' : `${jsonLdScript(page.jsonLd)}\n`}</head>
<body>
<header class="site"><div class="wrap">
<a class="site-name" href="${escapeHtml(site.eventsUrl)}">${escapeHtml(site.name)}</a>
<nav aria-label="Site"><ul><li><a href="${escapeHtml(site.eventsUrl)}">Upcoming events</a></li><li><a href="${escapeHtml(site.restRoot)}">API</a></li></ul></nav>
</div></header>
<main id="content"><div class="wrap">
${page.main}
</div></main>
<footer class="site"><div class="wrap">
<p>${escapeHtml(site.name)}. This page as data: <a href="${escapeHtml(page.apiUrl)}">the REST API</a>.</p>
</div></footer>
</body>
</html>
`;
}
