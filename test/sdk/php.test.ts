import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { startService, type RunningService } from './server.js';
import { requireTool, runStory, storyEnvironment } from './story.js';
import { run } from './tools.js';

/** Debian's PHP and Guzzle (Packagist is not used): Guzzle's autoloader is where php-guzzlehttp-guzzle puts it. */
const GUZZLE = '/usr/share/php/GuzzleHttp/autoload.php';
// mbstring: the models check string lengths with mb_strlen (Debian's php-cli leaves it out).
const APT = 'apt-get install php-cli php-mbstring php-guzzlehttp-guzzle';

/** The shared client story against the PHP SDK of `npm run sdk -- php` (stories/story.php). */
describe('the generated PHP SDK (npm run sdk -- php: openapi-generator 4.3.1)', function () {
  let folder: string;
  let service: RunningService;

  before(async function () {
    this.timeout(300_000);
    requireTool(this, '`java`', ['java', '-version'], 'openapi-generator is a Java program: apt-get install openjdk-17-jre-headless');
    requireTool(this, '`php`', ['php', '--version'], APT);
    requireTool(this, 'Guzzle', ['test', '-r', GUZZLE], APT);
    requireTool(this, "PHP's mbstring", ['php', '-r', 'exit(function_exists("mb_strlen") ? 0 : 1);'], APT);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-php-'));
    run([path.join(projectRoot(), 'scripts/sdk.mjs'), 'php', folder]);
    service = await startService();
  });

  after(async () => {
    await service?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs the client story: linked records, typed reads, a 304, filters, If-Match, idempotency, the change feed, the feeds, typed errors', async function () {
    this.timeout(180_000);
    const story = path.join(projectRoot(), 'test/sdk/stories/story.php');
    await runStory('php', [story], { env: { ...(await storyEnvironment(service)), TEC_SDK: folder } });
  });
});
