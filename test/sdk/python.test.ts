import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { startService, type RunningService } from './server.js';
import { requireTool, runStory, storyEnvironment } from './story.js';
import { run } from './tools.js';

/** Debian's Python: the pyenv python3 on PATH has no packages, and PyPI cannot be reached. */
const PYTHON = '/usr/bin/python3';

/** The shared client story against the Python SDK of `npm run sdk -- python` (stories/python.py). */
describe('the generated Python SDK (npm run sdk -- python: openapi-generator 4.3.1)', function () {
  let folder: string;
  let service: RunningService;

  before(async function () {
    this.timeout(300_000);
    requireTool(this, '`java`', ['java', '-version'], 'openapi-generator is a Java program: apt-get install openjdk-17-jre-headless');
    requireTool(
      this,
      "Python with the SDK's packages",
      [PYTHON, '-c', 'import urllib3, six, certifi, dateutil'],
      'apt-get install python3-urllib3 python3-six python3-certifi python3-dateutil',
    );
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-python-'));
    run([path.join(projectRoot(), 'scripts/sdk.mjs'), 'python', folder]);
    service = await startService();
  });

  after(async () => {
    await service?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs the client story: linked records, typed reads, a 304, filters, If-Match, idempotency, the change feed, the feeds, typed errors', async function () {
    this.timeout(180_000);
    const story = path.join(projectRoot(), 'test/sdk/stories/python.py');
    await runStory(PYTHON, [story], { env: { ...(await storyEnvironment(service)), PYTHONPATH: folder, PYTHONDONTWRITEBYTECODE: '1' } });
  });
});
