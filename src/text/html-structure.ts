import { Tokenizer, TokenizerMode, type TokenHandler } from 'parse5';

/**
 * Structural bounds of HTML in descriptions (docs/limits.md "HTML in descriptions"). The cleaners
 * (sanitize-html over htmlparser2) keep a stack of open elements whose every push moves the whole
 * stack, so their cost grows with the square of the nesting depth: `'<b>'.repeat(200000)` took 28 s.
 * These bounds are checked here in linear time before any cleaner runs: a scan for start tags, then,
 * for HTML with more than 100 of them, parse5's tokenizer over at most 5,000 for the depth.
 */

/** Elements open inside one another at most (HTML parsers cap theirs at a few hundred; WordPress content nests a dozen). */
export const MAX_HTML_DEPTH = 100;

/** Start tags at most (a long WordPress post has a few hundred to a few thousand). */
export const MAX_HTML_ELEMENTS = 5_000;

/**
 * Elements with no end tag: they never stay open. htmlparser2's list (sanitize-html parses with it),
 * so that the depth counted here is the depth the cleaner sees.
 */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];

/**
 * Start tags that close open elements first (`<li>` an open `<li>`, `<div>` an open `<p>`): HTML
 * lets these end tags be left out, and htmlparser2 closes them as listed here, while the open
 * element on top is one of them. Without this an unclosed list of 150 items would count 150 deep.
 */
const CLOSED_BY = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', new Set(['dd', 'dt'])],
  ['dt', new Set(['dd', 'dt'])],
  ['rt', new Set(['rt', 'rp'])],
  ['rp', new Set(['rt', 'rp'])],
  ['tbody', new Set(['thead', 'tbody'])],
  ['tfoot', new Set(['thead', 'tbody'])],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((tag): [string, Set<string>] => [tag, new Set(FORM)]),
  ...[
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul',
  ].map((tag): [string, Set<string>] => [tag, new Set(P)]),
]);

/** Elements whose content is text up to their end tag, in htmlparser2 as in HTML: tags inside them are not tags. */
const TEXT_CONTENT = new Map<string, Tokenizer['state']>([
  ['script', TokenizerMode.RAWTEXT],
  ['style', TokenizerMode.RAWTEXT],
  ['xmp', TokenizerMode.RAWTEXT],
  ['title', TokenizerMode.RCDATA],
  ['textarea', TokenizerMode.RCDATA],
]);

/** How HTML breaks a bound: the first bound it breaks, or none. */
type StructureProblem = 'depth' | 'elements' | undefined;

/**
 * The offset of the `(count + 1)`th `<` followed by an ASCII letter, or -1 when there are at most
 * `count`. Every HTML parser starts a start tag there and nowhere else, so this bounds the elements
 * any parser can see (it also counts such text inside comments and attribute values, which cleaned
 * HTML never has: cleaners write a `<` in text as `&lt;`). A scan for `<`, much faster than tokenizing.
 */
function startTagBeyond(html: string, count: number): number {
  let seen = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    const next = html.charCodeAt(at + 1) | 0x20;
    if (next >= 0x61 && next <= 0x7a && ++seen > count) return at;
  }
  return -1;
}

/**
 * Walks the tags of `html` once with parse5's tokenizer, keeping the stack of open elements as
 * htmlparser2 would (void elements, implied end tags, an end tag closing up to its element, no tags
 * inside `<script>` and the like), and asks `admit` about each start tag with the depth it would
 * open at. A refused tag is left out: it opens nothing. Linear: an end tag looks through at most
 * the admitted stack.
 */
function walkStartTags(html: string, admit: (depth: number, start: number, end: number) => boolean): void {
  const open: string[] = [];
  const noop = () => {};
  const handler: TokenHandler = {
    onStartTag(token) {
      const name = token.tagName;
      const closes = CLOSED_BY.get(name);
      if (closes) while (open.length > 0 && closes.has(open[open.length - 1]!)) open.pop();
      const isVoid = VOID_ELEMENTS.has(name);
      const location = token.location!;
      if (!admit(open.length + (isVoid ? 0 : 1), location.startOffset, location.endOffset)) return;
      if (!isVoid) open.push(name);
      const mode = TEXT_CONTENT.get(name);
      if (mode !== undefined) tokenizer.state = mode;
    },
    onEndTag(token) {
      const at = open.lastIndexOf(token.tagName);
      if (at !== -1) open.length = at;
    },
    onCharacter: noop,
    onWhitespaceCharacter: noop,
    onNullCharacter: noop,
    onComment: noop,
    onDoctype: noop,
    onEof: noop,
  };
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, handler);
  tokenizer.write(html, true);
}

