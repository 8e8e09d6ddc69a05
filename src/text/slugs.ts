/**
 * Slugs as WordPress makes them (`sanitize_title` → `remove_accents` + `sanitize_title_with_dashes`,
 * and `utf8_uri_encode`), so a title gives the slug, and the link, the plugin gives it:
 *
 * - Latin letters lose their accents by WordPress's own table (below), not by Unicode decomposition:
 *   `Smørrebrød` → `smorrebrod`, `Ærø Łódź` → `aero-lodz`.
 * - Every other script is kept whole (no mark is dropped: `イベント` is not `イヘント`), lower-cased,
 *   and stored percent-encoded as WordPress stores it (`%e3%82%a4...`, lower-case hex). Greek and
 *   Cyrillic are not transliterated either (WordPress's default locale does not).
 * - The slug is at most 200 characters of that encoded form, cut between characters (never inside
 *   a `%XX` or a UTF-8 sequence).
 *
 * The table is written from WordPress's `remove_accents` for its default locale (the per-locale
 * extras, German `ß` → `ss` or Danish `å` → `aa`, apply only on sites in those locales; this service
 * has no site locale, so `ß` is `s` as on an English site). docs/plugin-behaviour.md §5.9.
 */

export const MAX_SLUG_LENGTH = 200;

/** Replacement → the characters it replaces (WordPress's remove_accents, default locale). */
const ACCENTS: Record<string, string> = {
  // Latin-1 Supplement (U+00AA..U+00FF).
  a: 'ªàáâãäåāăąǎɑ',
  o: 'ºòóôõöøōŏőǒơ',
  A: 'ÀÁÂÃÄÅĀĂĄǍ',
  AE: 'Æ',
  ae: 'æ',
  C: 'ÇĆĈĊČ',
  c: 'çćĉċč',
  D: 'ÐĎĐ',
  d: 'ðďđ',
  E: 'ÈÉÊËĒĔĖĘĚƏ€',
  e: 'èéêëēĕėęěǝ',
  I: 'ÌÍÎÏĨĪĬĮİǏ',
  i: 'ìíîïĩīĭįıǐ',
  N: 'ÑŃŅŇŊ',
  n: 'ñńņňŉŋ',
  O: 'ÒÓÔÕÖØŌŎŐǑƠ',
  U: 'ÙÚÛÜŨŪŬŮŰŲǓǕǗǙǛƯ',
  u: 'ùúûüũūŭůűųǔǖǘǚǜư',
  Y: 'ÝŶŸ',
  y: 'ýÿŷ',
  TH: 'Þ',
  th: 'þ',
  // Latin Extended-A (U+0100..U+017F), the letters not above.
  G: 'ĜĞĠĢ',
  g: 'ĝğġģ',
  H: 'ĤĦ',
  h: 'ĥħ',
  IJ: 'Ĳ',
  ij: 'ĳ',
  J: 'Ĵ',
  j: 'ĵ',
  K: 'Ķ',
  k: 'ķĸ',
  L: 'ĹĻĽĿŁ',
  l: 'ĺļľŀł',
  OE: 'Œ',
  oe: 'œ',
  R: 'ŔŖŘ',
  r: 'ŕŗř',
  // `ß` is `s` on a default-locale site (`ss` only in German locales), as `ſ`.
  S: 'ŚŜŞŠȘ',
  s: 'ßśŝşšſș',
  T: 'ŢŤŦȚ',
  t: 'ţťŧț',
  W: 'Ŵ',
  w: 'ŵ',
  Z: 'ŹŻŽ',
  z: 'źżž',
  // The pound sign is dropped (the euro sign is `E`, above).
  '': '£',
};

/** Each character of the table → its replacement. */
const ACCENT_OF = new Map<string, string>();
for (const [replacement, characters] of Object.entries(ACCENTS)) {
  for (const character of characters) ACCENT_OF.set(character, replacement);
}
// Vietnamese vowels with tone marks (Latin Extended Additional U+1EA0..U+1EF9): WordPress lists each
// as its base vowel; their canonical decomposition names that vowel first (with a horn: Ơ, Ư).
for (let code = 0x1ea0; code <= 0x1ef9; code++) {
  const character = String.fromCodePoint(code);
  const base = character.normalize('NFD')[0];
  ACCENT_OF.set(character, ACCENT_OF.get(base) ?? base);
}

/** WordPress's remove_accents (default locale): the table above, after composing the text (NFC). */
export function removeAccents(text: string): string {
  if (!/[\u0080-\uffff]/.test(text)) return text;
  let out = '';
  for (const character of text.normalize('NFC')) out += ACCENT_OF.get(character) ?? character;
  return out;
}

/**
 * WordPress's utf8_uri_encode: every non-ASCII character as its UTF-8 bytes in `%xx` (lower-case
 * hex), ASCII as it is. With `maxLength`, stops before the first character that would pass it, so
 * no character is cut.
 */
export function utf8UriEncode(text: string, maxLength = Infinity): string {
  let out = '';
  for (const character of text) {
    // A lone surrogate is no character: it has no UTF-8 form (encodeURIComponent would throw).
    if (character.length === 1 && /[\ud800-\udfff]/.test(character)) continue;
    const encoded = character.charCodeAt(0) < 0x80 ? character : encodeURIComponent(character).toLowerCase();
    if (out.length + encoded.length > maxLength) break;
    out += encoded;
  }
  return out;
}

/** Encoded slug text, one character per item: an ASCII character, or a `%xx` run of one UTF-8 character. */
function slugUnits(slug: string): string[] {
  return slug.match(/%[c-f][0-9a-f](?:%[89ab][0-9a-f])*|%[0-9a-f]{2}|[\s\S]/gi) ?? [];
}

