import crypto from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import type { ImportKind } from '../repositories/import-origins.js';

/**
 * What every source gives the import engine (docs/importing.md "How an import decides"): records
 * already normalised to the service's own write bodies, each with the key it has at its source, so
 * the engine never knows where a record came from. A source is a stream of these in an order where
 * what a record refers to comes first (a category's parent, an event's venues, organizers and terms).
 */

/** A record's kind: a category, tag, venue, organizer or event (users come from records' authors). */
export type RecordKind = Exclude<ImportKind, 'user'>;

/** The author of a record at its source: its id there and the login it becomes here. */
export interface SourceAuthor {
  sourceId: string;
  login: string;
}

/** An image by URL, with what the source knows of it. */
export interface SourceImage {
  url: string;
  /** Its id at the source, kept like a record's when the source keeps ids. */
  id?: number;
  width?: number | null;
  height?: number | null;
}

/** The records one record refers to, by their source ids. */
export interface SourceLinks {
  parent?: string;
  venues?: string[];
  organizers?: string[];
  categories?: string[];
  tags?: string[];
}

export interface ImportRecord {
  kind: RecordKind;
  /** Its key at the source (an id, or an iCalendar UID): unique per kind and source. */
  sourceId: string;
  /** The local id it should get when the source keeps ids (a numeric id of the same id space as ours). */
  id?: number;
  /**
   * The write body, in the names and forms the service's API takes for this kind (docs/interface.md),
   * without links, author and image, which the engine resolves. `date_utc` keeps the publication date.
   */
  body: Record<string, unknown>;
  /** When the source last changed it (UTC `YYYY-MM-DD HH:MM:SS`), kept as the record's `modified`. */
  modifiedUtc?: string;
  author?: SourceAuthor;
  image?: SourceImage;
  links?: SourceLinks;
  /**
   * When no import of this source made it yet, take the local record of the same name (a venue's or
   * organizer's title, an organizer's e-mail, a term's name) instead of creating one: its origin says
   * it was matched, so prune never removes it, and it is not written over.
   */
  match?: boolean;
  /**
   * A recurring event's changed occurrences (iCalendar RECURRENCE-ID overrides): each becomes the
   * occurrence of the series that starts at its `recurrenceStart`, changed on its own as
   * `PATCH …?scope=this` changes one (docs/importing.md "Importing a calendar file").
   */
  overrides?: OccurrenceOverride[];
}

/** One changed occurrence of a recurring event, as its source gives it. */
export interface OccurrenceOverride {
  /** The start the series' rules give it (its RECURRENCE-ID), as a local time in the series' zone (`YYYY-MM-DD HH:MM:SS`). */
  recurrenceStart: string;
  /** How reports name it (`UID RECURRENCE-ID value`). */
  sourceId: string;
  /** Its whole write body, as the event's (times, title, description, …). */
  body: Record<string, unknown>;
  modifiedUtc?: string;
  image?: SourceImage;
  links?: SourceLinks;
}

/**
 * A record of the source the import leaves out, with why (an iCalendar event that is cancelled or
 * private), or that cannot be read (`failed`); `remove`: the local record an earlier import of this source created from it goes.
 */
export interface SkippedRecord {
  kind: RecordKind;
  sourceId: string;
  skipped: string;
  remove?: boolean;
  /** It could not be read: reported as a failure (with the reason `skipped` gives), not as skipped. */
  failed?: boolean;
}

/** What an import does to a record. */
type Action = 'created' | 'updated' | 'unchanged' | 'removed' | 'failed';
export type Counts = Record<Action, number>;

/** What happened to one record (progress, the map file). */
export interface RecordOutcome {
  kind: ImportKind;
  sourceId: string;
  action: Action;
  localId?: number;
  reason?: string;
}

/**
 * The fingerprint of a record as a source gave it: equal fingerprints mean the source did not change
 * the record since it was last applied (its links by source id, so a renumbering here changes nothing).
 */
export function fingerprintOf(record: ImportRecord): string {
  const { kind, sourceId, body, modifiedUtc, author, image, links, overrides } = record;
  return crypto.createHash('sha256').update(canonicalJson({ kind, sourceId, body, modifiedUtc, author, image, links, overrides })).digest('hex');
}
