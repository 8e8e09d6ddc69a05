import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { readDataVersion } from './data-version.js';

/**
 * A value that depends on the current time ("starts at or after now"). It is still right at a later
 * moment when `unchangedBetween(earlier, later)` says no row crossed the bound in between.
 */
export interface Moving {
  moment: string;
  unchangedBetween(earlier: string, later: string): Promise<boolean>;
}

/**
 * A bound on staleness for changes made outside the service's writes (an operator's SQL, which
 * does not bump the data version; the service's own writes bump it in their transaction:
 * data-version.ts): values are computed again at least this often even with no write in between.
 */
const MAX_AGE_MS = 60_000;

/** How much a cache may hold: entries and, when values are weighed, their summed weight. */
interface CacheLimits<T> {
  maxEntries: number;
  /** Weight of a computed value (bytes of the reply); values are not weighed without it. */
  weigh?: (value: T) => number;
  maxWeight?: number;
  /** A value heavier than this is not kept at all (it would push out many others). */
  maxEntryWeight?: number;
}

interface Entry<T> {
  /** The data version read before the value was computed. */
  version: number;
  /** `Date.now()` when it was stored (see MAX_AGE_MS). */
  storedAt: number;
  /** The moment a time-dependent value was computed at (see `Moving`). */
  moment: string | undefined;
  value: T;
}

/**
 * Values computed from the data (replies to reads, list totals), kept per key with the data version
 * read BEFORE they were computed, and used only while a new read of the version gives the same
 * number. Every committed write bumps the version in its own transaction (data-version.ts), so the
 * read after a write, on any process, sees a new number and computes the value again: exact, with
 * one short statement per use. A value computed while a write committed is kept under the older
 * version, which no later reader reads again. Least recently used entries go first (`lru-cache`).
 * Never used with a transaction (it may see its own uncommitted rows).
 */
export class VersionedCache<T, K extends string = string> {
  private readonly entries: LRUCache<K, Entry<T>>;

  constructor(
    private readonly db: Knex,
    limits: CacheLimits<T>,
  ) {
    const weigh = limits.weigh;
    this.entries = new LRUCache<K, Entry<T>>({
      max: limits.maxEntries,
      ...(weigh && {
        maxSize: limits.maxWeight,
        maxEntrySize: limits.maxEntryWeight,
        // lru-cache wants a positive whole number.
        sizeCalculation: (entry: Entry<T>) => Math.max(1, Math.ceil(weigh(entry.value))),
      }),
    });
  }

  async get(key: K, compute: () => Promise<T>, moving?: Moving): Promise<T> {
    const version = await readDataVersion(this.db);
    const known = this.entries.get(key);
    if (known?.version === version && Date.now() - known.storedAt < MAX_AGE_MS && (await stillAt(known, moving))) return known.value;
    const storedAt = Date.now();
    const value = await compute();
    this.entries.set(key, { version, storedAt, moment: moving?.moment, value });
    return value;
  }

  /** How many entries are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

async function stillAt<T>(entry: Entry<T>, moving: Moving | undefined): Promise<boolean> {
  if (!moving || entry.moment === moving.moment) return true;
  // Stryker disable next-line EqualityOperator: equal moments returned on the line above.
  if (entry.moment === undefined || entry.moment > moving.moment) return false;
  if (!(await moving.unchangedBetween(entry.moment, moving.moment))) return false;
  entry.moment = moving.moment;
  return true;
}

/**
 * A cache of exact list totals (`X-WP-Total`), per filter: counting every matching row costs time
 * that grows with the calendar; the page itself does not. One per app (http/app.ts `createApp`),
 * given to the repositories of reads only, never to a transaction's (it may see its own uncommitted
 * rows).
 */
export function createTotalsCache(db: Knex): VersionedCache<number> {
  return new VersionedCache<number>(db, { maxEntries: 1000 });
}

/** A list's total: from `totals` while it holds, counted by `count` without one. */
export function listTotal(totals: VersionedCache<number> | undefined, key: string, count: () => Promise<number>, moving?: Moving): Promise<number> {
  return totals ? totals.get(key, count, moving) : count();
}

/**
 * The size of the filtered set when one page shows it without a count: a page with fewer rows than
 * it could hold ends the set (offset + rows); an empty first page means none. Otherwise undefined.
 */
export function totalFromPage(rows: number, limit: number, offset: number): number | undefined {
  if (rows > 0 && rows < limit) return offset + rows;
  if (rows === 0 && offset === 0) return 0;
  return undefined;
}
