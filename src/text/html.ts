import sanitizeHtml from 'sanitize-html';
import { autop } from '@wordpress/autop';
import { parseFragment } from 'parse5';

/**
 * HTML from users without `unfiltered_html` (everybody below editor) is cleaned on write, as
 * WordPress's kses does: no `<script>`/`<style>`, no event-handler attributes, no `javascript:` URLs.
 */
export function sanitizeUserHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: sanitizeHtml.defaults.allowedTags.concat(['img', 'del', 'ins', 'span']),
    allowedAttributes: {
      ...sanitizeHtml.defaults.allowedAttributes,
      '*': ['class', 'id', 'title', 'lang', 'dir'],
      img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  });
}

/**
 * WordPress's `wpautop` (through its own JavaScript port): plain `Text` becomes `<p>Text</p>`, single
 * line breaks `<br />`. Applied on read to descriptions and excerpts, trimmed as the plugin does.
 */
export function autoParagraph(text: string): string {
  return text.trim() === '' ? '' : autop(text).trim();
}

/** Text without tags, for JSON-LD descriptions. */
export function plainText(html: string): string {
  return sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim();
}

const BLOCK_ELEMENTS = new Set(['p', 'div', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'tr', 'table', 'section', 'article', 'header', 'footer']);
const SKIPPED_ELEMENTS = new Set(['script', 'style', 'template', 'noscript']);

interface HtmlNode {
  nodeName: string;
  value?: string;
  childNodes?: HtmlNode[];
}

/**
 * Text of HTML for a plain-text reader (an iCalendar DESCRIPTION): character references decoded,
 * tags dropped, `<br>` a line break and block elements (paragraphs, list items, headings) separated
 * by a blank line; runs of spaces collapsed, at most one blank line in a row, ends trimmed.
 */
export function htmlToText(html: string): string {
  if (html.trim() === '') return '';
  let out = '';
  const walk = (nodes: HtmlNode[]) => {
    for (const node of nodes) {
      if (node.nodeName === '#text') out += (node.value ?? '').replace(/\s+/g, ' ');
      else if (node.nodeName === 'br') out += '\n';
      else if (SKIPPED_ELEMENTS.has(node.nodeName) || node.nodeName.startsWith('#comment')) continue;
      else {
        const block = BLOCK_ELEMENTS.has(node.nodeName);
        if (block) out += '\n\n';
        walk(node.childNodes ?? []);
        if (block) out += '\n\n';
      }
    }
  };
  walk(parseFragment(html).childNodes as unknown as HtmlNode[]);
  return out
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
