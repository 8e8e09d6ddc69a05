import type { Knex } from 'knex';
import type { Role, User } from '../auth/capabilities.js';
import { RestError } from '../core/errors.js';
import { TurnClock } from '../core/loop-turns.js';
import { HtmlElementBudget } from '../text/html-structure.js';
import { inWriteTransaction, Repositories } from '../repositories/registry.js';
import { IMPORT_KINDS, type ImportKind } from '../repositories/import-origins.js';
import { fingerprintOf, type Counts, type ImportRecord, type RecordKind, type RecordOutcome, type SkippedRecord } from './records.js';
import { imageProblem, KIND_WRITES, problemsOf, type ImportWriter } from './writes.js';
import type { RecurrenceSettings } from '../domain/events/occurrences.js';
import { AuthorResolver } from './authors.js';
import { linkedBody, type LinkIds } from './links.js';

/**
 * The import engine (docs/importing.md "How an import decides"): it takes a source's stream of
 * normalised records (importing/records.ts) and applies each through the service's own writes
 * (importing/writes.ts), one transaction per record with its origin, so a record is written whole or
 * not at all. Whether a record is new, changed or unchanged is decided by its origin (the local record
 * it became) and fingerprint; nothing of the source is held but the keys of the records seen, which
 * `prune` needs. Sources: the plugin's REST API (importing/tec-site.ts), iCalendar texts
 * (importing/ics.ts), and subscriptions of either (importing/subscription-run.ts).
 */

/** A source of records, as the engine sees it. */
export interface ImportSource {
  /** Names the source in the bookkeeping: the same source must always give the same key. */
  key: string;
  type: string;
  /** Where it is read (shown, and kept with the source). */
  location: string;
  /** Whether its ids are numbers of one post id space and one term id space, as here (a WordPress site). */
  numericIds: boolean;
  /** The subscription whose source this is: its events say so (`managed_by`, docs/importing.md "Subscribing to a calendar"). */
  subscriptionId?: number;
  /** Its records, what they refer to first. A failure to read the source ends the import (thrown). */
  records(): AsyncIterable<ImportRecord | SkippedRecord>;
}

export interface ImportReport {
  source: string;
  dryRun: boolean;
  keepsIds: boolean;
  counts: Record<ImportKind, Counts>;
  failures: Array<{ kind: ImportKind; sourceId: string; reason: string }>;
  /** Records the source gave that the import left out on purpose, with why. */
  skipped: Array<{ kind: ImportKind; sourceId: string; reason: string }>;
}

/**
 * The report as `POST /events/import` answers it and `--json` prints it, in the API's snake_case
 * names (as the map file and subscription runs write theirs).
 */
export function reportJson(report: ImportReport) {
  const note = ({ kind, sourceId, reason }: { kind: ImportKind; sourceId: string; reason: string }) => ({ kind, source_id: sourceId, reason });
  return {
    source: report.source,
    dry_run: report.dryRun,
    keeps_ids: report.keepsIds,
    counts: report.counts,
    failures: report.failures.map(note),
    skipped: report.skipped.map(note),
  };
}

export interface ImportOptions {
  siteTimezone: string;
  dryRun?: boolean;
  /** Remove the records this source's imports created that it no longer has. */
  prune?: boolean;
  /** Every record to this user instead of its source author. */
  author?: User;
  onRecord?: (outcome: RecordOutcome) => void;
  now?: () => Date;
  /**
   * The role the records are written as (default `administrator`: HTML kept as the source has it,
   * within the bounds). A source nobody vouches for (a subscribed feed) is written as `author`, whose
   * HTML is cleaned (docs/importing.md "One engine for every source").
   */
  role?: Role;
  /** How far a recurring event's occurrences are stored (the service's settings; docs/contract.md §14). */
  recurrence?: RecurrenceSettings;
}

const DEFAULT_RECURRENCE: RecurrenceSettings = { maxOccurrences: 1000, horizonDays: 730 };

const zeroCounts = (): Counts => ({ created: 0, updated: 0, unchanged: 0, removed: 0, failed: 0 });

/** Runs one import of a source into the database and reports what it did (or, dry, would do). */
export async function runImport(db: Knex, source: ImportSource, options: ImportOptions): Promise<ImportReport> {
  return new ImportRun(db, source, options).run();
}

