import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { apiChangesSection, unmentioned } from '../../scripts/api-diff/changelog.js';
import { compareDocuments, formatReport } from '../../scripts/api-diff/compare.js';

/**
 * The breaking-change check of CI (docs/api-versioning.md): the current bundle, generated/openapi.yaml
 * (kept equal to openapi/ by document.test.ts), against the last released document,
 * openapi/released/openapi.yaml. The comparer itself is tested on planted documents in
 * test/unit/api-diff.test.ts.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const RELEASED = 'openapi/released/openapi.yaml';
const CURRENT = 'generated/openapi.yaml';
const read = (file: string): Record<string, unknown> => YAML.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

describe('the API against the released document (breaking-change check)', () => {
  const report = compareDocuments(read(RELEASED), read(CURRENT));

  it('has no breaking change, unless the major of info.version is raised', () => {
    assert.ok(
      report.passes,
      `${formatReport(report)}\n\nKeep the old path, operation, parameter or field (mark it deprecated), or raise the major of info.version in openapi/openapi.yaml (docs/api-versioning.md).`,
    );
  });

  it('CHANGELOG.md starts with an "API changes" section that names every added or removed path and operation', () => {
    const section = apiChangesSection(fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'));
    assert.ok(section !== null, 'the first section of CHANGELOG.md has no "### API changes" subsection (docs/api-versioning.md "Releasing the document")');
    assert.deepEqual(unmentioned(report, section), [], `name these paths in backticks under "### API changes":\n${formatReport(report)}`);
  });

  describe('npm run -s api:diff', () => {
    let folder: string;
    before(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'api-diff-'))));
    after(() => fs.rmSync(folder, { recursive: true, force: true }));

    /** Runs the command's script as `npm run -s api:diff -- ARGS` does; resolves to its exit code and output. */
    async function apiDiff(...args: string[]): Promise<{ code: number; stdout: string }> {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/api-diff/run.ts', ...args], { cwd: ROOT });
        return { code: 0, stdout };
      } catch (error) {
        const failed = error as { code: number; stdout: string };
        return { code: failed.code, stdout: failed.stdout };
      }
    }

    it('prints the report of the current document and exits 0 when it passes', async function () {
      this.timeout(30_000);
      const { code, stdout } = await apiDiff();
      assert.equal(stdout.trim(), formatReport(report));
      assert.equal(code, report.passes ? 0 : 1);
    });

    it('exits 1 and names the change on a planted removed response field', async function () {
      this.timeout(30_000);
      const planted = read(RELEASED) as { components: { schemas: { Venue: { properties: Record<string, unknown> } } } };
      delete planted.components.schemas.Venue.properties.city;
      fs.writeFileSync(path.join(folder, 'planted.yaml'), YAML.stringify(planted));
      const { code, stdout } = await apiDiff(RELEASED, path.join(folder, 'planted.yaml'));
      assert.equal(code, 1, stdout);
      assert.match(stdout, /GET \/venues\/\{id\} response 200 application\/json \.city: response field removed/);
      assert.match(stdout, /^FAIL: /m);
    });
  });
});
