import sanitizeHtml from 'sanitize-html';
import { autop } from '@wordpress/autop';
import { Tokenizer, type Token, type TokenHandler } from 'parse5';
import { htmlStructureMessage, MAX_HTML_ELEMENTS, withinStructureBounds, type HtmlElementBudget } from './html-structure.js';

/**
 * sanitize-html over HTML within the structural bounds (text/html-structure.ts): every cleaner goes
 * through here, so none ever sees nesting whose cost grows with its square, whatever is stored (rows
 * written before the bounds, or by a user with `unfiltered_html`).
 */
function clean(html: string, options: sanitizeHtml.IOptions): string {
  return sanitizeHtml(withinStructureBounds(html), options);
}

/**
 * Calls of the functions that make what a read shows of a stored text (`autoParagraph`, `plainText`,
 * `sanitizePageHtml`, `htmlToText`). They run when a text is written (text/rendered-forms.ts,
 * db/rendered-texts.ts, text/plain-forms.ts); tests count them over reads, which make none
 * (test/integration/rendered-texts.test.ts, test/integration/plain-texts.test.ts).
 */
export const renderCalls = { count: 0 };

/**
 * HTML from users without `unfiltered_html` (everybody below editor) is cleaned on write, as
 * WordPress's kses does: no `<script>`/`<style>`, no event-handler attributes, no `javascript:` URLs.
 * As kses, it removes the tags of an element it does not allow and keeps their text (a `<script>`'s
 * text stays as escaped text; docs/contract.md §3).
 */
