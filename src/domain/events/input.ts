import { mayCreate, mayReference } from '../../policies/posts.js';
import { mayManage } from '../../policies/terms.js';
import type { TermRow } from '../../repositories/terms.js';
import { parseDateInput, UTC_ZONE, zoneOf } from '../../dates/parse.js';
import { fromStorage } from '../../dates/storage.js';
import { isHttpUrl, sanitizeTextField } from '../../text/fields.js';
import { splitList } from '../../text/lists.js';
import { checkImageInput } from '../posts/images.js';
import { parseCommon, type Body, type ParsedCommon, type WriteContext } from '../posts/writes.js';
import { ORGANIZERS, VENUES, type LinkedKind } from '../../repositories/linked-kinds.js';
import { prepareCreate, type PreparedCreate } from '../linked/writes.js';
import { CATEGORIES, TAGS, type Taxonomy } from '../../repositories/taxonomies.js';
import { parseCost, type ParsedCost } from './cost.js';
import { applyAllDay, outsideEventYears, timesOf, type EventTimes } from '../../dates/event-times.js';
import type { EventRow } from '../../repositories/events.js';
import { checkLength } from '../posts/writes.js';
import { EMBED_LIMITS, TEXT_LIMITS, codePoints } from '../../text/limits.js';

/** A venue or organizer of an event: an existing one, or one to create (or find as a duplicate). */
export type LinkedItem = { id: number } | { prepared: PreparedCreate };

/** Terms of an event: existing ids, and names to create. */
export interface TermsInput {
  ids: number[];
  create: string[];
}

/** An event body, checked and parsed; undefined fields were not sent. */
export interface ParsedEvent {
  common: ParsedCommon;
  timezone?: string;
  times?: EventTimes;
  allDay?: boolean;
  cost?: ParsedCost;
  website?: string;
  flags: Partial<Record<'show_map' | 'show_map_link' | 'hide_from_listings' | 'sticky' | 'featured', boolean>>;
  venues?: LinkedItem[];
  organizers?: LinkedItem[];
  categories?: TermsInput;
  tags?: TermsInput;
  /** `recurrence` as sent: RFC 5545 content lines; `[]` (also for `false`) ends a series (docs/contract.md §14). */
  recurrence?: string[];
  /** The end falls before the start: a check of ours, answered after every parameter check (`checkDateOrder`). */
  endBeforeStart?: true;
}

/**
 * An end before the start is 400 on `end_date` (docs/contract.md §4). The plugin has no such check;
 * ours comes after every check the plugin makes of its parameters, as a handler's own checks come in
 * WordPress, so it is named only when nothing else is wrong (docs/contract.md §4).
 */
export function checkDateOrder(parsed: ParsedEvent, problems: Record<string, string>): void {
  if (parsed.endBeforeStart && Object.keys(problems).length === 0) problems.end_date = 'end_date must not be before start_date.';
}

const FLAGS = ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;

/** One cost input as plain text (numbers stay numbers). */
function plainCost(value: unknown): unknown {
  return typeof value === 'string' ? sanitizeTextField(value) : value;
}

/**
 * Checks and parses an event create or update body (docs/interface.md §2.1, docs/contract.md §2 and §6), collecting every
 * 400 into `problems`. On update, `existing` supplies what was not sent (the event's zone, dates and
 * all-day flag), so a partial update is checked against the whole result (an end before the start
 * is refused however it came about).
 */
