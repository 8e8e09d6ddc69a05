import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { runCli } from '../helpers/cli.js';
import { importIcsCommand } from '../../src/ops/import-ics.js';
import { UserError } from '../../src/repositories/users.js';
import { testConfig } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';

/**
 * `npm run -s cli -- import-ics` as a user runs it (docs/importing.md "Importing a calendar file"):
 * the report in JSON and in lines, a dry run, and a file that is no calendar refused before anything
 * is written. The source itself is tested in import-ics.test.ts.
 */

describe('cli import-ics', () => {
  it('imports a file with --json, reports a dry run again in lines, and refuses a file that is no calendar', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-ics-'));
    const database = `sqlite:${path.join(dir, 'events.sqlite')}`;
    const file = path.join(projectRoot(), 'test/fixtures/ics/google.ics');
    try {
      const done = await runCli(database, 'import-ics', file, '--json');
      assert.equal(done.status, 0, done.stderr);
      const report = JSON.parse(done.stdout);
      assert.deepEqual([report.counts.event.created, report.counts.venue.created, report.skipped.length], [3, 1, 2]);
      const dry = await runCli(database, 'import-ics', file, '--dry-run');
      assert.equal(dry.status, 0, dry.stderr);
      assert.match(dry.stdout, /^dry run \(nothing written\): .*google\.ics$/m);
      assert.match(dry.stdout, /^event {5}0 {9}0 {9}3 /m);
      assert.match(dry.stdout, /^skipped: event cancelled1x2y3z@google\.com: it is cancelled \(STATUS:CANCELLED\)\.$/m);
      // A URL: fetched, its location naming the source.
      const server = http.createServer((req, res) => {
        if (req.url === '/apple.ics') res.writeHead(200, { 'content-type': 'text/calendar' }).end(fs.readFileSync(path.join(projectRoot(), 'test/fixtures/ics/apple.ics')));
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { db } = await openTestDatabase();
      const local = testConfig({ outbound: { ...testConfig().outbound, allowedNetworks: ['127.0.0.0/8'] } });
      try {
        const lines: string[] = [];
        const log = console.log;
        console.log = (line: string) => lines.push(line);
        try {
          // The outbound rule (docs/settings.md "Outbound requests"): 127.0.0.1 only when listed.
          await assert.rejects(
            importIcsCommand(db, testConfig(), `${origin}/apple.ics`, { dryRun: false, json: true }),
            (err: Error) => err instanceof UserError && /http only for networks listed in OUTBOUND_ALLOWED_NETWORKS/.test(err.message),
          );
          assert.equal(await importIcsCommand(db, local, `${origin}/apple.ics`, { dryRun: false, json: true }), 0);
        } finally {
          console.log = log;
        }
        assert.deepEqual([JSON.parse(lines[0]).source, JSON.parse(lines[0]).counts.event.created], [`${origin}/apple.ics`, 2]);
        await assert.rejects(importIcsCommand(db, local, `${origin}/gone.ics`, { dryRun: false, json: true }), /gone\.ics answered HTTP 404/);
      } finally {
        server.close();
      }
      // Told before the database is written (in this process: the exit status 1 of a UserError is cli.ts's, as for every command).
      await assert.rejects(
        importIcsCommand(db, testConfig(), path.join(projectRoot(), 'package.json'), { dryRun: false, json: true }),
        (err: Error) => err instanceof UserError && /package\.json: this is not an iCalendar text/.test(err.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
