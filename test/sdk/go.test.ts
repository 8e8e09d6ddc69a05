import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { startService, type RunningService } from './server.js';
import { requireTool, runStory, storyEnvironment } from './story.js';
import { run, runCommand } from './tools.js';

const APT = 'apt-get install golang-go';

/**
 * The shared client story against the Go SDK of `npm run sdk -- go` (stories/story.go): the story is a
 * module of its own whose go.mod points the SDK's module path at the generated folder, built offline
 * (GOPROXY=off: the SDK needs nothing beyond Go's standard library), then run.
 */
describe('the generated Go SDK (npm run sdk -- go: openapi-generator 4.3.1)', function () {
  let folder: string;
  let binary: string;
  let service: RunningService;

  before(async function () {
    this.timeout(300_000);
    requireTool(this, '`java`', ['java', '-version'], 'openapi-generator is a Java program: apt-get install openjdk-17-jre-headless');
    requireTool(this, '`go`', ['go', 'version'], APT);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-go-'));
    const sdk = path.join(folder, 'sdk');
    run([path.join(projectRoot(), 'scripts/sdk.mjs'), 'go', sdk]);
    const story = path.join(folder, 'story');
    fs.mkdirSync(story);
    fs.copyFileSync(path.join(projectRoot(), 'test/sdk/stories/story.go'), path.join(story, 'main.go'));
    fs.writeFileSync(path.join(story, 'go.mod'), `module story\n\ngo 1.18\n\nrequire example.org/tec/tecevents v0.0.0\n\nreplace example.org/tec/tecevents => ${sdk}\n`);
    binary = path.join(folder, 'story-bin');
    // An SDK that does not build, or a story that no longer matches it, fails here.
    runCommand('go', ['build', '-o', binary, '.'], { cwd: story, env: { GOFLAGS: '-mod=mod', GOPROXY: 'off' } });
    service = await startService();
  });

  after(async () => {
    await service?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs the client story: linked records, typed reads, a 304, filters, If-Match, idempotency, the change feed, the feeds, typed errors', async function () {
    this.timeout(180_000);
    await runStory(binary, [], { env: await storyEnvironment(service) });
  });
});