export async function parseEventBody(body: Body, existing: EventRow | undefined, writer: WriteContext, problems: Record<string, string>): Promise<ParsedEvent> {
  const common = await parseCommon(body, 'title', writer, problems);
  const parsed: ParsedEvent = { common, flags: {} };

  let zoneName = existing?.timezone ?? writer.siteTimezone;
  // The validator turns `null` into `""` (a string field, coerced), so a sent zone is a string here.
  if (body.timezone !== undefined) {
    const given = String(body.timezone).trim();
    if (given === '') zoneName = writer.siteTimezone;
    else if (zoneOf(given)) zoneName = given;
    else problems.timezone = 'timezone must be an IANA time zone, UTC or a UTC offset such as UTC+5.';
    parsed.timezone = zoneName;
  }
  // The site zone and every zone stored were checked when written: the fallback is never used.
  const zone = zoneOf(zoneName) ?? UTC_ZONE;
  const allDay = body.all_day !== undefined ? Boolean(body.all_day) : (existing?.allDay ?? false);
  if (body.all_day !== undefined) parsed.allDay = allDay;

  const dateOf = (name: 'start_date' | 'end_date', stored: string | undefined) => {
    const value = body[name];
    if (value === undefined) return stored === undefined ? undefined : fromStorage(stored, zone);
    // `null` and `""` are refused by the document (`DateInput`'s minLength) and are no date to parseDateInput either.
    const moment = parseDateInput(value, zone, writer.now);
    if (!moment) problems[name] = `${name} is not a date this service understands.`;
    const outside = moment && outsideEventYears(name, moment, writer.now);
    if (outside) problems[name] = outside;
    return moment;
  };
  let start = dateOf('start_date', existing?.startLocal);
  let end = dateOf('end_date', existing?.endLocal);
  const datesChange = body.start_date !== undefined || body.end_date !== undefined || body.all_day !== undefined || parsed.timezone !== undefined;
  if (start && end && datesChange) {
    if (allDay) [start, end] = applyAllDay(start, end);
    if (end < start) parsed.endBeforeStart = true;
    else parsed.times = timesOf(start, end, zoneName);
  }

  // Cost labels (`Donation`) are shown as written: plain text, cleaned like every name.
  if (body.cost !== undefined) {
    parsed.cost = parseCost(Array.isArray(body.cost) ? body.cost.map(plainCost) : plainCost(body.cost));
    checkLength(problems, 'cost', parsed.cost.raw.join(''), TEXT_LIMITS.cost);
  }
  // As the zone: `null` arrives as `""` (clears the website).
  if (body.website !== undefined) {
    const website = String(body.website).trim();
    if (website !== '' && !isHttpUrl(website)) problems.website = 'website must be an http(s) URL.';
    parsed.website = website;
  }
  for (const flag of FLAGS) if (typeof body[flag] === 'boolean') parsed.flags[flag] = body[flag] as boolean;

  const image = await checkImageInput(writer.repositories.posts, body.image, writer.user);
  if (image) problems.image = image;
  parsed.venues = await parseLinked(VENUES, body.venue, writer, problems);
  parsed.organizers = await parseLinked(ORGANIZERS, body.organizer, writer, problems);
  // The terms named by id in both taxonomies, read in one statement.
  const byId = await termsById(writer, [body.categories, body.tags]);
  parsed.categories = await parseTerms(CATEGORIES, body.categories, writer, problems, byId);
  parsed.tags = await parseTerms(TAGS, body.tags, writer, problems, byId);
  if (body.recurrence !== undefined) parsed.recurrence = parseRecurrenceInput(body.recurrence, problems);
  if (parsed.recurrence) checkLength(problems, 'recurrence', parsed.recurrence.join(''), TEXT_LIMITS.recurrence);
  return parsed;
}

/**
 * `recurrence` (docs/contract.md §14): an array of content lines, or `false` / `[]` / `""` for none.
 * A single string is one line (a form body with one `recurrence` value). The lines themselves are
 * checked when the series is expanded (dates/recurrence.ts), where the event's start and zone are known.
 * The validator has already read `"false"` and `null` as `false` (the document's `boolean` branch);
 * `""` and blank lines are no lines.
 */
