/**
 * The checks `cli import` makes of every record before it writes anything (docs/export-format.md
 * "Import"): the rules of the API's writes, applied to the file, which is data from outside like any
 * request body. A value the API would refuse, or would store otherwise (a title it would clean, a
 * slug it would rewrite), refuses the whole file, naming the line and the field; so does a record
 * that names another the file does not hold (an author, an image, a venue, a series, a parent), or an
 * id, slug or login another record of the file already has. What is derived from the records (login
 * keys, counts, the search index) is derived by the import itself (repositories/portable.ts).
 */
import { can, isRole } from '../auth/capabilities.js';
import { loginKey, emailKey } from '../auth/login-keys.js';
import { DateTime } from 'luxon';
import { MAX_YEARS_FROM_TODAY, outsideEventYears } from '../dates/event-times.js';
import { zoneOf } from '../dates/parse.js';
import { fromStorage, STORAGE_FORMAT } from '../dates/storage.js';
import { nameKeyOf } from '../repositories/terms.js';
import { sanitizeUserHtml } from '../text/html.js';
import { htmlStructureMessage } from '../text/html-structure.js';
import { isEmail, isHttpUrl } from '../text/fields.js';
import { codePoints, EMBED_LIMITS, linkedFieldLimit, TEXT_LIMITS } from '../text/limits.js';
import { sanitizeTextField } from '../text/plain-text.js';
import { MAX_SLUG_LENGTH } from '../text/slugs.js';
import type { Row } from '../repositories/portable.js';

/**
 * The largest id an import keeps (docs/limits.md "Imports"): the OpenAPI document types ids as
 * `integer` without a format, which SDK generators read as 32-bit (Java's `Integer`), and past 2^53
 * JavaScript cannot even tell two ids apart (a header's `next_ids` near 2^53 gave a create that
 * answered 404 and then 500s).
 */
const MAX_RECORD_ID = 2_147_483_647;

const STORED_DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** `YYYY-MM-DD HH:MM:SS` naming a moment of the calendar (by hand: luxon per date cost an import seconds). */
function isStoredDate(value: string): boolean {
  const parts = STORED_DATE.exec(value);
  if (!parts) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days && hour < 24 && minute < 60 && second < 60;
}

/** The statuses the API stores for events, venues, organizers and images. */
const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

/** A stored slug: lower-case letters of any script, digits, `-`, `_` and `%xx` escapes; no `/` or `.`. */
const SLUG = /^(?:[\p{Ll}\p{Lo}\p{Lm}\p{Nd}\p{Mn}_-]|%[0-9a-f]{2})+$/u;

/** The login rule of `cli user add` (repositories/users.ts). */
const LOGIN = /^[A-Za-z0-9._@-]{1,60}$/;

/** A record of the file: its kind, its line and its fields. */
export interface Checked {
  kind: string;
  line: number;
  record: Row;
}

export class ImportRefusal extends Error {}

/** One record's checks: each throws an ImportRefusal naming the line and the field. */
class RecordCheck {
  constructor(
    private readonly line: number,
    private readonly record: Row,
  ) {}

  fail(field: string, problem: string): never {
    throw new ImportRefusal(`line ${this.line}: "${field}" ${problem}`);
  }

  value(field: string): unknown {
    return this.record[field];
  }