/** The longest start of an encoded slug within `maxLength` that ends between two characters. */
export function cutSlug(slug: string, maxLength: number): string {
  if (slug.length <= maxLength) return slug;
  let out = '';
  for (const unit of slugUnits(slug)) {
    if (out.length + unit.length > maxLength) break;
    out += unit;
  }
  return out;
}

/** Characters (as their lower-case UTF-8 escapes) WordPress drops from a slug it saves. */
const DROPPED = [
  // Soft hyphen, ¡ ¿, angle quotes, curly quotes, bullet.
  ...['%c2%ad', '%c2%a1', '%c2%bf', '%c2%ab', '%c2%bb', '%e2%80%b9', '%e2%80%ba', '%e2%80%98', '%e2%80%99', '%e2%80%9c', '%e2%80%9d'],
  ...['%e2%80%9a', '%e2%80%9b', '%e2%80%9e', '%e2%80%9f', '%e2%80%a2'],
  // © ® ° … ™, acute accents (spacing and combining), combining grave, macron and caron.
  ...['%c2%a9', '%c2%ae', '%c2%b0', '%e2%80%a6', '%e2%84%a2', '%c2%b4', '%cb%8a', '%cc%81', '%cd%81', '%cc%80', '%cc%84', '%cc%8c'],
  // Characters that display without a width (zero-width spaces and joiners, direction marks, BOM, object replacement).
  ...['%e2%80%8b', '%e2%80%8c', '%e2%80%8d', '%e2%80%8e', '%e2%80%8f', '%e2%80%aa', '%e2%80%ab', '%e2%80%ac', '%e2%80%ad', '%e2%80%ae'],
  ...['%ef%bb%bf', '%ef%bf%bc'],
];

/** Characters WordPress turns into a hyphen in a slug it saves: no-break space, en and em dash, the width spaces. */
const HYPHENS = ['%c2%a0', '%e2%80%93', '%e2%80%94', '%e2%80%a8', '%e2%80%a9', '%e2%80%af'];
for (let byte = 0x80; byte <= 0x8a; byte++) HYPHENS.push(`%e2%80%${byte.toString(16)}`);

/**
 * The slug WordPress's sanitize_title makes of a title or a given slug. `save` (a slug being written:
 * accents removed, punctuation dropped) or `query` (a slug being looked up, as WP_Query's `name`:
 * only lower-cased and encoded). Empty when nothing of it is left.
 */
export function sanitizeSlug(text: string, context: 'save' | 'query' = 'save'): string {
  // Composed (NFC), as WordPress composes before its table, so a decomposed `ベ` is still one character.
  let slug = text.normalize('NFC').replace(/<[^>]*(>|$)/g, '');
  if (context === 'save') slug = removeAccents(slug);
  // `%xx` octets are kept (a slug sent already encoded stays as it is); any other `%` goes.
  slug = slug
    .replace(/%([0-9a-f]{2})/gi, '---$1---')
    .replace(/%/g, '')
    .replace(/---([0-9a-f]{2})---/gi, '%$1');
  slug = utf8UriEncode(slug.toLowerCase(), MAX_SLUG_LENGTH).toLowerCase();
  if (context === 'save') {
    for (const escape of HYPHENS) slug = slug.replaceAll(escape, '-');
    slug = slug.replace(/&(nbsp|#160|ndash|#8211|mdash|#8212);/g, '-').replace(/\//g, '-');
    for (const escape of DROPPED) slug = slug.replaceAll(escape, '');
    // The multiplication sign is an `x` (`6×7` → `6x7`).
    slug = slug.replaceAll('%c3%97', 'x');
  }
  return slug
    .replace(/&.+?;/g, '')
    .replace(/\./g, '-')
    .replace(/[^%a-z0-9 _-]/g, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The slugs a by-slug lookup tries, in order: the slug as given (also a slug stored before slugs
 * were encoded, such as `smørrebrød`, which is never rewritten), then its sanitized form
 * (`イベント` and `%E3%82%A4...` both find `%e3%82%a4...`), then the sanitized form of the given text
 * percent-encoded again. The last is the path segment as the URL carried it before the router
 * decoded it, which is what WordPress looks up: a slug that kept `%xx` octets of its title
 * (`%3cimg%20src...`) arrives decoded as `<img src...`, and only its encoded form finds it.
 * `query` as WP_Query looks up a post's name; `save` as get_term_by looks up a term's slug.
 */
export function slugLookups(given: string, context: 'save' | 'query'): string[] {
  const candidates = [given, sanitizeSlug(given, context), sanitizeSlug(encodedAgain(given), context)];
  return [...new Set(candidates.filter((candidate) => candidate !== ''))];
}

/**
 * The text percent-encoded as a URL path segment carries it, its own `%` left as they are (a slug
 * given already encoded is not encoded twice); empty where it cannot be (a lone surrogate).
 */
function encodedAgain(text: string): string {
  try {
    return encodeURIComponent(text).replace(/%25/g, '%');
  } catch {
    return '';
  }
}

/** `base`, then `base-2`, `base-3`, ... (docs/contract.md §6), kept within the column's length, cut between characters. */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt <= 1) return base;
  const suffix = `-${attempt}`;
  return cutSlug(base, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '') + suffix;
}

/**
 * What every candidate of `base` starts with (`slugCandidate` with a suffix of up to ten digits):
 * the family a unique-slug write looks up.
 */
export function slugFamilyPrefix(base: string): string {
  return cutSlug(base, MAX_SLUG_LENGTH - 11).replace(/-+$/, '');
}

/** Escapes `%`, `_` and the escape character itself for `LIKE ... ESCAPE '!'` (the same on both engines). */
export function likeEscape(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
