import sanitizeHtml from 'sanitize-html';

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