  id(field: string, { nullable = false, min = 1 } = {}): number | null {
    const value = this.value(field);
    if (value === null && nullable) return null;
    if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > MAX_RECORD_ID) {
      this.fail(field, `is ${JSON.stringify(value)}: not an integer from ${min} to ${MAX_RECORD_ID}`);
    }
    return value as number;
  }

  text(field: string, limit: number, { nullable = false } = {}): string | null {
    const value = this.value(field);
    if (value === null && nullable) return null;
    if (typeof value !== 'string') this.fail(field, 'is not a string');
    if (codePoints(value) > limit) this.fail(field, `is longer than ${limit} characters`);
    return value;
  }

  /** Plain text as the API stores it: cleaning it again changes nothing (no tags, no line breaks). */
  plain(field: string, limit: number, { nullable = false, empty = true } = {}): string | null {
    const value = this.text(field, limit, { nullable });
    if (value === null) return null;
    if (sanitizeTextField(value) !== value) this.fail(field, `is not plain text as the API stores it (${JSON.stringify(sanitizeTextField(value).slice(0, 60))} once cleaned)`);
    if (!empty && value === '') this.fail(field, 'is empty');
    return value;
  }

  /**
   * HTML as the API stores it: within the structural bounds, and, unless its author holds
   * `unfiltered_html` (an editor's or administrator's record, which the API keeps as written),
   * as the cleaner for writers without it leaves it (cleaning it again changes nothing).
   */
  html(field: string, limit: number, unfiltered = false): string {
    const value = this.text(field, limit) as string;
    // Without markup characters there is nothing for the cleaner to change (it rewrites markup and
    // escapes these three): most excerpts and many descriptions, checked without parsing.
    if (!/[<>&]/.test(value)) return value;
    const structure = htmlStructureMessage(field, value);
    if (structure) this.fail(field, structure);
    if (!unfiltered && sanitizeUserHtml(value) !== value) this.fail(field, 'holds HTML the API removes (scripts, event handlers, styles, javascript: links...)');
    return value;
  }

  oneOf(field: string, allowed: readonly string[], { nullable = false } = {}): string | null {
    const value = this.value(field);
    if (value === null && nullable) return null;
    if (typeof value !== 'string' || !allowed.includes(value)) this.fail(field, `is ${JSON.stringify(value)}: not one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
    return value;
  }

  bool(field: string): void {
    if (typeof this.value(field) !== 'boolean') this.fail(field, 'is not true or false');
  }

  number(field: string, { nullable = false, limit = Number.MAX_VALUE } = {}): void {
    const value = this.value(field);
    if (value === null && nullable) return;
    if (typeof value !== 'number' || !(Math.abs(value) <= limit))
      this.fail(field, `is ${JSON.stringify(value)}: not a number${limit < Number.MAX_VALUE ? ` from -${limit} to ${limit}` : ''}`);
  }

  /** A stored date, `YYYY-MM-DD HH:MM:SS`, that exists on the calendar. */
  date(field: string, { nullable = false } = {}): string | null {
    const value = this.value(field);
    if (value === null && nullable) return null;
    if (typeof value !== 'string' || !isStoredDate(value)) this.fail(field, `is ${JSON.stringify(value)}: not a date YYYY-MM-DD HH:MM:SS that exists`);
    return value;
  }

  zone(field: string): string {
    const value = this.value(field);
    if (typeof value !== 'string' || !zoneOf(value)) this.fail(field, `is ${JSON.stringify(value)}: not an IANA time zone, UTC or a UTC offset`);
    return value;
  }

  slug(field: string): string {
    const value = this.text(field, MAX_SLUG_LENGTH) as string;
    if (!SLUG.test(value)) this.fail(field, `is ${JSON.stringify(value)}: not a slug the API writes (lower-case letters, digits, "-", "_", %xx)`);
    return value;
  }

  url(field: string, { empty = true } = {}): void {
    const value = this.plain(field, TEXT_LIMITS.url) as string;
    if (!(empty && value === '') && !isHttpUrl(value)) this.fail(field, `is ${JSON.stringify(value.slice(0, 60))}: not an http(s) URL`);
  }

  email(field: string, limit: number, { nullable = false } = {}): void {
    const value = this.plain(field, limit, { nullable });
    if (value !== null && value !== '' && !isEmail(value)) this.fail(field, `is ${JSON.stringify(value.slice(0, 60))}: not an e-mail address`);
  }

  /** A list of ids of records the file holds (`known`), at most `limit`. */
  ids(field: string, known: ReadonlySet<number>, what: string, limit: number): number[] {
    const value = this.value(field);
    if (!Array.isArray(value) || value.length > limit) this.fail(field, `is not a list of at most ${limit} ids`);
    for (const id of value) if (!known.has(id as number)) this.fail(field, `names ${JSON.stringify(id)}, which is no ${what} of the file`);
    return value as number[];
  }

  /** An id of a record the file holds (`known`), or null. */
  reference(field: string, known: ReadonlySet<number>, what: string, { nullable = true } = {}): void {
    const id = this.id(field, { nullable });
    if (id !== null && !known.has(id)) this.fail(field, `names ${id}, which is no ${what} of the file`);
  }

  strings(field: string, limit: number): string[] {
    const value = this.value(field);
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) this.fail(field, 'is not a list of strings');
    if (codePoints(value.join('')) > limit) this.fail(field, `holds more than ${limit} characters`);
    return value as string[];
  }
}

/** Sets of ids by kind, and a check that an id, a slug or a key is not taken twice. */
class Registry {
  private readonly seen = new Map<string, Set<string | number>>();

  ids(kind: string): Set<number> {
    return this.set(`id:${kind}`) as Set<number>;
  }

  /** Notes `value` in `space`; a second time is a refusal naming the line and the field. */
  unique(check: RecordCheck, space: string, value: string | number, field: string, what = field): void {
    const set = this.set(space);
    if (set.has(value)) check.fail(field, `is ${JSON.stringify(value)}, which another record of the file has (${what} must be unique)`);
    set.add(value);
  }

  private set(space: string): Set<string | number> {
    let set = this.seen.get(space);
    if (!set) this.seen.set(space, (set = new Set()));
    return set;
  }
}

function checkUser(check: RecordCheck, registry: Registry): void {
  const id = check.id('id') as number;
  registry.unique(check, 'users', id, 'id');
  registry.ids('user').add(id);
  const login = check.value('login');
  if (typeof login !== 'string' || !LOGIN.test(login)) check.fail('login', 'is not 1-60 characters: letters, digits, ".", "_", "@" or "-"');
  registry.unique(check, 'login keys', loginKey(login), 'login', 'a login, in any case');
  const role = check.value('role');
  if (typeof role !== 'string' || !isRole(role)) check.fail('role', `is ${JSON.stringify(role)}: not administrator, editor, author, contributor or subscriber`);
  // Their records' HTML is kept as written, as the API keeps it (docs/limits.md "Imports").
  if (can({ id, login, role }, 'unfiltered_html')) registry.ids('unfiltered user').add(id);
  check.email('email', 100, { nullable: true });
  const email = check.value('email');
  if (typeof email === 'string') registry.unique(check, 'e-mail keys', emailKey(email), 'email', 'an e-mail address');
  check.date('created_at');
}

function checkTerm(check: RecordCheck, kind: 'category' | 'tag', registry: Registry): void {
  const id = check.id('id') as number;
  registry.unique(check, 'terms', id, 'id');
  registry.ids(kind).add(id);
  const name = check.plain('name', TEXT_LIMITS.termName, { empty: false }) as string;
  registry.unique(check, `slugs:${kind}`, check.slug('slug'), 'slug');
  check.html('description', TEXT_LIMITS.termDescription);
  const parent = check.id('parent', { min: 0 }) as number;
  if (kind === 'tag' && parent !== 0) check.fail('parent', 'is not 0: tags have no parent');
  // Categories come parents first (docs/export-format.md): a parent is an earlier category.
  if (parent !== 0 && !registry.ids('category').has(parent)) check.fail('parent', `names ${parent}, which is no category before it in the file`);
  if (parent === id) check.fail('parent', 'is the category itself');
  const key = check.value('name_key');
  if (key !== null && key !== nameKeyOf(name)) check.fail('name_key', `is not the lower-cased name (${JSON.stringify(nameKeyOf(name))}) or null`);
  if (key !== null) registry.unique(check, `names:${kind}:${parent}`, key as string, 'name', 'a name at one level');
  check.id('count', { min: 0 });
  check.id('version');
}

function checkPost(check: RecordCheck, kind: string, registry: Registry): void {
  const id = check.id('id') as number;
  registry.unique(check, 'posts', id, 'id');
  registry.unique(check, `slugs:${kind}`, check.slug('slug'), 'slug');
  const status = check.oneOf('status', STATUSES);
  check.reference('author', registry.ids('user'), 'user');
  check.plain('title', TEXT_LIMITS.title);
  const unfiltered = registry.ids('unfiltered user').has(check.value('author') as number);
  check.html('description', TEXT_LIMITS.description, unfiltered);
  check.html('excerpt', TEXT_LIMITS.excerpt, unfiltered);
  check.text('password', TEXT_LIMITS.field, { nullable: true });
  check.reference('image', registry.ids('image'), 'image');
  for (const field of ['date', 'date_utc', 'modified', 'modified_utc']) check.date(field);
  // Null on a trashed record too: rows trashed before the column existed have none.
  check.oneOf(
    'trashed_from',
    STATUSES.filter((s) => s !== 'trash'),
    { nullable: true },
  );
  if (status !== 'trash' && check.value('trashed_from') !== null) check.fail('trashed_from', 'is set on a record that is not in the trash');
  check.id('version');
  registry.ids(kind).add(id);
}

function checkOwn(check: RecordCheck, kind: string, registry: Registry, years: Years): void {
  if (kind === 'image') {
    check.url('url', { empty: false });
    check.plain('extension', 10);
    check.id('width', { nullable: true, min: 0 });
    check.id('height', { nullable: true, min: 0 });
  } else if (kind === 'venue' || kind === 'organizer') {
    const fields = kind === 'venue' ? ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'] : ['phone'];
    for (const field of fields) check.plain(field, linkedFieldLimit(field));
    check.url('website');
    if (kind === 'organizer') check.email('email', TEXT_LIMITS.email);
    if (kind === 'venue') {
      check.bool('show_map');
      check.bool('show_map_link');
      check.number('geo_lat', { nullable: true, limit: 90 });
      check.number('geo_lng', { nullable: true, limit: 180 });
    }
  } else checkEvent(check, registry, years);
}

/** The span of the API's rule on event years (dates/event-times.ts), computed once per import. */
interface Years {
  now: Date;
  surelyAfter: string;
  surelyBefore: string;
}

/**
 * The API's span of event years, as stored dates a day wider on each side: a wall time further
 * inside is inside whatever its zone (offsets are under a day); only one nearer the edge is placed
 * in its zone to be sure.
 */
function yearsAround(now: Date): Years {
  const today = DateTime.fromJSDate(now, { zone: 'utc' });
  const earliest = today.minus({ years: MAX_YEARS_FROM_TODAY });
  const latest = today.plus({ years: MAX_YEARS_FROM_TODAY });
  return { now, surelyAfter: earliest.plus({ days: 1 }).toFormat(STORAGE_FORMAT), surelyBefore: latest.minus({ days: 1 }).toFormat(STORAGE_FORMAT) };
}

function checkEvent(check: RecordCheck, registry: Registry, years: Years): void {
  const zone = zoneOf(check.zone('timezone'))!;
  const [start, end] = (['start_date', 'end_date'] as const).map((field) => {
    const local = check.date(field) as string;
    if (local > years.surelyAfter && local < years.surelyBefore) return local;
    const outside = outsideEventYears(field, fromStorage(local, zone), years.now);
    if (outside) check.fail(field, outside.replace(`${field} `, ''));
    return local;
  });
  // Wall times of one zone compare as their text does.
  if (end < start) check.fail('end_date', 'is before start_date');
  check.date('utc_start_date');
  check.date('utc_end_date');
  for (const flag of ['all_day', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'exception']) check.bool(flag);
  if (codePoints(check.strings('cost_raw', TEXT_LIMITS.cost).join('')) > TEXT_LIMITS.cost) check.fail('cost_raw', 'is too long');
  check.strings('cost_values', TEXT_LIMITS.cost);
  check.number('cost_min', { nullable: true });
  check.number('cost_max', { nullable: true });
  check.plain('currency_symbol', TEXT_LIMITS.field);
  check.plain('currency_code', TEXT_LIMITS.field);
  check.oneOf('currency_position', ['', 'prefix', 'postfix']);
  check.url('website');
  const events = registry.ids('all events');
  const id = check.value('id') as number;
  const series = check.value('series');
  const seriesId = check.id('series_id', { nullable: true });
  // A series is named by its first event, which carries it (anywhere in the file: `seriesFirsts`).
  if (series !== null) {
    if (seriesId !== id) check.fail('series_id', "is not the event's own id, though it carries a series");
    if (typeof series !== 'object' || Array.isArray(series)) check.fail('series', 'is not an object');
  } else if (seriesId !== null && !registry.ids('series').has(seriesId)) check.fail('series_id', `names ${seriesId}, which is no series' first event of the file`);
  check.reference('post_parent', events, 'event');
  check.date('recurrence_start', { nullable: seriesId === null });
  check.ids('venue', registry.ids('venue'), 'venue', EMBED_LIMITS.venues);
  check.ids('organizer', registry.ids('organizer'), 'organizer', EMBED_LIMITS.organizers);
  check.ids('categories', registry.ids('category'), 'category', EMBED_LIMITS.categories);
  check.ids('tags', registry.ids('tag'), 'tag', EMBED_LIMITS.tags);
}

function checkSeries(line: number, series: Row): void {
  const check = new RecordCheck(line, series);
  const prefix = (field: string) => `series.${field}`;
  try {
    check.strings('recurrence', TEXT_LIMITS.recurrence);
    check.zone('timezone');
    check.date('materialised_until', { nullable: true });
    check.text('horizon_error', TEXT_LIMITS.field * 4, { nullable: true });
  } catch (err) {
    if (err instanceof ImportRefusal) throw new ImportRefusal(err.message.replace(/"(\w+)"/, (_, field: string) => `"${prefix(field)}"`));
    throw err;
  }
}

/**
 * Checks every record of a parsed file, in the file's order (users, terms, posts), and the header's
 * `next_ids`. `now`: the clock of the API's rule on event years.
 */
export function checkImport(records: readonly Checked[], nextIds: Record<string, unknown>, now: Date): void {
  const registry = new Registry();
  const years = yearsAround(now);
  // Events name each other (an occurrence its series' first event) in any order of the file.
  for (const { kind, record } of records) {
    if (kind !== 'event') continue;
    registry.ids('all events').add(record.id as number);
    if (record.series !== null && record.series !== undefined) registry.ids('series').add(record.id as number);
  }
  for (const { kind, line, record } of records) {
    const check = new RecordCheck(line, record);
    if (kind === 'user') checkUser(check, registry);
    else if (kind === 'category' || kind === 'tag') checkTerm(check, kind, registry);
    else {
      checkPost(check, kind, registry);
      checkOwn(check, kind, registry, years);
      if (kind === 'event' && record.series !== null) checkSeries(line, record.series as Row);
    }
  }
  for (const [table, value] of Object.entries(nextIds)) {
    if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > MAX_RECORD_ID + 1) {
      throw new ImportRefusal(`line 1: "next_ids.${table}" is ${JSON.stringify(value)}: not an integer from 1 to ${MAX_RECORD_ID + 1}`);
    }
  }
}
