import type { PostRow } from '../repositories/posts.js';
import type { LinkedRow } from '../repositories/linked.js';
import type { EventRow } from '../repositories/events.js';
import type { TermRow } from '../repositories/terms.js';
import type { EventRelations } from './events/mapper.js';
import { formatCost } from '../text/cost-text.js';
import { storedPlain } from '../text/plain-forms.js';

/**
 * The plain forms of the plain-text fields of the rows a read loaded, by record id: titles and names,
 * venues' and organizers' fields, events' costs and days, terms' names, as stored when written
 * (text/plain-forms.ts, dates/event-times.ts). A page shows these, escaped, where its records hold the stored values
 * (pages/views.ts), so a read decodes nothing. The record builds given one fill it (records.ts).
 */
export class PlainTexts {
  private readonly posts = new Map<number, PostRow>();
  private readonly terms = new Map<number, TermRow>();

  /** Posts (events, venues, organizers) whose records a page shows. */
  addPosts(rows: Iterable<PostRow>): void {
    for (const row of rows) this.posts.set(row.id, row);
  }

  /** Terms whose records a page shows. */
  addTerms(rows: Iterable<TermRow>): void {
    for (const row of rows) this.terms.set(row.id, row);
  }

  /** Some events and what their records embed (venues, organizers, terms). */
  addEvents(rows: EventRow[], related: Pick<EventRelations, 'venues' | 'organizers' | 'terms'>): void {
    this.addPosts(rows);
    for (const items of [...related.venues.values(), ...related.organizers.values()]) this.addPosts(items.map((item) => item.row));
    for (const terms of related.terms.values()) this.addTerms(terms);
  }

  /** A post's title: an event's title, a venue's or organizer's name. */
  title(id: number): string {
    const row = this.posts.get(id);
    return row ? storedPlain(row.titlePlain, row.title) : '';
  }

  /** A venue's or organizer's own field (`address`, `city`, `phone`, `email`...). */
  field(id: number, field: string): string {
    const row = this.posts.get(id) as LinkedRow | undefined;
    if (!row?.fields) return '';
    return storedPlain(row.plainFields[field] ?? null, row.fields[field] ?? '');
  }

  /** An event's formatted cost. */
  cost(id: number): string {
    const row = this.posts.get(id) as EventRow | undefined;
    if (!row?.costRaw) return '';
    return row.costPlain ?? storedPlain(null, formatCost(row.costRaw, row.costValues, row.currencySymbol, row.currencyPosition));
  }

  /** The days of an event's start and end as a page writes them (`Sunday 10 January 2027`), stored with its times (dates/event-times.ts). */
  days(id: number): { start: string; end: string } {
    const row = this.posts.get(id) as EventRow | undefined;
    return { start: row?.startDay ?? '', end: row?.endDay ?? '' };
  }

  /** A category's or tag's name. */
  termName(id: number): string {
    const row = this.terms.get(id);
    return row ? storedPlain(row.namePlain, row.name) : '';
  }
}