class ImportRun {
  private readonly reads: Repositories;
  private readonly report: ImportReport;
  private readonly seen = new Map<RecordKind, Set<string>>();
  private readonly failed = new Map<RecordKind, Set<string>>();
  /** Records a dry run would create (their links cannot be checked: they do not exist). */
  private readonly wouldCreate = new Map<RecordKind, Set<string>>();
  private readonly localIds = new Map<string, number>();
  private readonly authors: AuthorResolver;
  private keepsIds = false;

  constructor(
    private readonly db: Knex,
    private readonly source: ImportSource,
    private readonly options: ImportOptions,
  ) {
    this.reads = new Repositories(db);
    this.report = { source: source.location, dryRun: Boolean(options.dryRun), keepsIds: false, counts: {} as ImportReport['counts'], failures: [], skipped: [] };
    for (const kind of IMPORT_KINDS) this.report.counts[kind] = zeroCounts();
    this.authors = new AuthorResolver(db, source.key, Boolean(options.dryRun), (outcome) => this.tell(outcome));
  }

  async run(): Promise<ImportReport> {
    const known = await this.reads.importOrigins.findSource(this.source.key);
    // Ids are kept when the first import of a source goes into an empty database (docs/importing.md).
    this.keepsIds = known ? known.keepsIds : this.source.numericIds && (await this.databaseIsEmpty());
    this.report.keepsIds = this.keepsIds;
    this.authors.keepIds = this.keepsIds;
    const sourceRow = { sourceKey: this.source.key, type: this.source.type, location: this.source.location, keepsIds: this.keepsIds };
    if (!this.options.dryRun) await inWriteTransaction(this.db, (repositories) => repositories.importOrigins.saveSource(sourceRow));
    // SQLite's driver runs every statement on the event loop, and a record is several: the loop gets a
    // turn every TURN_BUDGET_MS, so that an import over HTTP keeps no other request waiting (docs/limits.md).
    const clock = new TurnClock();
    for await (const record of this.source.records()) {
      if (clock.due) await clock.turn();
      await this.apply(record);
    }
    if (this.options.prune) await this.prune();
    return this.report;
  }

  private async databaseIsEmpty(): Promise<boolean> {
    const [posts, terms] = await Promise.all([this.db('posts').first('id'), this.db('terms').first('id')]);
    return !posts && !terms;
  }

  private tell(outcome: RecordOutcome): void {
    this.report.counts[outcome.kind][outcome.action] += 1;
    if (outcome.action === 'failed') this.report.failures.push({ kind: outcome.kind, sourceId: outcome.sourceId, reason: outcome.reason ?? 'failed' });
    this.options.onRecord?.(outcome);
  }

  private mark(map: Map<RecordKind, Set<string>>, kind: RecordKind, sourceId: string): void {
    let set = map.get(kind);
    if (!set) map.set(kind, (set = new Set()));
    set.add(sourceId);
  }

  /** The local id of a record of this source already applied (undefined: none). */
  async localIdOf(kind: RecordKind, sourceId: string): Promise<number | undefined> {
    const key = `${kind} ${sourceId}`;
    if (this.localIds.has(key)) return this.localIds.get(key);
    const origin = await this.reads.importOrigins.find(this.source.key, kind, sourceId);
    if (origin) this.localIds.set(key, origin.localId);
    return origin?.localId;
  }

  private async apply(record: ImportRecord | SkippedRecord): Promise<void> {
    if ('skipped' in record) return this.skip(record);
    const { kind, sourceId } = record;
    // The keys seen are what prune needs (records the source no longer has are those not seen).
    if (this.options.prune) this.mark(this.seen, kind, sourceId);
    try {
      let outcome: RecordOutcome;
      try {
        outcome = await this.applyOne(record);
      } catch (err) {
        if (!(err instanceof ImportedMeanwhile)) throw err;
        // Decided again on what the other import wrote (unchanged, or updated); once is enough, as
        // the lock makes the second decision wait for the other import's write.
        outcome = await this.applyOne(record);
      }
      // Remembered for the records that link it (nothing links an event): what a large site holds is its venues, organizers and terms.
      if (outcome.localId !== undefined && kind !== 'event') this.localIds.set(`${kind} ${sourceId}`, outcome.localId);
      if (outcome.action === 'failed') this.mark(this.failed, kind, sourceId);
      this.tell(outcome);
    } catch (err) {
      if (!(err instanceof RestError)) throw err;
      this.mark(this.failed, kind, sourceId);
      this.tell({ kind, sourceId, action: 'failed', reason: reasonOf(problemsOf(err)) });
    }
  }