function parseRecurrenceInput(input: unknown, problems: Record<string, string>): string[] | undefined {
  if (input === false) return [];
  const items = Array.isArray(input) ? input : [input];
  if (!items.every((item) => typeof item === 'string')) {
    problems.recurrence = 'recurrence must be an array of RFC 5545 content lines (RRULE, RDATE, EXDATE), or false.';
    return undefined;
  }
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * The id of an item of `venue` / `organizer`, if it names one: a number, a string of digits, or `{id}`
 * (whose `id` the document's schema has made an integer, VenueInput / OrganizerInput).
 */
function linkedIdOf(item: unknown): number | undefined {
  if (typeof item === 'number') return item;
  if (typeof item === 'string') return /^\d+$/.test(item) ? Number(item) : undefined;
  const id = (item as Body).id;
  return id === undefined ? undefined : Number(id);
}

/**
 * `venue` / `organizer` on an event (docs/plugin-behaviour.md §5.11, docs/contract.md §6): ids (numbers, numeric
 * strings, comma- or space-separated), `{id}` objects, or objects describing a new record, alone or in a list.
 * An id must name a record of that kind the caller may read. New records follow the standalone
 * create rules (and rights), duplicate detection included.
 */
async function parseLinked(kind: LinkedKind, input: unknown, writer: WriteContext, problems: Record<string, string>): Promise<LinkedItem[] | undefined> {
  if (input === undefined) return undefined;
  // `0`, `""`, `null`, `[]` and `false` unlink every venue/organizer (docs/contract.md §6). The validator has
  // already made `null`, `false` and `"0"` the integer 0 (the schema's first type); `""` and `[]` are lists of no ids.
  if (input === 0) return [];
  const field = kind.nameField;
  // A string of ids is a list as WordPress's wp_parse_list reads it (`1, 2`, `1 2`, `1,,2`).
  const items = Array.isArray(input) ? input : typeof input === 'string' ? splitList(input) : [input];
  // The document bounds a list of them; a string of ids is split only here.
  const limit = EMBED_LIMITS[kind.collection];
  if (items.length > limit) {
    problems[field] = `an event may have at most ${limit} ${kind.collection}.`;
    return undefined;
  }
  const repo = writer.repositories.linked(kind);
  const out: LinkedItem[] = [];
  for (const item of items) {
    const id = linkedIdOf(item);
    if (id !== undefined) {
      const row = await repo.findById(id);
      if (!row || !mayReference(writer.user, row)) {
        problems[field] = `${field} ${id} is not a ${kind.label}.`;
        return undefined;
      }
      out.push({ id });
    } else if (typeof item === 'object') {
      // The schema leaves no `null` (made 0) and no nested list here: an object describes a new record.
      if (!mayCreate(writer.user)) {
        problems[field] = `creating a ${kind.label} needs the right to create ${kind.collection}.`;
        return undefined;
      }
      const nested: Record<string, string> = {};
      const prepared = await prepareCreate(kind, item as Body, writer, nested);
      if (Object.keys(nested).length) {
        problems[field] = `the new ${kind.label} is invalid: ${Object.values(nested).join(' ')}`;
        return undefined;
      }
      out.push({ prepared });
    } else {
      problems[field] = `${field} must be ${kind.label} IDs or ${kind.label} objects.`;
      return undefined;
    }
  }
  return out;
}

/**
 * The items of a `categories` / `tags` field, as text. The body normaliser (http/input.ts) has made
 * the field a list of trimmed, non-blank strings, numbers and objects, and the validator refuses
 * anything else (`null` too). An embedded term sent back as read is named by its id (an integer: the
 * schema's TermReference requires it).
 */
function termItems(input: unknown): string[] {
  return (input as unknown[]).map((item) => String(typeof item === 'object' ? (item as { id: unknown }).id : item));
}

/** The terms of any taxonomy that some `categories` / `tags` fields name by id, by id. */
async function termsById(writer: WriteContext, inputs: unknown[]): Promise<Map<number, TermRow>> {
  const ids = inputs
    .filter((input) => input !== undefined)
    .flatMap(termItems)
    .filter((item) => /^\d+$/.test(item))
    .map(Number)
    .filter(Number.isSafeInteger);
  if (ids.length === 0) return new Map();
  return new Map((await writer.repositories.terms.findByIds([...new Set(ids)])).map((term) => [term.id, term]));
}

/**
 * `categories` / `tags` on an event (docs/plugin-behaviour.md §5.12, docs/contract.md §6): term ids, slugs or names.
 * An unknown id is 400; an unknown slug or name creates the term for callers allowed to manage that
 * taxonomy, and is 400 for others. An empty list removes every term of the taxonomy.
 */
async function parseTerms(taxonomy: Taxonomy, input: unknown, writer: WriteContext, problems: Record<string, string>, byId: Map<number, TermRow>): Promise<TermsInput | undefined> {
  if (input === undefined) return undefined;
  const items = termItems(input);
  const repo = writer.repositories.terms;
  const found: TermsInput = { ids: [], create: [] };
  const unknown: string[] = [];
  for (const item of items) {
    if (/^\d+$/.test(item)) {
      const term = byId.get(Number(item));
      if (term && term.taxonomy === taxonomy.name) found.ids.push(term.id);
      else unknown.push(item);
      continue;
    }
    const term = (await repo.findBySlug(taxonomy, item)) ?? (await repo.findByNameAnyLevel(taxonomy, item));
    // A new term's name is plain text, cleaned and bounded as on the term routes.
    const name = sanitizeTextField(item);
    if (codePoints(name) > TEXT_LIMITS.termName) {
      problems[taxonomy.collection] = `${taxonomy.collection} names must be at most ${TEXT_LIMITS.termName} characters long.`;
      continue;
    }
    if (term) found.ids.push(term.id);
    else if (mayManage(writer.user, taxonomy) && name !== '') found.create.push(name);
    else unknown.push(item);
  }
  if (unknown.length && !problems[taxonomy.collection])
    problems[taxonomy.collection] = `${taxonomy.collection} contains unknown ${taxonomy.collection === 'categories' ? 'categories' : 'tags'}: ${unknown.join(', ')}.`;
  return found;
}
