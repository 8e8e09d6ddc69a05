import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { ADMIN_CREDENTIALS, loadRecording, replaySite } from '../helpers/tec-site-server.js';

/**
 * `npm run -s cli -- import-site` as a user runs it (docs/importing.md): the report, the map file and
 * the exit status, and a refused login told in one line with nothing written. The engine itself is
 * tested in import-site.test.ts; these run the command in its own process, against a SQLite file.
 */

describe('cli import-site', () => {
  it('imports with --json and --map, and refuses wrong credentials before writing anything', async () => {
    const site = await replaySite(loadRecording());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-site-'));
    const database = `sqlite:${path.join(dir, 'events.sqlite')}`;
    try {
      const refused = await runCli(database, 'import-site', site.origin, '--credentials', 'admin:wrong');
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(refused.stderr, /^error: the site refused the credentials \(HTTP 401/);
      const map = path.join(dir, 'map.jsonl');
      const done = await runCli(database, 'import-site', `${site.origin}/wp-json/tribe/events/v1`, '--credentials', ADMIN_CREDENTIALS, '--json', '--map', map, '--per-page', '10');
      assert.equal(done.status, 0, done.stderr);
      const report = JSON.parse(done.stdout);
      assert.equal(report.counts.event.created, 26);
      assert.equal(report.keeps_ids, true, 'the refused run wrote nothing: the database was still empty');
      const lines = fs
        .readFileSync(map, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        lines.find((line) => line.type === 'event' && line.source_id === '18'),
        { type: 'event', source_id: '18', id: 18, action: 'created' },
      );
      assert.equal(lines.filter((line) => line.type === 'event').length, 26);
    } finally {
      await site.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
