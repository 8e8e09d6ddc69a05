import fs from 'node:fs';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { reportJson, runImport, type ImportReport } from '../importing/engine.js';
import type { RecordOutcome } from '../importing/records.js';
import { openSite, SiteError } from '../importing/tec-site-http.js';
import { tecSiteSource } from '../importing/tec-site.js';
import { IMPORT_KINDS, type ImportKind } from '../repositories/import-origins.js';
import { UserError, UserRepository } from '../repositories/users.js';

/**
 * `cli import-site URL`: a site running The Events Calendar copied here through its REST API
 * (docs/importing.md "Moving from WordPress"). Exit status: 0 every record applied, 1 the site or
 * the database could not be used (a site that cannot be opened leaves nothing written), 3 the import
 * ran to its end but some records failed (each is told with its source id and reason).
 */

export const IMPORT_SITE_USAGE = `  import-site URL [--credentials LOGIN:APPLICATION_PASSWORD] [--author LOGIN]
              [--prune] [--dry-run] [--json] [--map FILE] [--per-page N]
                                                     copy a site running The Events Calendar here, or bring
                                                     an earlier copy up to date (docs/importing.md); exit
                                                     status 3 when some records failed`;

interface ImportSiteOptions {
  credentials?: string;
  author?: string;
  prune: boolean;
  dryRun: boolean;
  json: boolean;
  map?: string;
  /** Records per page read from the site (tests read small pages). */
  perPage?: number;
}

export const EXIT_RECORDS_FAILED = 3;

export async function importSiteCommand(db: Knex, config: Config, url: string | undefined, options: ImportSiteOptions): Promise<number> {
  if (!url) throw new UserError('import-site needs the URL of the site');
  const author = options.author === undefined ? undefined : await new UserRepository(db).findByLogin(options.author);
  if (options.author !== undefined && !author) throw new UserError(`--author: no user "${options.author}" here (cli user add)`);
  let site;
  try {
    site = await openSite(url, { credentials: options.credentials });
  } catch (err) {
    throw err instanceof SiteError ? new UserError(err.message) : err;
  }
  const map = options.map ? fs.createWriteStream(options.map, { flags: 'w' }) : undefined;
  const progress = new Progress(!options.json && process.stderr.isTTY === true);
  try {
    const report = await runImport(db, tecSiteSource(site, { perPage: options.perPage }), {
      siteTimezone: config.siteTimezone,
      dryRun: options.dryRun,
      prune: options.prune,
      author,
      onRecord: (outcome) => {
        progress.tick(outcome);
        if (map && outcome.action !== 'failed') map.write(`${JSON.stringify(mapLine(outcome))}\n`);
      },
    });
    progress.done();
    const heading = `${report.source}, ${report.keepsIds ? 'ids and slugs kept' : 'ids mapped'}`;
    console.log(options.json ? JSON.stringify(reportJson(report)) : describeReport(report, heading, IMPORT_KINDS));
    return report.failures.length ? EXIT_RECORDS_FAILED : 0;
  } catch (err) {
    progress.done();
    throw err instanceof SiteError ? new UserError(`${err.message} (the records applied before this stay; run the import again to finish)`) : err;
  } finally {
    if (map) await new Promise((resolve) => map.end(resolve));
  }
}

/** A line of the map file: a source record and the local record it is (docs/importing.md "The map file"). */
function mapLine(outcome: RecordOutcome) {
  return { type: outcome.kind, source_id: outcome.sourceId, id: outcome.localId ?? null, action: outcome.action };
}

/** An import's report in lines: `heading`, the counts of each of `kinds`, then each skipped and failed record with its source id and reason. */
export function describeReport(report: ImportReport, heading: string, kinds: readonly ImportKind[]): string {
  const lines = [`${report.dryRun ? 'dry run (nothing written): ' : ''}${heading}`];
  lines.push(['type', 'created', 'updated', 'unchanged', 'removed', 'failed'].map((h) => h.padEnd(10)).join(''));
  for (const kind of kinds) {
    const c = report.counts[kind];
    lines.push([kind, c.created, c.updated, c.unchanged, c.removed, c.failed].map((v) => String(v).padEnd(10)).join(''));
  }
  for (const skipped of report.skipped) lines.push(`skipped: ${skipped.kind} ${skipped.sourceId}: ${skipped.reason}`);
  for (const failure of report.failures) lines.push(`failed: ${failure.kind} ${failure.sourceId}: ${failure.reason}`);
  return lines.join('\n');
}

/** One line on a terminal, rewritten at most ten times a second. */
class Progress {
  private count = 0;
  private last = 0;

  constructor(private readonly enabled: boolean) {}

  tick(outcome: RecordOutcome): void {
    this.count++;
    if (!this.enabled || Date.now() - this.last < 100) return;
    this.last = Date.now();
    process.stderr.write(`\r${this.count} records read, now ${outcome.kind} ${outcome.sourceId} (${outcome.action})\x1b[K`);
  }

  done(): void {
    if (this.enabled && this.count) process.stderr.write('\r\x1b[K');
  }
}
