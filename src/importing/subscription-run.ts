import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { inStateWriteTransaction, inWriteTransaction, Repositories } from '../repositories/registry.js';
import type { SubscriptionRow } from '../repositories/subscriptions.js';
import { runImport, type ImportReport, type ImportSource } from './engine.js';
import { GetFailed, httpGet } from './http-get.js';
import { ICS_MAX_BYTES, IcsError } from './ics.js';
import { icsSourceOffLoop } from './ics-off-loop.js';
import type { ImportRecord, SkippedRecord } from './records.js';
import { tecSiteSource } from './tec-site.js';
import { openSite, SiteError } from './tec-site-http.js';

/**
 * One run of a subscription (docs/importing.md "Subscribing to a calendar"): its source fetched (an
 * iCalendar URL with If-None-Match / If-Modified-Since, or a site running The Events Calendar through
 * its REST API) and applied through the import engine as the source `subscription:<id>`, with prune:
 * what the subscription created that the source no longer has is removed. Every event it writes
 * gets the subscription's status and categories and says which subscription manages it.
 */

/** What a run did, for its log row and the subscription's state. */
export interface RunResult {
  httpStatus: number | null;
  outcome: 'applied' | 'not-modified' | 'failed';
  counts: { created: number; updated: number; unchanged: number; removed: number; failed: number };
  errors: string[];
  /** The validators of a 200 answer (undefined: keep those stored). */
  etag?: string | null;
  lastModified?: string | null;
}

/** The errors a run keeps, and the characters of each. */
const MAX_RUN_ERRORS = 50;
const MAX_ERROR_LENGTH = 500;

const ZERO = { created: 0, updated: 0, unchanged: 0, removed: 0, failed: 0 };

function bounded(message: string): string {
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
}

function failed(httpStatus: number | null, message: string): RunResult {
  return { httpStatus, outcome: 'failed', counts: { ...ZERO }, errors: [bounded(message)] };
}

/** The source key of a subscription's records in the import bookkeeping. */
const subscriptionSourceKey = (id: number): string => `subscription:${id}`;

/** Events released per transaction when a subscription is gone. */
const RELEASE_BATCH = 500;

/**
 * What a deleted subscription leaves: its events stay as ordinary events, each losing its `managed_by`
 * (a change of each, a batch per transaction), and the bookkeeping of its source goes.
 */
export async function releaseSubscription(db: Knex, id: number): Promise<void> {
  while ((await inWriteTransaction(db, (repositories) => repositories.subscriptions.releaseEvents(id, RELEASE_BATCH))) === RELEASE_BATCH);
  await inStateWriteTransaction(db, (repositories) => repositories.subscriptions.forgetSource(subscriptionSourceKey(id)));
}

/** The source as the subscription applies it: its own key, ids never kept, its status and categories on every event. */
function asSubscription(sub: SubscriptionRow, inner: ImportSource): ImportSource {
  return {
    key: subscriptionSourceKey(sub.id),
    type: 'subscription',
    location: sub.url,
    numericIds: false,
    subscriptionId: sub.id,
    async *records(): AsyncGenerator<ImportRecord | SkippedRecord> {
      for await (const record of inner.records()) {
        if ('skipped' in record || record.kind !== 'event') {
          yield record;
          continue;
        }
        const body = { ...record.body };
        if (sub.status !== null) body.status = sub.status;
        if (sub.categories.length) body.categories = sub.categories;
        yield { ...record, body };
      }
    },
  };
}

/** The events' counts and every failure of a report, bounded. */
function resultOf(report: ImportReport, httpStatus: number, validators: Pick<RunResult, 'etag' | 'lastModified'>): RunResult {
  const errors = report.failures.slice(0, MAX_RUN_ERRORS).map((f) => bounded(`${f.kind} ${f.sourceId}: ${f.reason}`));
  if (report.failures.length > MAX_RUN_ERRORS) errors[MAX_RUN_ERRORS - 1] = `… and ${report.failures.length - MAX_RUN_ERRORS + 1} more failures`;
  return { httpStatus, outcome: 'applied', counts: { ...report.counts.event }, errors, ...validators };
}

async function apply(
  db: Knex,
  config: Config,
  sub: SubscriptionRow,
  inner: ImportSource,
  httpStatus: number,
  validators: Pick<RunResult, 'etag' | 'lastModified'>,
): Promise<RunResult> {
  const owner = await new Repositories(db).users.findById(sub.owner_id);
  const report = await runImport(db, asSubscription(sub, inner), {
    siteTimezone: config.siteTimezone,
    prune: true,
    // Nobody vouches for a subscribed feed: written as an author's writes, HTML cleaned (docs/importing.md).
    role: 'author',
    author: owner,
    recurrence: { maxOccurrences: config.recurrenceMaxOccurrences, horizonDays: config.recurrenceHorizonDays },
  });
  return resultOf(report, httpStatus, validators);
}

async function runIcs(db: Knex, config: Config, sub: SubscriptionRow): Promise<RunResult> {
  const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5' };
  if (sub.etag) headers['if-none-match'] = sub.etag;
  if (sub.last_modified) headers['if-modified-since'] = sub.last_modified;
  let answer;
  try {
    // The outbound rule (core/outbound.ts, docs/settings.md "Outbound requests").
    answer = await httpGet(sub.url, { headers, timeoutMs: config.outbound.fetchTimeoutSeconds * 1000, maxBytes: ICS_MAX_BYTES, allowedNetworks: config.outbound.allowedNetworks });
  } catch (err) {
    if (err instanceof GetFailed) return failed(null, `cannot fetch ${sub.url}: ${err.message}`);
    throw err;
  }
  if (answer.status === 304) return { httpStatus: 304, outcome: 'not-modified', counts: { ...ZERO }, errors: [] };
  if (answer.status !== 200) return failed(answer.status, `${sub.url} answered HTTP ${answer.status}`);
  const header = (name: string) => {
    const value = answer.headers[name];
    return typeof value === 'string' && value.length <= 1024 ? value : null;
  };
  let source;
  try {
    // Parsed and mapped in a worker thread, off the event loop (docs/limits.md "iCalendar imports").
    source = await icsSourceOffLoop(answer.text, { location: sub.url, siteTimezone: config.siteTimezone });
  } catch (err) {
    if (err instanceof IcsError) return failed(200, err.message);
    throw err;
  }
  try {
    return await apply(db, config, sub, source, 200, { etag: header('etag'), lastModified: header('last-modified') });
  } finally {
    source.close();
  }
}

async function runTecSite(db: Knex, config: Config, sub: SubscriptionRow): Promise<RunResult> {
  try {
    const site = await openSite(sub.url, { timeoutMs: config.outbound.fetchTimeoutSeconds * 1000, allowedNetworks: config.outbound.allowedNetworks });
    return await apply(db, config, sub, tecSiteSource(site), 200, {});
  } catch (err) {
    if (err instanceof SiteError) return failed(err.status ?? null, err.message);
    throw err;
  }
}

/** Runs a subscription once (the caller holds its lease). A source that cannot be read is a failed run, not an exception. */
export function runSubscription(db: Knex, config: Config, sub: SubscriptionRow): Promise<RunResult> {
  return sub.type === 'ical' ? runIcs(db, config, sub) : runTecSite(db, config, sub);
}
