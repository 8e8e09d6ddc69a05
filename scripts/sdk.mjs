// Generates a client SDK from generated/openapi.yaml, the bundled document (`npm run sdk`).
//
//   npm run sdk                          TypeScript (@hey-api/openapi-ts) into sdk/typescript/
//   npm run sdk -- typescript sdk/ts     the same, into another folder
//   npm run sdk -- python                any generator of openapi-generator 4.3.1, into sdk/python/
//   npm run sdk -- java sdk/java-client  with an explicit output folder
//   npm run sdk -- php | go              PHP (Guzzle) and Go (standard library only): docs/sdks.md
//
// TypeScript: @hey-api/openapi-ts, an npm package that runs offline and types the document's unions
// (`Event.venue` is `Venue | Array<Venue>`, `Event.image` is `Image | false`), with its own fetch
// client in the output (no runtime dependency). Imports carry `.js` extensions, so the SDK compiles
// under `moduleResolution` `nodenext` as well as `bundler`.
//
// Other languages: openapi-generator. Maven Central is not reachable here, so the npm wrapper
// (@openapitools/openapi-generator-cli) runs the generator JAR that the official npm scope ships in
// @openapitools/openapi-generator-cli@1.0.18-4.3.1, installed under the alias `openapi-generator-jar`.
// `--custom-generator` makes the wrapper use that JAR without looking up or downloading a version;
// openapitools.json pins 4.3.1 so the wrapper never writes a configuration without a version. The JAR
// needs Java (8 or newer).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const generator = process.argv[2] ?? 'typescript';
const output = path.resolve(root, process.argv[3] ?? path.join('sdk', generator));
const document = path.join(root, 'generated/openapi.yaml');

/** The TypeScript SDK: types, one function per operationId, and the fetch client they use. */
async function typescript() {
  const { createClient } = await import('@hey-api/openapi-ts');
  await createClient({
    input: document,
    output: { path: output, module: { extension: '.js' } },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'silent', file: false },
  });
}

/** openapi-generator's options chosen for this document, per generator. */
const PROPERTIES = {
  // Wire names as properties (`start_date`, not `startDate`), so the typed models, the pass-through
  // union types and the JSON all agree.
  'typescript-fetch': 'supportsES6=true,typescriptThreePlus=true,modelPropertyNaming=original',
  python: 'packageName=tec_events_client,projectName=tec-events-client',
  // The package `tecevents`, module example.org/tec/tecevents (GIT_ARGUMENTS): the team renames it in go.mod.
  go: 'packageName=tecevents',
  php: 'invokerPackage=TecEvents,composerVendorName=example,composerProjectName=tec-events-client',
  // java.net.http (no HTTP library) and java.time (no threetenbp): with the templates below, the SDK
  // needs only jackson-databind, -core and -annotations, which Debian packages.
  java: 'library=native,dateLibrary=java8,hideGenerationTimestamp=true,groupId=org.example,artifactId=tec-events-client,apiPackage=org.example.tec.api,modelPackage=org.example.tec.model,invokerPackage=org.example.tec',
};

/** Options outside `-p`: go.mod's module path is {git host}/{user}/{repository}. */
const GIT_ARGUMENTS = { go: ['--git-host', 'example.org', '--git-user-id', 'tec', '--git-repo-id', 'tecevents'] };

/**
 * Custom templates (`-t`): copies of 4.3.1's templates where its defaults are wrong here, each marked at
 * its top (docs/sdks.md). Java: the models import swagger-annotations and jackson-databind-nullable and
 * the ApiClient registers jackson's JSR-310 module, three jars only Maven Central has; date-times keep
 * their seconds. PHP: Guzzle 7 and psr7 2 (Debian's), no empty bearer token, no PHP 8 deprecations. Go:
 * the standard library alone (no oauth2, no antihax/optional), unions as json.RawMessage. In every
 * language a 304 is an answer, not an exception.
 */
const TEMPLATES = {
  java: 'scripts/sdk-templates/java',
  go: 'scripts/sdk-templates/go',
  php: 'scripts/sdk-templates/php',
  python: 'scripts/sdk-templates/python',
};

/**
 * What each language's SDK holds for a named union (a schema that is `oneOf`/`anyOf`, such as
 * `EventVenue`, a venue or a list of venues). 4.3.1 writes such a schema as a model with no fields, or
 * as nothing at all; mapped to a type that holds any JSON, the value passes through
 * untouched and the client narrows it (docs/sdks.md, "What each language gets").
 */
const UNION_TYPES = {
  java: { type: 'JsonNode', import: 'com.fasterxml.jackson.databind.JsonNode' },
  python: { type: 'object' },
  // The decoded JSON as it came (stdClass, array or scalar); ObjectSerializer.mustache passes it through.
  php: { type: 'mixed' },
  // Go: the type mapping does not apply to a schema's name; scripts/sdk-templates/go/model.mustache
  // writes each union as `json.RawMessage`.
};

/** The names of the document's component schemas that are unions. */
function unionSchemas() {
  const text = fs.readFileSync(document, 'utf8');
  const schemas = YAML.parse(text).components?.schemas ?? {};
  return Object.keys(schemas).filter((name) => schemas[name].oneOf || schemas[name].anyOf);
}

/** The generator's arguments after `-o`: options, templates and type mappings for `generator`. */
function generatorOptions() {
  const args = [];
  if (PROPERTIES[generator]) args.push('-p', PROPERTIES[generator]);
  if (TEMPLATES[generator]) args.push('-t', path.join(root, TEMPLATES[generator]));
  if (GIT_ARGUMENTS[generator]) args.push(...GIT_ARGUMENTS[generator]);
  const union = UNION_TYPES[generator];
  if (union) {
    args.push(
      '--type-mappings',
      unionSchemas()
        .map((name) => `${name}=${union.type}`)
        .join(','),
    );
    if (union.import) args.push('--import-mappings', `${union.type}=${union.import}`);
  }
  return args;
}

function openapiGenerator() {
  const jar = path.join(root, 'node_modules/openapi-generator-jar/bin/openapi-generator.jar');
  const wrapper = path.join(root, 'node_modules/@openapitools/openapi-generator-cli/main.js');
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) {
    console.error(`npm run sdk: \`java\` was not found. openapi-generator (for ${generator}) is a Java program: install a`);
    console.error('Java runtime (e.g. `apt-get install openjdk-17-jre-headless`) and run `npm run sdk` again.');
    console.error('The TypeScript SDK (`npm run sdk` without arguments) needs no Java.');
    process.exit(2);
  }
  if (!fs.existsSync(jar)) {
    console.error(`npm run sdk: ${path.relative(root, jar)} is missing; run \`npm ci\` first.`);
    process.exit(2);
  }
  const args = [wrapper, `--custom-generator=${jar}`, 'generate', '-g', generator, '-i', document, '-o', output, ...generatorOptions()];
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) {
    // The generator logs every file at INFO; show its output only when it failed.
    process.stdout.write(run.stdout ?? '');
    process.stderr.write(run.stderr ?? '');
    console.error(`npm run sdk: openapi-generator failed (exit ${run.status ?? run.signal}).`);
    process.exit(1);
  }
}

// Start from an empty folder: a file left by an older document must not survive.
fs.rmSync(output, { recursive: true, force: true });
if (generator === 'typescript') await typescript();
else openapiGenerator();
console.log(`${generator} SDK generated in ${path.relative(root, output) || '.'}`);
