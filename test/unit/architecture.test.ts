import assert from 'node:assert/strict';
import path from 'node:path';
import madge from 'madge';

/**
 * The shape of src/ (README, Design): no import cycles, and imports point down the layers
 * HTTP → services and policies → repositories → database, with errors and pure helpers below all of
 * them. Every module belongs to a layer; a new module must be placed here.
 */
const LAYERS: Array<[layer: number, name: string, pattern: RegExp]> = [
  [
    0,
    'base: errors, settings, dates, text, URLs, the document, the database, the iCalendar writer',
    /^(errors|logger|config|urls|host|loop-turns)\.ts$|^(dates|text|openapi|db|calendar)\//,
  ],
  [1, 'users and credentials', /^auth\//],
  [
    2,
    'repositories and their vocabularies',
    /^(posts\/(repository|read-scope|unique-slugs|slug-claims|list-order)|events\/(repository|series|cost|list-window|term-link-times)|linked\/(repository|kinds)|terms\/(repository|taxonomies)|changes\/repository|idempotency\/repository|repositories)\.ts$/,
  ],
  [3, 'policies', /^policies\//],
  [
    4,
    'services: input parsing, writes, record building, page rendering',
    /^(services\/|posts\/(writes|images)\.ts$|linked\/(writes|mapper|json-ld)\.ts$|events\/(input|mapper|ical|json-ld|occurrences|writes|series-writes)\.ts$|terms\/mapper\.ts$|pages\/(read|views|layout)\.ts$)/,
  ],
  [
    5,
    'HTTP: the app, its pipeline, handlers, discovery, pages, entry points',
    /^(http\/|discovery\/|(events|linked|terms|changes|pages)\/handlers\.ts$|(app|operations|main|cli|client)\.ts$)/,
  ],
];

function layerOf(file: string): number {
  const found = LAYERS.find(([, , pattern]) => pattern.test(file));
  assert.ok(found, `${file} belongs to no layer (test/unit/architecture.test.ts)`);
  return found[0];
}

describe('the architecture of src/', function () {
  this.timeout(60_000);
  let graph: Record<string, string[]>;
  let cycles: string[][];

  before(async () => {
    const result = await madge(path.resolve('src'), { fileExtensions: ['ts'], excludeRegExp: [/migrations\//], detectiveOptions: { ts: { skipTypeImports: false } } });
    graph = result.obj();
    cycles = result.circular();
    assert.ok(Object.keys(graph).length > 50, 'madge read the modules');
  });

  it('has no import cycle', () => {
    assert.deepEqual(cycles, []);
  });

  it('imports only from the same layer or below', () => {
    const upward: string[] = [];
    for (const [file, imports] of Object.entries(graph)) {
      for (const imported of imports) {
        if (!imported.endsWith('.ts') || imported.startsWith('..')) continue;
        if (layerOf(imported) > layerOf(file)) upward.push(`${file} → ${imported}`);
      }
    }
    assert.deepEqual(upward, []);
  });
});
