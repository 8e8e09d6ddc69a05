import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { sharedDataVersion } from './data-version.js';

interface Entry<T> {
  /** The data version (or the stamp, see `getStamped`) the value was computed at. */
  version: number | string;
  storedAt: number;
  /** The moment a time-dependent value was computed at (see `Moving`). */
  moment: string | undefined;
  value: Promise<T>;
  /** The value's weight once computed (0 before). */
  weight: number;
}

/** How much a cache may hold: entries, and the summed weight of their values. */
export interface CacheLimits<T> {
  maxEntries: number;
  /** Weight of a computed value (e.g. bytes of JSON); without it every value weighs nothing. */
  weigh?: (value: T) => number;
  maxWeight?: number;
  /** A value heavier than this is not remembered at all (it would push out many others). */
  maxEntryWeight?: number;
}

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

/**
 * Values computed from the data (list totals, replies to reads), remembered per key while the data
 * version stays the same, so they are exact: any committed write makes them be computed again.
 * Concurrent requests for a value that is not known yet share one computation. The least recently
 * used entries go first when there are more than `maxEntries` or they weigh more than `maxWeight`.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private weight = 0;

  constructor(
    private readonly db: Knex,
    private readonly limits: CacheLimits<T>,
  ) {}

  async get(key: string, compute: () => Promise<T>, moving?: Moving): Promise<T> {
    return this.lookup(key, await sharedDataVersion(this.db), compute, moving);
  }

  /**
   * The value remembered for `key` while `stamp` stays the same: for values whose caller has read
   * everything they depend on in a form that changes whenever they do (a record's row and the
   * versions of what it embeds: records/records.ts). Other writes leave such values valid.
   */
  getStamped(key: string, stamp: string, compute: () => Promise<T>): Promise<T> {
    return this.lookup(key, stampDigest(stamp), compute, undefined);
  }

  private async lookup(key: string, version: number | string, compute: () => Promise<T>, moving: Moving | undefined): Promise<T> {
    const now = Date.now();
    const known = this.entries.get(key);
    if (known && known.version === version && now - known.storedAt < MAX_AGE_MS && (await this.stillAt(known, moving))) {
      // Refresh its place: the map's order is least recently used first.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known.value;
    }
    const entry: Entry<T> = { version, storedAt: now, moment: moving?.moment, value: compute(), weight: 0 };
    this.remove(key);
    this.entries.set(key, entry);
    this.trim();
    entry.value.then(
      (value) => {
        if (this.entries.get(key) !== entry || !this.limits.weigh) return;
        const weight = this.limits.weigh(value);
        if (weight > (this.limits.maxEntryWeight ?? Infinity)) return this.remove(key);
        entry.weight = weight;
        this.weight += entry.weight;
        this.trim();
      },
      // A failure (an error reply, a lost connection) is never remembered.
      () => {
        if (this.entries.get(key) === entry) this.remove(key);
      },
    );
    return entry.value;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.weight -= entry.weight;
    this.entries.delete(key);
  }

  /** Drops the least recently used entries until the limits hold. */
  private trim(): void {
    const maxWeight = this.limits.maxWeight ?? Infinity;
    while (this.entries.size > this.limits.maxEntries || (this.weight > maxWeight && this.entries.size > 1)) {
      this.remove(this.entries.keys().next().value!);
    }
  }

  private async stillAt(entry: Entry<T>, moving: Moving | undefined): Promise<boolean> {
    if (!moving || entry.moment === moving.moment) return true;
    // Stryker disable next-line EqualityOperator: equal moments returned on the line above.
    if (entry.moment === undefined || entry.moment > moving.moment) return false;
    if (!(await moving.unchangedBetween(entry.moment, moving.moment))) return false;
    entry.moment = moving.moment;
    return true;
  }
}

/**
 * A stamp as kept beside a remembered value: its SHA-256 (a stamp is a record's whole row as JSON,
 * often larger than what is remembered under it). Equal stamps, equal digests; different stamps
 * collide only with SHA-256 itself.
 */
export function stampDigest(stamp: string): string {
  return crypto.createHash('sha256').update(stamp).digest('base64');
}

/**
 * Values read together with the data version they were read at (`dataVersion`, a column of the same
 * statement, so both come from one snapshot), remembered per key: a later read of the key costs one
 * statement, the version alone, and reads the value again only when the version moved (any committed
 * write) or the value is older than MAX_AGE_MS. A first read costs what it costs without this.
 * Bounded to `maxEntries`, least recently used first. Never used with a transaction.
 */
export class VersionChecked<T extends { dataVersion: number }> {
  private readonly entries = new Map<string, { value: T; storedAt: number }>();

  constructor(
    private readonly db: Knex,
    private readonly maxEntries: number,
  ) {}

  async get(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key);
    if (known && Date.now() - known.storedAt < MAX_AGE_MS && (await sharedDataVersion(this.db)) === known.value.dataVersion) {
      this.entries.delete(key);
      this.entries.set(key, known);
      return known.value;
    }
    const value = await read();
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: Date.now() });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}

const totals = new WeakMap<Knex, VersionedCache<number>>();

/**
 * Exact list totals (`X-WP-Total`) of one database handle, per filter. Counting every matching row
 * costs time that grows with the calendar; the page itself does not. Never used with a transaction
 * (it may see its own uncommitted rows).
 */
export function totalsOf(db: Knex): VersionedCache<number> {
  let cache = totals.get(db);
  if (!cache) totals.set(db, (cache = new VersionedCache<number>(db, { maxEntries: 1000 })));
  return cache;
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
