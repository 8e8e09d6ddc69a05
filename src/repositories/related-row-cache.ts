import { LRUCache } from 'lru-cache';
import type { LinkedRow } from './linked.js';
import type { TermRow } from './terms.js';
import type { ImageRecord } from './posts.js';

/**
 * The rows event records embed (venues, organizers, terms, images), kept by id: a calendar has
 * thousands of events and a few hundred of those, so a random event's read finds them here instead
 * of sending three more statements (records/related-rows.ts). One per app (http/app.ts `createApp`),
 * given to the repositories of reads only: a transaction's repositories have none, as it may see
 * its own uncommitted versions, which a rollback could leave to be reused with other content.
 *
 * Exact without any invalidation: a venue, organizer or term is used only at the version the
 * event's links report in the same request (a version grows on every write of its record, and a
 * record written under a kept id starts above every earlier version: repositories/posts.ts
 * `keptIdVersion`); images never change once recorded, so their id is enough.
 *
 * Bounded by an estimate of their bytes (`roughBytes`), as a description can be a few bytes or a
 * few hundred kilobytes: 6, 1 and 2 MiB (the benchmark's 4,000 venues and organizers weigh 4.2 MB).
 */
export class RelatedRowCache {
  readonly linked = rowCache<LinkedRow>(6_291_456);
  readonly terms = rowCache<TermRow>(1_048_576);
  readonly images = rowCache<ImageRecord>(2_097_152);
}

function rowCache<V extends object>(maxSize: number): LRUCache<number, V> {
  return new LRUCache<number, V>({ maxSize, maxEntrySize: maxSize, sizeCalculation: (row) => roughBytes(row) });
}

/**
 * About what a row read from the database takes in the heap: 16 bytes and two a character per
 * string, 8 per other value, 32 per object and 8 per property, through nested objects and arrays.
 * An estimate for bounds, not a measure.
 */
function roughBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (value === null || typeof value !== 'object') return 8;
  let bytes = 32;
  for (const item of Array.isArray(value) ? value : Object.values(value)) bytes += 8 + roughBytes(item);
  return bytes;
}
