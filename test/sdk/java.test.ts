import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { startService, type RunningService } from './server.js';
import { requireTool, runStory, storyEnvironment } from './story.js';
import { run, runCommand } from './tools.js';

/** The jars the SDK needs, from Debian's libjackson2-{databind,core,annotations}-java (Maven Central is out of reach). */
const JARS = ['jackson-databind', 'jackson-core', 'jackson-annotations'].map((name) => `/usr/share/java/${name}.jar`);
const APT = 'apt-get install openjdk-17-jdk-headless libjackson2-databind-java libjackson2-core-java libjackson2-annotations-java';

/** Every `.java` file under `folder`. */
function javaFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.java'))
    .map((file) => path.join(folder, file));
}

/**
 * The shared client story against the Java SDK of `npm run sdk -- java` (stories/Story.java): the SDK
 * and the story are compiled together with javac against Debian's jackson jars, then run.
 */
describe('the generated Java SDK (npm run sdk -- java: openapi-generator 4.3.1, library=native)', function () {
  let folder: string;
  let classpath: string;
  let service: RunningService;

  before(async function () {
    this.timeout(300_000);
    requireTool(this, '`java`', ['java', '-version'], APT);
    requireTool(this, '`javac`', ['javac', '-version'], APT);
    for (const jar of JARS) requireTool(this, jar, ['test', '-r', jar], APT);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-java-'));
    const sources = path.join(folder, 'sdk');
    run([path.join(projectRoot(), 'scripts/sdk.mjs'), 'java', sources]);
    const classes = path.join(folder, 'classes');
    const story = path.join(projectRoot(), 'test/sdk/stories/Story.java');
    // Compiled in one go with the story: an SDK that does not compile, or a story that no longer
    // matches it, fails here. javac's argument file keeps the command line short.
    const list = path.join(folder, 'sources.txt');
    fs.writeFileSync(list, [...javaFiles(path.join(sources, 'src/main/java')), story].join('\n'));
    runCommand('javac', ['-nowarn', '-encoding', 'UTF-8', '-d', classes, '-cp', JARS.join(':'), `@${list}`]);
    classpath = [classes, ...JARS].join(':');
    service = await startService();
  });

  after(async () => {
    await service?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs the client story: linked records, typed reads, a 304, filters, If-Match, idempotency, the change feed, the feeds, typed errors', async function () {
    this.timeout(180_000);
    await runStory('java', ['-cp', classpath, 'Story'], { env: await storyEnvironment(service) });
  });
});