  /** A record left out: reported, and what an earlier import of it created removed when it says so. */
  private async skip(record: SkippedRecord): Promise<void> {
    const { kind, sourceId } = record;
    if (record.failed) {
      this.mark(this.failed, kind, sourceId);
      return this.tell({ kind, sourceId, action: 'failed', reason: record.skipped });
    }
    this.report.skipped.push({ kind, sourceId, reason: record.skipped });
    const origin = record.remove ? await this.reads.importOrigins.find(this.source.key, kind, sourceId) : undefined;
    if (!origin?.created) return;
    if (!this.options.dryRun) await this.removeImported(kind, origin.sourceId, origin.localId);
    this.tell({ kind, sourceId, action: 'removed', localId: origin.localId });
  }

  private async removeImported(kind: RecordKind, sourceId: string, localId: number): Promise<void> {
    await inWriteTransaction(this.db, async (repositories) => {
      const existing = await KIND_WRITES[kind].find(repositories, localId);
      if (existing) await KIND_WRITES[kind].remove(repositories, existing);
      await repositories.importOrigins.remove(this.source.key, kind, sourceId);
    });
  }

  /** A local record of the same name taken as this record's (its origin not created: never pruned, not written over). */
  private async matched(record: ImportRecord, fingerprint: string): Promise<RecordOutcome | undefined> {
    const { kind, sourceId } = record;
    const localId = await KIND_WRITES[kind].match?.(this.reads, record.body);
    if (localId === undefined) return undefined;
    if (!this.options.dryRun) {
      await inWriteTransaction(this.db, (repositories) => repositories.importOrigins.save(this.source.key, { kind, sourceId, localId, fingerprint, created: false }));
    }
    return { kind, sourceId, action: 'unchanged', localId };
  }

  private async applyOne(record: ImportRecord): Promise<RecordOutcome> {
    const { kind, sourceId } = record;
    const writes = KIND_WRITES[kind];
    const fingerprint = fingerprintOf(record);
    const origin = await this.reads.importOrigins.find(this.source.key, kind, sourceId);
    const existing = origin && (await writes.find(this.reads, origin.localId));
    if (origin && existing && origin.fingerprint === fingerprint) return { kind, sourceId, action: 'unchanged', localId: origin.localId };
    const match = !origin && record.match ? await this.matched(record, fingerprint) : undefined;
    if (match) return match;
    const links = await this.resolveLinks(record);
    if ('missing' in links) return { kind, sourceId, action: 'failed', reason: links.missing };
    const authorId = this.options.author ? this.options.author.id : await this.authors.localId(record.author);
    const writer: ImportWriter = {
      repositories: this.reads,
      // Who the engine writes as: never stored as an author (the record's author is `authorId`).
      user: { id: 0, login: 'import', role: this.options.role ?? 'administrator' },
      now: this.options.now?.() ?? new Date(),
      siteTimezone: this.options.siteTimezone,
      html: new HtmlElementBudget(),
      authorId,
      modifiedUtc: record.modifiedUtc,
      keepIds: this.keepsIds,
      recurrence: this.options.recurrence ?? DEFAULT_RECURRENCE,
    };
    const body = linkedBody(kind, record.body, links.ids, authorId);
    // A recurring event's changed occurrences link records as the event does.
    for (const override of record.overrides ?? []) {
      const own = await this.resolveLinks({ ...record, links: override.links });
      if ('missing' in own) return { kind, sourceId, action: 'failed', reason: `${override.sourceId}: ${own.missing}` };
      (writer.overrides ??= []).push({ ...override, body: linkedBody(kind, override.body, own.ids, authorId) });
    }
    const prepared = await writes.prepare(body, existing, writer);
    const image = await imageProblem(writer, record.image);
    if ('problems' in prepared || image) {
      return { kind, sourceId, action: 'failed', reason: reasonOf({ ...('problems' in prepared ? prepared.problems : {}), ...(image ? { image } : {}) }) };
    }
    // What the write leaves out of the record (a changed occurrence that is no occurrence here) is told as skipped.
    for (const note of prepared.notes ?? []) this.report.skipped.push({ kind, sourceId: note.sourceId, reason: note.reason });
    if (this.options.dryRun) {
      if (!existing) this.mark(this.wouldCreate, kind, sourceId);
      return { kind, sourceId, action: existing ? 'updated' : 'created', localId: origin?.localId };
    }
    const wantedId = existing ? undefined : await this.keptId(kind, record.id);
    const localId = await inWriteTransaction(
      this.db,
      async (repositories) => {
        // Another import of this source may have written this record since it was read above: then
        // the record is decided again (importOriginLock).
        const now = await repositories.importOrigins.find(this.source.key, kind, sourceId);
        if (now?.localId !== origin?.localId || now?.fingerprint !== origin?.fingerprint) throw new ImportedMeanwhile();
        const trxWriter = { ...writer, repositories };
        let id = origin?.localId;
        if (existing && id !== undefined) await writes.update(repositories, prepared.ready, existing, trxWriter, record.image);
        else id = await writes.create(repositories, prepared.ready, trxWriter, record.image, wantedId);
        if (kind === 'event' && this.source.subscriptionId !== undefined) await repositories.subscriptions.manageEvent(id, this.source.subscriptionId, sourceId);
        await repositories.importOrigins.save(this.source.key, { kind, sourceId, localId: id, fingerprint, created: existing ? (origin?.created ?? true) : true });
        return id;
      },
      [importOriginLock(this.source.key, kind, sourceId)],
    );
    return { kind, sourceId, action: existing ? 'updated' : 'created', localId };
  }

