import crypto from 'node:crypto';
import { autoParagraph, htmlToText, plainText, sanitizePageHtml } from './html.js';
import { TEXT_LIMITS, boundedHtml } from './limits.js';

/**
 * Everything a read shows of a stored HTML text, computed once when the text is written
 * (docs/architecture.md "Rendered texts"): a read looks its forms up by the text's key and cleans,
 * paragraphs and decodes nothing. Each form is what the read-time functions of text/html.ts gave
 * before, byte for byte (test/integration/rendered-texts.test.ts compares them on a corpus).
 *
 * - `post`: a description or excerpt of an event, venue or organizer.
 * - `term`: a category's or tag's description (shown as stored in the API; only pages clean it).
 */
type TextKind = 'post' | 'term';

/** The stored fields a rendered text comes from, each cut to its limit first (text/limits.ts), as the repositories read them. */
export type TextField = 'description' | 'excerpt' | 'termDescription';

export interface RenderedForms {
  /** `autoParagraph`: the record's `description`/`excerpt`. */
  paragraphs: string;
  /** `autoParagraph` of the text cut to TEXT_LIMITS.embedded: a venue or organizer embedded in an event. */
  embedded: string;
  /** `plainText`: schema.org `description`. */
  plain: string;
  /** `htmlToText` of the stored text: the iCalendar DESCRIPTION. */
  text: string;
  /** The page's description HTML (`sanitizePageHtml` of the paragraphs, trimmed; of the stored text for a term). */
  pageHtml: string;
  /** The page's meta description (`htmlToText` of the paragraphs, spaces collapsed; of the stored text for a term). */
  summary: string;
}

/** The forms of an empty text (it has no stored row). */
export const NO_TEXT: RenderedForms = Object.freeze({ paragraphs: '', embedded: '', plain: '', text: '', pageHtml: '', summary: '' });

const KIND_OF: Record<TextField, TextKind> = { description: 'post', excerpt: 'post', termDescription: 'term' };

/** A field's text as stored and read (cut to the field's limit), and its kind. */
export function sourceOf(field: TextField, text: string): { kind: TextKind; text: string } {
  return { kind: KIND_OF[field], text: boundedHtml(text, TEXT_LIMITS[field]) };
}

/** The key of a text's forms: SHA-256 (hex) of its kind and text. Two fields with one text share a row. */
export function renderedKey(kind: TextKind, text: string): string {
  return crypto.createHash('sha256').update(`${kind}\n${text}`).digest('hex');
}

function summaryOf(html: string): string {
  return htmlToText(html).replace(/\s+/g, ' ').trim();
}

/** The forms, in the order they are computed (the page's forms are made from the paragraphs). */
export const FORMS: ReadonlyArray<keyof RenderedForms> = ['paragraphs', 'embedded', 'plain', 'text', 'pageHtml', 'summary'];

/**
 * The forms of a text, each computed when first read and then kept (pure: the same text gives the
 * same forms). A term's description is shown as stored: only its page forms are made from it.
 */
export function lazyForms(kind: TextKind, text: string): RenderedForms {
  const done: Partial<RenderedForms> = {};
  const get = (form: keyof RenderedForms): string => (done[form] ??= compute(form));
  const compute = (form: keyof RenderedForms): string => {
    if (kind === 'term') return form === 'pageHtml' ? sanitizePageHtml(text).trim() : form === 'summary' ? summaryOf(text) : '';
    switch (form) {
      case 'paragraphs':
        return autoParagraph(text);
      case 'embedded': {
        const cut = boundedHtml(text, TEXT_LIMITS.embedded);
        return cut === text ? get('paragraphs') : autoParagraph(cut);
      }
      case 'plain':
        return plainText(text);
      case 'text':
        return htmlToText(text);
      case 'pageHtml':
        return sanitizePageHtml(get('paragraphs')).trim();
      case 'summary':
        return summaryOf(get('paragraphs'));
    }
  };
  return Object.defineProperties({} as RenderedForms, Object.fromEntries(FORMS.map((form) => [form, { get: () => get(form), enumerable: true }])));
}

/**
 * Texts rendered on a read because their stored forms were not there (a row written straight into
 * the database without its key). Counted, so that a test can show that reads render nothing
 * (test/integration/rendered-texts.test.ts).
 */
export const renderedOnRead = { count: 0 };

/** The stored forms of some texts by key, as a read loaded them (db/rendered-texts.ts `loadRenderedTexts`). */
export class RenderedTexts {
  constructor(private readonly byKey: ReadonlyMap<string, Partial<RenderedForms>> = new Map()) {}

  /**
   * The forms of a field's text: its stored row by `key`, or, when it has none (a row written past
   * the repositories), rendered now. An empty text has no row and no forms.
   */
  of(field: TextField, key: string | null, stored: string): RenderedForms {
    const found = key === null ? undefined : this.byKey.get(key);
    if (found) return { ...NO_TEXT, ...found };
    if (stored === '') return NO_TEXT;
    renderedOnRead.count++;
    // Only the forms the read shows, as the read-time functions did before.
    const source = sourceOf(field, stored);
    return lazyForms(source.kind, source.text);
  }
}
