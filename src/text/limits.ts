/**
 * How long each text field may be (docs/limits.md "Text fields and reply sizes"). One record can
 * then never make a list, a feed or the change feed larger than the service sends: the limits, the
 * counts of records an event embeds and the worst growth of a character once escaped are added up
 * there. Lengths are in characters (Unicode code points), as JSON Schema's `maxLength` counts them.
 *
 * Each limit is checked on the text as it is stored, after cleaning (cleaning may lengthen a text:
 * `<` becomes `&lt;`), and the OpenAPI document refuses longer input before any cleaning runs. Rows
 * written before these limits (or straight into the database) are cut to them when the repositories
 * read them (`boundedText`, `boundedHtml`, `boundedList`), so every reader (records, JSON-LD, pages,
 * feeds, the change feed) sees text within the limits, and such a row cannot break a list either.
 */
export const TEXT_LIMITS = {
  /** An event's title, a venue's or an organizer's name (WordPress: post_title, TEXT). */
  title: 500,
  /** Descriptions of events, venues and organizers (HTML; WordPress: post_content, LONGTEXT). */
  description: 16_384,
  /** Excerpts (HTML; WordPress: post_excerpt, LONGTEXT). */
  excerpt: 1_000,
  /** A venue's or an organizer's address, city, phone... (the document's `maxLength: 255`). */
  field: 255,
  /** Websites and image URLs (text/fields.ts `isHttpUrl`). */
  url: 2_048,
  /** An e-mail address (RFC 5321). */
  email: 254,
  /** A category's or a tag's name (WordPress: terms.name, VARCHAR(200)). */
  termName: 200,
  /** A category's or a tag's description (HTML; WordPress: term_taxonomy.description, LONGTEXT). */
  termDescription: 2_000,
  /** All cost texts of an event together (WordPress: the `_EventCost` meta). */
  cost: 255,
  /**
   * All `recurrence` lines of an event together (each line is at most 2,000, 100 lines at most): room
   * for the 1,000 RDATE and EXDATE values the rules may hold (docs/limits.md "Recurrence rules").
   */
  recurrence: 20_000,
  /**
   * The description and excerpt of a venue, organizer, category or tag embedded in an event: cut to
   * this length there (the whole text is on the record's own route). Without the cut, the records one
   * event may embed would make a page of events larger than the service sends (docs/limits.md).
   */
  embedded: 400,
} as const;

/** How many records of each kind one event may link to (the document's `maxItems`). */
export const EMBED_LIMITS = {
  venues: 3,
  organizers: 5,
  categories: 10,
  tags: 20,
} as const;

/** The limit of a venue's or an organizer's own text field (repositories/linked-kinds.ts `textFields`). */
export function linkedFieldLimit(field: string): number {
  return field === 'website' ? TEXT_LIMITS.url : field === 'email' ? TEXT_LIMITS.email : TEXT_LIMITS.field;
}

/** The number of code points in `text` (a surrogate pair is one), without building an array. */
export function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point: skip the low one.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** The reason a stored text is refused, or undefined when it is within `limit`. */
export function tooLong(name: string, text: string, limit: number): string | undefined {
  if (text.length <= limit || codePoints(text) <= limit) return undefined;
  return `${name} must be at most ${limit.toLocaleString('en-US')} characters long (once cleaned).`;
}

/** The first `limit` code points of `text` (never half of a surrogate pair). */
export function boundedText(text: string, limit: number): string {
  // A code point is one or two UTF-16 units: a text this short holds at most `limit` of them.
  if (text.length <= limit) return text;
  let end = 0;
  for (let count = 0; count < limit && end < text.length; count++) {
    const unit = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return text.slice(0, end);
}

/**
 * `boundedText` for HTML: a cut that falls inside a tag or a character reference drops that
 * unfinished tag or reference, so what is left holds only whole tags (elements left open are
 * closed by any HTML parser) and stays as inert as the stored text was.
 */
export function boundedHtml(html: string, limit: number): string {
  let cut = boundedText(html, limit);
  if (cut.length === html.length) return cut;
  // With lastIndexOf, not a regex anchored at the end: that would rescan a long run of `<` at each one.
  const open = cut.lastIndexOf('<');
  if (open > cut.lastIndexOf('>')) cut = cut.slice(0, open);
  const reference = cut.lastIndexOf('&');
  if (reference !== -1 && /^&[#A-Za-z0-9]*$/.test(cut.slice(reference))) cut = cut.slice(0, reference);
  return cut;
}

/** The items of `items`, in order, while their lengths together stay within `limit` (the rest are left out). */
export function boundedList(items: string[], limit: number): string[] {
  let total = 0;
  const kept: string[] = [];
  for (const item of items) {
    total += codePoints(item);
    if (total > limit) break;
    kept.push(item);
  }
  return kept;
}