  /** The source id to keep for a new record, when this source keeps ids and no record has it here. */
  private async keptId(kind: RecordKind, id: number | undefined): Promise<number | undefined> {
    if (!this.keepsIds || id === undefined) return undefined;
    const table = kind === 'category' || kind === 'tag' ? 'terms' : 'posts';
    return (await this.reads.importOrigins.freeIds(table, [id])).has(id) ? id : undefined;
  }

  /** The local ids of the records this one refers to, or why one cannot be linked. */
  private async resolveLinks(record: ImportRecord): Promise<{ ids: LinkIds } | { missing: string }> {
    const ids: LinkIds = {};
    const lists: Array<[keyof LinkIds, RecordKind, string[] | undefined]> = [
      ['parent', record.kind, record.links?.parent === undefined ? undefined : [record.links.parent]],
      ['venues', 'venue', record.links?.venues],
      ['organizers', 'organizer', record.links?.organizers],
      ['categories', 'category', record.links?.categories],
      ['tags', 'tag', record.links?.tags],
    ];
    for (const [name, kind, sourceIds] of lists) {
      if (!sourceIds) continue;
      const local: number[] = [];
      for (const sourceId of sourceIds) {
        if (this.failed.get(kind)?.has(sourceId)) return { missing: `its ${kind} ${sourceId} could not be imported` };
        // A dry run cannot link what it did not create: the link is left out of the check.
        if (this.wouldCreate.get(kind)?.has(sourceId)) continue;
        const id = await this.localIdOf(kind, sourceId);
        if (id === undefined) return { missing: `its ${kind} ${sourceId} is not in the source` };
        local.push(id);
      }
      ids[name] = local;
    }
    return { ids };
  }

  /**
   * Removes what this source's imports created that this run did not see, newest kinds first (events
   * before the venues they link). Records an import matched rather than created are never removed.
   */
  private async prune(): Promise<void> {
    for (const kind of [...IMPORT_KINDS].reverse()) {
      if (kind === 'user') continue;
      const seen = this.seen.get(kind) ?? new Set<string>();
      let after: string | undefined;
      for (;;) {
        const page = await this.reads.importOrigins.page(this.source.key, kind, after, 500);
        if (page.length === 0) break;
        after = page[page.length - 1].sourceId;
        for (const origin of page) {
          if (seen.has(origin.sourceId)) continue;
          if (!origin.created) continue;
          if (!this.options.dryRun) await this.removeImported(kind, origin.sourceId, origin.localId);
          this.tell({ kind, sourceId: origin.sourceId, action: 'removed', localId: origin.localId });
        }
      }
    }
  }
}

/** Thrown in a record's transaction when another import wrote the record since this one read its origin. */
class ImportedMeanwhile extends Error {}

/**
 * The write lock of one record of one source (db/write-locks.ts): two imports of the same source at
 * once (two requests, or two processes) each read no origin for a new record; the lock makes the
 * second one's transaction wait for the first's commit, find the origin the first wrote, and decide
 * the record again, so nothing is created twice (docs/importing.md "How an import decides").
 */
function importOriginLock(sourceKey: string, kind: RecordKind, sourceId: string): string {
  return `import:${sourceKey}:${kind}:${sourceId}`;
}

/** A record's problems in one line. */
function reasonOf(problems: Record<string, string>): string {
  return Object.values(problems).join(' ');
}
