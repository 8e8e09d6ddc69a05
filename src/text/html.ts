import sanitizeHtml from 'sanitize-html';
import { autop } from '@wordpress/autop';

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
