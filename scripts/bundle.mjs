// Bundles the hand-written OpenAPI sources (openapi/openapi.yaml and the files under openapi/ it
// references, see openapi/README.md) into generated/openapi.yaml: the one document the service, its
// validator, GET /doc, generated/openapi.d.ts, the linters and the SDK script read (`npm run
// generate`; test/contract/document.test.ts fails when the committed bundle is stale). The service
// reads its JSON twin, generated/openapi.json, written beside it: parsing the YAML took 0.1-0.3 s and
// about 5 MB of resident peak at every start, JSON.parse takes a few milliseconds.
//
//   node scripts/bundle.mjs [output]     default generated/openapi.yaml
//
// `redocly bundle` keeps every component under its own name (`#/components/schemas/Event`; a
// conflict that would rename one is an error). Then every `allOf` of a single `$ref` is flattened
// into the plain schema it names (scripts/flatten-allof.mjs), and the components are sorted by name
// within each type, so the bundle's order does not depend on the order Redocly meets them in, and the
// result is written as YAML 1.1 (strings such as `yes` or `on` quoted), which every reader parses the same.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { flattenSingleRefAllOf } from './flatten-allof.mjs';

/** generated/openapi.json beside generated/openapi.yaml (and beside any other output asked for). */
function jsonTwinOf(yamlPath) {
  return yamlPath.replace(/\.ya?ml$/, '') + '.json';
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const output = path.resolve(process.argv[2] ?? path.join(root, 'generated/openapi.yaml'));
const banner = [
  '# DO NOT EDIT: generated from openapi/ (openapi/openapi.yaml and the files it references) by',
  '# `npm run generate` (redocly bundle, scripts/bundle.mjs). Edit the sources: openapi/README.md.',
  '',
].join('\n');
/** Component types in the order of the hand-written document before the split. */
const COMPONENT_TYPES = ['securitySchemes', 'parameters', 'headers', 'responses', 'schemas'];

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-bundle-'));
try {
  const raw = path.join(folder, 'openapi.yaml');
  try {
    execFileSync(
      process.execPath,
      [
        path.join(root, 'node_modules/@redocly/cli/bin/cli.js'),
        'bundle',
        'openapi/openapi.yaml',
        '--config',
        'openapi/redocly.yaml',
        '--component-renaming-conflicts-severity=error',
        '-o',
        raw,
      ],
      { cwd: root, stdio: 'pipe' },
    );
  } catch (error) {
    process.stderr.write(error.stderr ?? '');
    throw new Error('redocly bundle failed', { cause: error });
  }
  const document = YAML.parse(fs.readFileSync(raw, 'utf8'));
  // `allOf` of one `$ref` (the `*Update` schemas, described properties) → the plain schema.
  flattenSingleRefAllOf(document);
  const byName = ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0);
  const rank = (type) => (COMPONENT_TYPES.includes(type) ? COMPONENT_TYPES.indexOf(type) : COMPONENT_TYPES.length);
  document.components = Object.fromEntries(
    Object.entries(document.components)
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([type, components]) => [type, Object.fromEntries(Object.entries(components).sort(byName))]),
  );
  const text = YAML.stringify(document, { version: '1.1', lineWidth: 0, singleQuote: true, aliasDuplicateObjects: false });
  fs.mkdirSync(path.dirname(output), { recursive: true });
  fs.writeFileSync(output, banner + text);
  // The same document as JSON, beside it (generated/openapi.json): what the service loads at start
  // (src/openapi/document.ts `loadDocument`). It is the YAML as read back, so the two cannot differ.
  fs.writeFileSync(jsonTwinOf(output), JSON.stringify(YAML.parse(banner + text), null, 1) + '\n');
} finally {
  fs.rmSync(folder, { recursive: true, force: true });
}