/** Which bound `html` breaks, if any: more than `MAX_HTML_ELEMENTS` start tags, or nesting deeper than `MAX_HTML_DEPTH`. */
export function structureProblem(html: string): StructureProblem {
  if (startTagBeyond(html, MAX_HTML_ELEMENTS) !== -1) return 'elements';
  // Fewer tags than the depth bound cannot nest past it: most descriptions stop here.
  if (startTagBeyond(html, MAX_HTML_DEPTH) === -1) return undefined;
  let tooDeep = false;
  walkStartTags(html, (depth) => {
    tooDeep ||= depth > MAX_HTML_DEPTH;
    return !tooDeep;
  });
  return tooDeep ? 'depth' : undefined;
}

/**
 * Start tags one write may still bring in all its HTML fields together (an event's description and
 * excerpt, and the descriptions of the venues and organizers it creates, up to 100 of each): each
 * field within the bounds still costs cleaning time, so a request's total is bounded the same way.
 */
export class HtmlElementBudget {
  remaining = MAX_HTML_ELEMENTS;

  /** Takes the start tags of `html` from what remains; false (taking nothing) when they do not fit. */
  take(html: string): boolean {
    if (startTagBeyond(html, this.remaining) !== -1) return false;
    this.remaining -= startTagCount(html);
    return true;
  }
}

/** Start tags of `html` as `startTagBeyond` counts them. */
function startTagCount(html: string): number {
  let seen = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    const next = html.charCodeAt(at + 1) | 0x20;
    if (next >= 0x61 && next <= 0x7a) seen++;
  }
  return seen;
}

/** The 400's reason for a field whose HTML breaks a bound (`field` is its body name), or undefined. */
export function htmlStructureMessage(field: string, html: string): string | undefined {
  switch (structureProblem(html)) {
    case 'elements':
      return `${field} has more than ${MAX_HTML_ELEMENTS} HTML elements.`;
    case 'depth':
      return `${field} nests HTML elements more than ${MAX_HTML_DEPTH} deep.`;
    default:
      return undefined;
  }
}

/** Text with no markup left: tags dropped, and any other `<` written as `&lt;` (so no tag can form again). */
function withoutMarkup(text: string): string {
  return text.replace(/<\/?[A-Za-z][^<>]*>?/g, '').replace(/</g, '&lt;');
}

/**
 * `html` within the bounds, for the cleaners on read: rows stored before the bounds existed may
 * break them. After the first `MAX_HTML_ELEMENTS` start tags the rest is text (its tags dropped),
 * and start tags that would open deeper than `MAX_HTML_DEPTH` are left out (their text stays).
 * HTML within the bounds comes back as is.
 */
export function withinStructureBounds(html: string): string {
  // Fewer tags than the depth bound cannot nest past it: most descriptions stop here.
  if (startTagBeyond(html, MAX_HTML_DEPTH) === -1) return html;
  return cutToBounds(html);
}

/**
 * The cut of HTML with more than `MAX_HTML_DEPTH` start tags: text past MAX_HTML_ELEMENTS start tags
 * keeps its text only, and start tags that would open deeper than MAX_HTML_DEPTH are left out. Run
 * when a text is written, once per form made of it (text/rendered-forms.ts): about 1 ms for 16 KB of
 * nested tags, the longest description.
 */
function cutToBounds(html: string): string {
  const cut = startTagBeyond(html, MAX_HTML_ELEMENTS);
  const head = cut === -1 ? html : html.slice(0, cut);
  const tail = cut === -1 ? '' : withoutMarkup(html.slice(cut));
  const kept: string[] = [];
  let from = 0;
  walkStartTags(head, (depth, start, end) => {
    if (depth <= MAX_HTML_DEPTH) return true;
    kept.push(beforeDropped(head.slice(from, start)));
    from = end;
    return false;
  });
  kept.push(cut === -1 ? head.slice(from) : beforeDropped(head.slice(from)), tail);
  return kept.join('');
}

/**
 * Text kept in front of markup that is left out: a `<` at its end is written `&lt;` (the same text),
 * so that it cannot start a tag with what follows the left-out markup (`<<b>b>` would become `<b>`).
 */
function beforeDropped(text: string): string {
  return text.endsWith('<') ? `${text.slice(0, -1)}&lt;` : text;
}
