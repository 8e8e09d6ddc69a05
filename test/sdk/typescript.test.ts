import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../src/openapi/document.js';
import { createUser } from '../helpers/app.js';
import { startService, type RunningService } from './server.js';
import { STORY_STEPS } from './story.js';
import { run } from './tools.js';

interface Target {
  basePath: string;
  login?: string;
  secret?: string;
  bearer?: string;
}
type Step = (target: Target) => Promise<void>;

/** The story in stories/typescript.mts, loaded once the SDK it imports has been generated. */
interface Story {
  createLinkedEvent: Step;
  listAndPage: Step;
  updateAndDelete: Step;
  typedErrors: Step;
  conditionalReadsAndFields: Step;
  syncAndSafeWrites: Step;
  subscribeToFeeds: Step;
  sharedStory: (target: Target, step: (name: string) => void) => Promise<void>;
  recurringSeries: Step;
}

describe('the generated TypeScript SDK (npm run sdk: @hey-api/openapi-ts)', function () {
  let story: Story;
  let service: RunningService;

  before(async function () {
    this.timeout(300_000);
    const root = projectRoot();
    run([path.join(root, 'scripts/sdk.mjs')]);
    // The SDK and the client code written against it compile in strict mode, for Node's ESM
    // resolution (explicit `.js` extensions) and for bundlers.
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    run([tsc, '-p', path.join(root, 'test/sdk/tsconfig.typescript-nodenext.json')]);
    run([tsc, '-p', path.join(root, 'test/sdk/tsconfig.typescript-bundler.json')]);
    // A variable specifier: the project's type check runs before the SDK exists.
    const storyModule = pathToFileURL(path.join(root, 'test/sdk/stories/typescript.mts')).href;
    story = (await import(storyModule)) as Story;
    service = await startService();
  });

  after(async () => {
    await service?.close();
  });

  async function target(): Promise<Target> {
    const admin = await createUser('administrator');
    const editor = await createUser('editor');
    return { basePath: service.baseUrl, login: admin.login, secret: admin.secret, bearer: editor.secret };
  }

  it('runs the shared client story (docs/sdks.md), as the Python and Java SDKs do', async () => {
    const steps: string[] = [];
    await story.sharedStory(await target(), (name) => steps.push(name));
    assert.deepEqual(steps, [...STORY_STEPS]);
  });

  it('creates a category, a venue, an organizer and an event that links them, and reads event.venue.venue and event.image.url without a cast', async () => {
    await story.createLinkedEvent(await target());
  });

  it('lists events with filters and pages through the results', async () => {
    await story.listAndPage(await target());
  });

  it('updates an event, trashes it and deletes it for good', async () => {
    await story.updateAndDelete(await target());
  });

  it('returns a 400, a 404 and a 401 as typed errors', async () => {
    await story.typedErrors(await target());
  });

  it('sends If-None-Match (304) and _fields, with a bearer token', async () => {
    await story.conditionalReadsAndFields(await target());
  });

  it('creates a recurring series, moves one occurrence, splits the series and lists both halves', async () => {
    await story.recurringSeries(await target());
  });

  it('keeps a copy in sync (modified_after, then the change feed), updates with If-Match (412, then a retry) and replays an idempotent create', async () => {
    await story.syncAndSafeWrites(await target());
  });

  it('subscribes to the iCalendar feeds (text) and pages through the JSON-LD feed (a typed ItemList)', async () => {
    await story.subscribeToFeeds(await target());
  });
});
