import { Tokenizer, type TokenHandler, type Token } from 'parse5';

/**
 * WordPress `sanitize_text_field` (`_sanitize_text_fields`), for names, titles, addresses and every
 * other plain-text field. In WordPress's order:
 *
 * 1. A `<` that no `>` closes before the next `<` or the end is text: it is HTML-escaped with the
 *    rest of its run (`wp_pre_kses_less_than`), so `a < b` is kept as `a &lt; b` and an unclosed
 *    `Talk <img src=x onerror=…` as `Talk &lt;img src=x onerror=…`.
 * 2. Tags are stripped (`wp_strip_all_tags`): `<script>`/`<style>` with their content, then every tag,
 *    comment and doctype. WordPress uses PHP's `strip_tags`; here the WHATWG tokenizer (parse5)
 *    finds them, as a browser would. The text between them is kept exactly as written: character
 *    references stay encoded (`&lt;b&gt;` is not turned into a tag).
 * 3. Line breaks, tabs and runs of spaces become one space; the ends are trimmed.
 *
 * What comes back contains no `<` that could open a tag or a comment, whatever the input's shape,
 * so it is inert when a client renders it as HTML. (WordPress also removes `%xx` octets; this
 * service keeps them, as it always has.)
 */
export function sanitizeTextField(value: string): string {
  let text = value;
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; without a `<` the steps below change nothing.
  if (text.includes('<')) {
    text = stripTags(lessThanAsText(text));
    // After steps 1 and 2 every `<` left is followed by something that cannot open markup; this
    // keeps that true whatever a future change of the steps above lets through.
    // Stryker disable next-line StringLiteral: unreachable today by construction (the comment above).
    text = text.replace(/<(?=[A-Za-z/!?])/g, '&lt;');
  }
  return text.replace(/[\r\n\t ]+/g, ' ').trim();
}

/** `wp_pre_kses_less_than`: each `<` run that is not closed by `>` before the next `<` is escaped. */
function lessThanAsText(text: string): string {
  return text.replace(/<[^>]*?((?=<)|>|$)/g, (run) => (run.includes('>') ? run : escapeHtml(run)));
}

/**
 * WordPress `esc_html` on a run: `&` (unless it starts a character reference), `<`, `>`, `"` and `'`.
 */
function escapeHtml(text: string): string {
  const escapes: Record<string, string> = {
    '<': '&lt;',
    // Stryker disable next-line StringLiteral: a run escaped here holds no `>` (lessThanAsText); kept so the function is esc_html.
    '>': '&gt;',
    '"': '&quot;',
    "'": '&#039;',
  };
  return text.replace(/&(?!(?:[A-Za-z][A-Za-z0-9]*|#\d+|#x[0-9A-Fa-f]+);)/g, '&amp;').replace(/[<>"']/g, (c) => escapes[c]);
}

/** Elements removed with their content, as `wp_strip_all_tags` does (when they are closed). */
const DROPPED_WITH_CONTENT = new Set(['script', 'style']);

/**
 * The text of `html` without tags, comments and doctypes, each text run copied from the source as
 * written (the tokenizer's locations), so character references are not decoded. The tokenizer stays
 * in its data state throughout (no tree builder switches it to raw text inside `<title>`,
 * `<textarea>`, `<xmp>`...), so tags inside those elements are stripped too, as `strip_tags` does.
 */
function stripTags(html: string): string {
  const out: string[] = [];
  // Inside `<script>`/`<style>`: the content, dropped if the element is closed, kept otherwise.
  let held: { tag: string; text: string[] } | undefined;
  const keep = (token: Token.CharacterToken) => {
    const { startOffset, endOffset } = token.location as Token.Location;
    (held ? held.text : out).push(html.slice(startOffset, endOffset));
  };
  const handler: TokenHandler = {
    onCharacter: keep,
    onWhitespaceCharacter: keep,
    // A NUL is kept: dropping it would join a `<` to the letters after it.
    onNullCharacter: keep,
    onStartTag(token) {
      if (!held && DROPPED_WITH_CONTENT.has(token.tagName)) held = { tag: token.tagName, text: [] };
    },
    onEndTag(token) {
      if (held && token.tagName === held.tag) held = undefined;
    },
    onComment() {},
    onDoctype() {},
    onEof() {
      if (held) out.push(...held.text);
    },
  };
  new Tokenizer({ sourceCodeLocationInfo: true }, handler).write(html, true);
  return out.join('');
}