export function sanitizeUserHtml(html: string): string {
  return clean(html, {
    // The defaults have `span` already, and `img`'s attributes below.
    allowedTags: sanitizeHtml.defaults.allowedTags.concat(['img', 'del', 'ins']),
    allowedAttributes: {
      ...sanitizeHtml.defaults.allowedAttributes,
      '*': ['class', 'id', 'title', 'lang', 'dir'],
      // `title` is allowed on every element (above).
      img: ['src', 'srcset', 'alt', 'width', 'height', 'loading'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    nonTextTags: [],
  });
}

/**
 * A term description, whoever writes it (administrators too): WordPress runs every term description
 * through kses with its small set of inline tags (`$allowedtags`), keeping the text of the elements
 * it removes (docs/contract.md §3).
 */
function sanitizeTermHtml(html: string): string {
  return clean(html, {
    allowedTags: ['a', 'abbr', 'acronym', 'b', 'blockquote', 'cite', 'code', 'del', 'em', 'i', 'q', 's', 'strike', 'strong'],
    allowedAttributes: { a: ['href', 'title', 'target'], abbr: ['title'], acronym: ['title'], blockquote: ['cite'], del: ['datetime'], q: ['cite'] },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    nonTextTags: [],
  });
}

/** How a write cleans an HTML field: kept as sent (`unfiltered_html`), or by one of the cleaners above. */
type HtmlCleaning = 'unfiltered' | 'post' | 'term';

const CLEANERS: Record<Exclude<HtmlCleaning, 'unfiltered'>, (html: string) => string> = { post: sanitizeUserHtml, term: sanitizeTermHtml };

/** HTML sent in a write: the value to store, or why the field is refused (a 400 naming it). */
type HtmlInput = { value: string } | { problem: string };

/**
 * The one check of HTML sent for a field (`field`, its body name: `description`, `excerpt`): refused
 * past the structural bounds whoever sends it (docs/limits.md "HTML in descriptions"), or when it
 * does not fit in what remains of the request's `budget`, before any cleaner runs; otherwise kept as
 * sent or cleaned, as `cleaning` says.
 */
export function htmlInput(field: string, html: string, cleaning: HtmlCleaning, budget: HtmlElementBudget): HtmlInput {
  const problem = htmlStructureMessage(field, html);
  if (problem !== undefined) return { problem };
  if (!budget.take(html)) return { problem: `${field} brings the HTML fields of this request to more than ${MAX_HTML_ELEMENTS} elements together.` };
  return { value: cleaning === 'unfiltered' ? html : CLEANERS[cleaning](html) };
}

/** Elements a description may not bring into a page: the page's own landmarks and its one `<h1>`. */
const PAGE_LANDMARKS = new Set(['h1', 'main', 'nav', 'header', 'footer', 'aside', 'hgroup']);

/**
 * HTML of a description as a public page shows it (docs/contract.md §13), whoever wrote it: only
 * formatting, links and images survive, with http(s)/mailto/tel URLs; no scripts, styles, frames,
 * forms, event handlers or ids. Headings move one level down, so the page keeps its one `<h1>`, and
 * links are marked as user content that search engines should not credit.
 */
export function sanitizePageHtml(html: string): string {
  renderCalls.count++;
  return clean(html, {
    allowedTags: sanitizeHtml.defaults.allowedTags.filter((tag) => !PAGE_LANDMARKS.has(tag)).concat(['img', 'del', 'ins', 'span']),
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height', 'loading'],
      '*': ['lang', 'dir'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    transformTags: {
      h1: 'h2',
      a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener' }),
      img: sanitizeHtml.simpleTransform('img', { loading: 'lazy' }),
    },
  });
}

/**
 * WordPress's `wpautop` (through its own JavaScript port): plain `Text` becomes `<p>Text</p>`, single
 * line breaks `<br />`. Applied to descriptions and excerpts when written, trimmed as the plugin does; to
 * HTML within the structural bounds, as every cleaner here (its many passes over a stored row of
 * 150,000 tags took 150 ms).
 */
export function autoParagraph(text: string): string {
  renderCalls.count++;
  // One line of text without markup: every pass of autop leaves `<p>text</p>` (test/unit/html-fast-paths.test.ts
  // compares the two on random text), at a fraction of the cost of its 20-odd regular expressions.
  if (!MARKUP_OR_LINE_BREAK.test(text)) return text.trim() === '' ? '' : `<p>${text}</p>`;
  return autop(withinStructureBounds(text)).trim();
}

/** A `<` (a tag, a comment), or a line break: what autop looks at beyond wrapping the text in `<p>`. */
const MARKUP_OR_LINE_BREAK = /[<\n\r]/;

/** Text without tags, for JSON-LD descriptions. */
export function plainText(html: string): string {
  renderCalls.count++;
  // No tag and no character reference: sanitize-html gives the text back as it is, so only the
  // spaces are left to collapse (test/unit/html-fast-paths.test.ts compares the two on random text).
  if (!MARKUP_OR_REFERENCE.test(html)) return collapseSpaces(html);
  return withoutTags(html);
}

/** What sanitize-html would change or escape in text: a tag, `>` and a character reference. */
const MARKUP_OR_REFERENCE = /[<>&]/;

function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function withoutTags(html: string): string {
  // Stryker disable next-line ArrayDeclaration: a tag name that cannot exist allows nothing either.
  return collapseSpaces(clean(html, { allowedTags: [], allowedAttributes: {} }));
}

const BLOCK_ELEMENTS = new Set(['p', 'div', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'tr', 'table', 'section', 'article', 'header', 'footer']);

/**
 * Comments, elements whose content is not text for a reader (with that content), tags (attribute
 * values may hold `>` when quoted), doctypes and processing instructions. A `<` that starts none of
 * them is text. Each of them ends at its end or at the end of the text, as in HTML (an unclosed tag
 * or quote takes the rest): a match that could fail after reading to the end would be tried again
 * from every later `<`, which costs the square of the text's length (`'<a '.repeat(40000)` took 1.4 s).
 */
const MARKUP =
  /<!--[\s\S]*?(?:-->|$)|<(script|style|template|noscript)\b(?:[^>"']|"[^"]*(?:"|$)|'[^']*(?:'|$))*(?:>|$)[\s\S]*?(?:<\/\1\s*>|$)|<\/?([A-Za-z][A-Za-z0-9-]*)(?:[^>"']|"[^"]*(?:"|$)|'[^']*(?:'|$))*(?:>|$)|<[!?][^>]*(?:>|$)/gi;

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/** Named references already decoded (parse5's tokenizer knows the whole HTML table; asked once per name). */
const namedReferences = new Map<string, string>([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', '\u00a0'],
]);

function decodeNamed(name: string): string {
  let decoded = namedReferences.get(name);
  // Stryker disable all: computed once per name per process, which outlives a mutant (htmlToText's tests check it in a fresh process).
  if (decoded === undefined) {
    decoded = '';
    const collect = (token: Token.CharacterToken) => {
      decoded += token.chars;
    };
    const handler: TokenHandler = {
      onCharacter: collect,
      onWhitespaceCharacter: collect,
      onNullCharacter() {},
      onStartTag() {},
      onEndTag() {},
      onComment() {},
      onDoctype() {},
      onEof() {},
    };
    new Tokenizer({ sourceCodeLocationInfo: false }, handler).write(`&${name};`, true);
    if (namedReferences.size < 2048) namedReferences.set(name, decoded);
  }
  // Stryker restore all
  return decoded;
}

function decodeCodePoint(code: number): string {
  // What HTML does with references to nothing: U+FFFD.
  return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
}

/**
 * Text of HTML for a plain-text reader (an iCalendar DESCRIPTION): tags, comments and the content
 * of `<script>`/`<style>` dropped, `<br>` a line break and block elements (paragraphs, list items,
 * headings) separated by a blank line, character references decoded; runs of spaces collapsed, at
 * most one blank line in a row, ends trimmed. A scanner rather than a parser, so a feed of
 * thousands of descriptions stays fast; named references are decoded by parse5's tokenizer.
 */
export function htmlToText(html: string): string {
  renderCalls.count++;
  let text = withinStructureBounds(html);
  text = text.replace(MARKUP, (_markup, _skipped: string | undefined, tag: string | undefined) => {
    if (!tag) return ' ';
    const name = tag.toLowerCase();
    return name === 'br' ? '\n' : BLOCK_ELEMENTS.has(name) ? '\n\n' : '';
  });
  text = text
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text.replace(REFERENCE, (reference, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (decimal !== undefined) return decodeCodePoint(Number(decimal));
    if (hex !== undefined) return decodeCodePoint(parseInt(hex, 16));
    const decoded = decodeNamed(name as string);
    // A name the tokenizer does not know comes back as written (`&bogus;`), so only nothing needs replacing.
    return decoded || reference;
  });
}
