import type { Knex } from 'knex';
import type { Repositories } from '../repositories/registry.js';
import type { EventLink } from '../repositories/events.js';
import type { LinkedRow } from '../repositories/linked.js';
import type { TermRow } from '../repositories/terms.js';
import type { ImageRecord } from '../repositories/posts.js';

/**
 * The rows event records embed (venues, organizers, terms, images) repeat across events: a calendar
 * has thousands of events and a few hundred of those. They are remembered here per database handle,
 * by id, and used only at the version the event's links report now (`EventRepository.links`, read
 * in the same request), so an edit of a venue shows in every event on the next read, in every process
 * (a version grows on every write of its record: repositories/posts.ts, repositories/terms.ts). Images
 * are never changed once recorded (domain/posts/images.ts), so their id is enough (docs/contract.md §16).
 *
 * A transaction never uses them: it may see its own uncommitted versions, which a rollback could
 * leave to be reused by another write with other content.
 */

/** A bound on the bytes a `Recent` holds: the most it may hold, and how much one value weighs. */
export interface ByteBound<V> {
  maxBytes: number;
  weigh: (value: V) => number;
}

/**
 * A map that forgets the least recently used entries beyond `max` entries and, with a byte bound,
 * beyond `maxBytes` (a value heavier than that alone is not kept). A count alone does not bound
 * memory: a venue's description can be a few bytes or a few hundred kilobytes.
 */
export class Recent<V, K = number> {
  private readonly values = new Map<K, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly max: number,
    private readonly bound?: ByteBound<V>,
  ) {}

  get(id: K): V | undefined {
    const entry = this.values.get(id);
    if (entry !== undefined) {
      this.values.delete(id);
      this.values.set(id, entry);
    }
    return entry?.value;
  }

  set(id: K, value: V): void {
    this.forget(id);
    const bytes = this.bound ? this.bound.weigh(value) : 0;
    if (this.bound && bytes > this.bound.maxBytes) return;
    this.values.set(id, { value, bytes });
    this.bytes += bytes;
    while (this.values.size > this.max || (this.bound && this.bytes > this.bound.maxBytes)) this.forget(this.values.keys().next().value!);
  }

  /** The number of entries. */
  get size(): number {
    return this.values.size;
  }

  /** What the entries weigh together (0 without a byte bound). */
  get heldBytes(): number {
    return this.bytes;
  }

  private forget(id: K): void {
    const entry = this.values.get(id);
    if (entry === undefined) return;
    this.values.delete(id);
    this.bytes -= entry.bytes;
  }
}

/**
 * About what a row read from the database takes in the heap: 16 bytes and two a character per
 * string (V8 keeps Latin-1 text in one, the rest in two), 8 per other value, 32 per object and 8
 * per property, through nested objects and arrays. An estimate for bounds, not a measure: for the
 * benchmark's venues and organizers (1.1 KB each by this count) a heap snapshot finds about 1.3 KB.
 */
export function roughBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (value === null || typeof value !== 'object') return 8;
  let bytes = 32;
  for (const item of Array.isArray(value) ? value : Object.values(value)) bytes += 8 + roughBytes(item);
  return bytes;
}

interface Remembered {
  linked: Recent<LinkedRow>;
  terms: Recent<TermRow>;
  images: Recent<ImageRecord>;
}

const MAX_LINKED = 5000;
const MAX_TERMS = 2000;
const MAX_IMAGES = 5000;
/** Bytes (`roughBytes`) each kind of remembered row may hold (6, 1 and 2 MiB): the benchmark's 4,000 venues and organizers weigh 4.2 MB. */
const LINKED_BYTES = 6_291_456;
const TERM_BYTES = 1_048_576;
const IMAGE_BYTES = 2_097_152;

const rememberedByHandle = new WeakMap<Knex, Remembered>();

function rememberedFor(db: Knex): Remembered {
  // A transaction is a handle of its own, so it never shares another's rows (the map is keyed by
  // handle; test/ops/record-replies.test.ts checks a rollback).
  let remembered = rememberedByHandle.get(db);
  if (!remembered) {
    remembered = {
      linked: new Recent<LinkedRow>(MAX_LINKED, { maxBytes: LINKED_BYTES, weigh: roughBytes }),
      terms: new Recent<TermRow>(MAX_TERMS, { maxBytes: TERM_BYTES, weigh: roughBytes }),
      images: new Recent<ImageRecord>(MAX_IMAGES, { maxBytes: IMAGE_BYTES, weigh: roughBytes }),
    };
    rememberedByHandle.set(db, remembered);
  }
  return remembered;
}

/** What some events' links point to, at the versions the links report (rows read only where not remembered). */
export interface RelatedRows {
  linked: Map<number, LinkedRow>;
  terms: Map<number, TermRow>;
  images: Map<number, ImageRecord>;
}

export async function relatedRows(repositories: Repositories, links: EventLink[], imageIds: Array<number | null>): Promise<RelatedRows> {
  const remembered = rememberedFor(repositories.db);
  const linked = new Map<number, LinkedRow>();
  const terms = new Map<number, TermRow>();
  const missing = { venue: new Set<number>(), organizer: new Set<number>(), term: new Set<number>() };
  for (const link of links) {
    const known = link.kind === 'term' ? remembered.terms.get(link.id) : remembered.linked.get(link.id);
    if (known?.version === link.version) (link.kind === 'term' ? terms : linked).set(link.id, known as never);
    else missing[link.kind].add(link.id);
  }
  // A row read here may be newer than its link reported (a write in between): it is remembered at
  // its own version, and the next read of the links will report that version.
  for (const row of [...(await repositories.venues.findByIds([...missing.venue])), ...(await repositories.organizers.findByIds([...missing.organizer]))]) {
    remembered.linked.set(row.id, row);
    linked.set(row.id, row);
  }
  for (const row of missing.term.size ? await repositories.terms.findByIds([...missing.term]) : []) {
    remembered.terms.set(row.id, row);
    terms.set(row.id, row);
  }

  const images = new Map<number, ImageRecord>();
  const missingImages: number[] = [];
  for (const id of [...imageIds, ...[...linked.values()].map((row) => row.imageId)]) {
    if (id === null || images.has(id)) continue;
    const known = remembered.images.get(id);
    if (known) images.set(id, known);
    else missingImages.push(id);
  }
  for (const [id, image] of missingImages.length ? await repositories.posts.loadImages(missingImages) : []) {
    remembered.images.set(id, image);
    images.set(id, image);
  }
  return { linked, terms, images };
}
