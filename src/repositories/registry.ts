import type { RelatedRowCache } from './related-row-cache.js';
import type { Knex } from 'knex';
import type { VersionedCache } from '../db/versioned-cache.js';
import { inStateTransaction, inTransaction } from '../db/transactions.js';
import { takeWriteLocks } from '../db/write-locks.js';
import { UserRepository } from './users.js';
import { PostRepository } from './posts.js';
import { EventRepository } from './events.js';
import { SeriesRepository } from './series.js';
import { OccurrenceCopyRepository } from './occurrence-copies.js';
import { OccurrenceWriteRepository } from './occurrence-writes.js';
import { LinkedRepository } from './linked.js';
import { ORGANIZERS, VENUES, type LinkedKind } from './linked-kinds.js';
import { TermRepository } from './terms.js';
import { ChangeRepository, type ChangeFeedCache } from './changes.js';
import { IdempotencyRepository } from './idempotency.js';
import { PasswordGuessRepository } from './password-guesses.js';
import { WebhookRepository } from './webhooks.js';
import { ImportOriginRepository } from './import-origins.js';
import { SubscriptionRepository } from './subscriptions.js';

/**
 * The caches of one app that the reads of its requests use (http/app.ts `createApp`); a purger or a
 * webhook delivery keeps the change feed's alone. Each is optional: without it, reads ask the database.
 */
export interface ReadCaches {
  /** The rows event records embed (repositories/related-row-cache.ts). */
  relatedRows?: RelatedRowCache;
  /** Exact list totals per filter (db/versioned-cache.ts `createTotalsCache`). */
  totals?: VersionedCache<number>;
  /** The cursors' key, the committed position and the waits for a change (repositories/changes.ts). */
  changeFeed?: ChangeFeedCache;
}

/**
 * Every repository, on one database handle, each created once: a request gets one set for its reads
 * (OperationContext.repositories), a write gets one set on its transaction (`inWriteTransaction`).
 * All SQL lives in the repositories.
 */
export class Repositories {
  private cache = new Map<string, unknown>();

  /**
   * @param caches what the app keeps between requests (http/app.ts `createApp`): given to the reads
   * of requests only, never to a transaction's repositories (they may see their own uncommitted rows).
   */
  constructor(
    readonly db: Knex,
    private readonly caches?: ReadCaches,
  ) {}

  /** The rows event records embed, kept between requests (repositories/related-row-cache.ts). */
  get relatedRows(): RelatedRowCache | undefined {
    return this.caches?.relatedRows;
  }

  private once<T>(name: string, create: () => T): T {
    if (!this.cache.has(name)) this.cache.set(name, create());
    return this.cache.get(name) as T;
  }

  get posts(): PostRepository {
    return this.once('posts', () => new PostRepository(this.db));
  }

  get events(): EventRepository {
    return this.once('events', () => new EventRepository(this.db, this.posts, this.caches?.totals));
  }

  get series(): SeriesRepository {
    return this.once('series', () => new SeriesRepository(this.db));
  }

  get occurrenceCopies(): OccurrenceCopyRepository {
    return this.once('occurrenceCopies', () => new OccurrenceCopyRepository(this.db));
  }

  get occurrenceWrites(): OccurrenceWriteRepository {
    return this.once('occurrenceWrites', () => new OccurrenceWriteRepository(this.db));
  }

  get venues(): LinkedRepository {
    return this.linked(VENUES);
  }

  get organizers(): LinkedRepository {
    return this.linked(ORGANIZERS);
  }

  linked(kind: LinkedKind): LinkedRepository {
    return this.once(kind.type, () => new LinkedRepository(this.db, kind, this.posts, this.caches?.totals));
  }

  get terms(): TermRepository {
    return this.once('terms', () => new TermRepository(this.db));
  }

  get changes(): ChangeRepository {
    return this.once('changes', () => new ChangeRepository(this.db, this.caches?.changeFeed));
  }

  get idempotency(): IdempotencyRepository {
    return this.once('idempotency', () => new IdempotencyRepository(this.db));
  }

  get passwordGuesses(): PasswordGuessRepository {
    return this.once('passwordGuesses', () => new PasswordGuessRepository(this.db));
  }

  get webhooks(): WebhookRepository {
    return this.once('webhooks', () => new WebhookRepository(this.db));
  }

  get importOrigins(): ImportOriginRepository {
    return this.once('importOrigins', () => new ImportOriginRepository(this.db));
  }

  get subscriptions(): SubscriptionRepository {
    return this.once('subscriptions', () => new SubscriptionRepository(this.db));
  }

  get users(): UserRepository {
    return this.once('users', () => new UserRepository(this.db));
  }
}

/**
 * Runs a write on repositories bound to one transaction (db/transactions.ts `inTransaction`: retried
 * on conflicts, the data version bumped after the commit). The only way the services write. `locks`
 * (db/write-locks.ts) are taken first, before the work reads anything.
 */
export function inWriteTransaction<T>(db: Knex, work: (repositories: Repositories) => Promise<T>, locks: readonly string[] = []): Promise<T> {
  return inTransaction(db, async (trx) => {
    await takeWriteLocks(trx, locks);
    return work(new Repositories(trx));
  });
}

/**
 * Runs a write of state that neither the change feed nor any cached reply shows (webhooks,
 * docs/webhooks.md) on repositories bound to one transaction: retried like `inWriteTransaction`, but
 * without a change log and without moving the data version (db/transactions.ts `inStateTransaction`).
 */
export function inStateWriteTransaction<T>(db: Knex, work: (repositories: Repositories) => Promise<T>): Promise<T> {
  return inStateTransaction(db, (trx) => work(new Repositories(trx)));
}
