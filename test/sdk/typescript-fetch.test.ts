import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../src/openapi/document.js';
import { createUser } from '../helpers/app.js';
import { skipUnlessJava } from './java.js';
import { startService, type RunningService } from './server.js';

type Step = (target: { basePath: string; login: string; secret: string }) => Promise<void>;

/** The story in stories/typescript-fetch.mts, loaded once the SDK it imports has been generated. */
interface Story {
  createLinkedEvent: Step;
  listAndPage: Step;
  updateAndDelete: Step;
  typedErrors: Step;
}

/** Runs a tool of the project, showing its output when it fails. */
function run(args: string[]): void {
  try {
    execFileSync(process.execPath, args, { cwd: projectRoot(), stdio: 'pipe', encoding: 'utf8' });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

describe('the generated TypeScript SDK (npm run sdk, typescript-fetch)', function () {
  let story: Story;
  let service: RunningService;

  before(async function () {
    this.timeout(300_000);
    skipUnlessJava(this);
    const root = projectRoot();
    run([path.join(root, 'scripts/sdk.mjs')]);
    // The SDK and the client code written against it must compile in strict mode.
    run([path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'test/sdk/tsconfig.json')]);
    // A variable specifier: the project's type check runs before the SDK exists.
    const storyModule = pathToFileURL(path.join(root, 'test/sdk/stories/typescript-fetch.mts')).href;
    story = (await import(storyModule)) as Story;
    service = await startService();
  });

  after(async () => {
    await service?.close();
  });

  async function target() {
    const admin = await createUser('administrator');
    return { basePath: service.baseUrl, login: admin.login, secret: admin.secret };
  }

  it('creates a category, a venue, an organizer and an event that links them', async () => {
    await story.createLinkedEvent(await target());
  });

  it('lists events with filters and pages through the results', async () => {
    await story.listAndPage(await target());
  });

  it('updates an event, trashes it and deletes it for good', async () => {
    await story.updateAndDelete(await target());
  });

  it('turns a 400 and a 404 into typed errors', async () => {
    await story.typedErrors(await target());
  });
});
