import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';

/**
 * The shape of src/ (docs/architecture.md "Layers"): every folder is one layer, imports point only
 * down the table (or stay inside their layer), and there is no import cycle between files or
 * between folders. A new folder must be placed here; a new file only needs the right folder.
 */
const LAYERS: ReadonlyArray<{ folders: readonly string[]; role: string }> = [
  { folders: ['.', 'ops'], role: 'entry points: the server, the command line (and its backup commands, ops/), the typed client' },
  { folders: ['http'], role: 'the Express app and its pipeline' },
  { folders: ['operations'], role: 'one thin module per resource, and what they share' },
  {
    folders: ['records', 'webhooks', 'cache', 'importing'],
    role: 'building answers: records, JSON-LD, iCalendar, pages; webhook deliveries (the change feed pushed); the cache purger; the import engine and its sources',
  },
  { folders: ['domain'], role: 'the rules of writes: input, events, series, linked posts' },
  { folders: ['policies'], role: 'who may read and write what' },
  { folders: ['repositories'], role: 'all SQL, and the registry of repositories' },
  { folders: ['db'], role: 'connections, transactions, the data version, the change log, migrations' },
  { folders: ['core', 'auth', 'dates', 'text', 'calendar', 'openapi'], role: 'leaves: settings, errors, dates, text, credentials' },
];

/** The layer of a file: its index in LAYERS, counted from the bottom (leaves are 0). */
function layerOf(file: string): number {
  const folder = file.includes('/') ? file.slice(0, file.indexOf('/')) : '.';
  const index = LAYERS.findIndex(({ folders }) => folders.includes(folder));
  assert.ok(index >= 0, `src/${folder}/ is in no layer: add it to LAYERS in test/unit/architecture.test.ts and to docs/architecture.md`);
  return LAYERS.length - 1 - index;
}

/** A file's folder, down to the level that names a resource (`records/events`, `domain/posts`, `core`). */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 1 ? '.' : parts.slice(0, -1).join('/');
}

/** The cycles of a directed graph (Tarjan's strongly connected components with more than one node). */
function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the architecture of src/', function () {
  this.timeout(60_000);
  let graph: Record<string, string[]>;
  let fileCycles: string[][];
  let migrations: Record<string, string[]>;

  before(async () => {
    const options = { fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false } } };
    const result = await madge(path.resolve('src'), { ...options, excludeRegExp: [/migrations\//] });
    graph = result.obj();
    fileCycles = result.circular();
    assert.ok(Object.keys(graph).length > 50, 'madge read the modules');
    migrations = (await madge(path.resolve('src/db/migrations'), options)).obj();
    assert.ok(Object.keys(migrations).length > 20, 'madge read the migrations');
  });

  it('has no import cycle between files', () => {
    assert.deepEqual(fileCycles, []);
  });

  it('has no import cycle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const [file, imports] of Object.entries(graph)) {
      const from = folderOf(file);
      if (!edges.has(from)) edges.set(from, new Set());
      for (const imported of imports) {
        if (!imported.endsWith('.ts') || imported.startsWith('..')) continue;
        const to = folderOf(imported);
        if (to !== from) edges.get(from)!.add(to);
      }
    }
    assert.deepEqual(cyclesOf(edges), []);
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

  it('keeps no table of database handles in a module: only the three notes on an object about itself (docs/architecture.md "State between requests")', () => {
    const withWeakMaps = Object.keys(graph)
      .filter((file) => !file.startsWith('..'))
      .filter((file) => /new WeakMap\b/.test(fs.readFileSync(path.resolve('src', file), 'utf8')))
      .sort();
    assert.deepEqual(withWeakMaps, ['db/change-log.ts', 'db/data-version.ts', 'db/galera.ts']);
  });

  it('places every file of src/ in a layer', () => {
    for (const file of Object.keys(graph)) if (!file.startsWith('..')) layerOf(file);
  });

  it('keeps migrations free of application modules (db/migrate.ts hands them what they borrow)', () => {
    const outside = Object.entries(migrations)
      .filter(([file]) => !file.startsWith('..'))
      .flatMap(([file, imports]) => imports.filter((imported) => imported.endsWith('.ts') && !/^[^/]+\.ts$/.test(imported)).map((imported) => `${file} → ${imported}`));
    assert.deepEqual(outside, []);
  });

  it('finds cycles and upward imports when there are some (the checks can fail)', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    assert.deepEqual(cyclesOf(edges), [['a', 'b', 'c']]);
    assert.ok(layerOf('http/app.ts') > layerOf('operations/events.ts'));
    assert.ok(layerOf('repositories/events.ts') > layerOf('db/knex.ts'));
    assert.equal(layerOf('core/errors.ts'), layerOf('dates/parse.ts'));
    assert.throws(() => layerOf('nowhere/file.ts'), /in no layer/);
  });
});
