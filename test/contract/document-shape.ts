import { execFileSync } from 'node:child_process';
import YAML from 'yaml';

/**
 * The shape rules of the bundled document that code generators and contract tools depend on
 * (openapi/README.md "What generators need", issue #28), as one checker that returns what breaks
 * them, so that test/contract/document-shape.test.ts can run it on generated/openapi.yaml and on
 * planted bad documents alike:
 *
 * - no inline union: `oneOf`/`anyOf` only at the top of a named schema (`components/schemas/X`);
 * - no `allOf` of a single `$ref` (generators make a model without fields of it);
 * - no `properties` beside an explicit `additionalProperties: true` (Java writes a broken field);
 * - no `null` inside an `enum` (openapi-generator 4.3.1 stops with "Null context for variable
 *   'isString'" on the model that holds it; a nullable closed set of strings is a `pattern`), and no
 *   `enum` on a boolean property (4.3.1's Java writes `TRUE("true")`, a String where a Boolean goes);
 * - an example on every path parameter, every request body's media type, and every response body
 *   (on the media type, or on the named schema it refers to);
 * - no value a YAML 1.1 reader (PyYAML, Dredd) turns into a timestamp: `timestampsIn`.
 */

type Node = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `~` and `/` escaped, as in a JSON pointer. */
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The node a local `$ref` names, following chains (undefined when it names nothing). */
function resolve(doc: Node, value: unknown): Node | undefined {
  let current = value;
  for (let hops = 0; hops < 20 && isNode(current) && typeof current.$ref === 'string'; hops++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (isNode(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  }
  return isNode(current) ? current : undefined;
}

/**
 * Every object of the document with its JSON pointer, except inside example values (an example is
 * data, not document) and `x-` extensions.
 */
function* objectsOf(node: unknown, pointer = '', parentKey = ''): Generator<[string, Node]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* objectsOf(item, `${pointer}/${i}`, '');
    return;
  }
  if (!isNode(node)) return;
  yield [pointer, node];
  for (const [key, value] of Object.entries(node)) {
    // A schema may have a property named `example`: under `properties` it is a schema, not data.
    const isData = parentKey !== 'properties' && (key === 'example' || key === 'examples' || key.startsWith('x-'));
    if (!isData) yield* objectsOf(value, `${pointer}/${escape(key)}`, key);
  }
}

/** Schema-level problems: inline unions, single-`$ref` `allOf`s, `properties` with `additionalProperties: true`, null in an enum, an enum on a boolean. */
function schemaProblems(doc: Node): string[] {
  const problems: string[] = [];
  for (const [pointer, node] of objectsOf(doc)) {
    const named = /^\/components\/schemas\/[^/]+$/.test(pointer);
    for (const key of ['oneOf', 'anyOf']) {
      if (Array.isArray(node[key]) && !named) problems.push(`inline union (${key}) at ${pointer}: name it in components/schemas`);
    }
    const allOf = node.allOf;
    if (Array.isArray(allOf) && allOf.length === 1 && isNode(allOf[0]) && typeof allOf[0].$ref === 'string') {
      problems.push(`allOf of a single $ref at ${pointer}: write the plain schema`);
    }
    if (isNode(node.properties) && node.additionalProperties === true) {
      problems.push(`properties with additionalProperties: true at ${pointer}: drop it and say "other keys may appear"`);
    }
    if (Array.isArray(node.enum) && node.enum.includes(null)) {
      problems.push(`null in an enum at ${pointer}: write the values as a pattern beside nullable: true`);
    }
    // A union's member may be one (FeaturedImage's `false`): SDKs hold a union as any JSON value.
    if (Array.isArray(node.enum) && node.type === 'boolean' && /\/properties\/[^/]+$/.test(pointer)) {
      problems.push(`enum on a boolean at ${pointer}: say "Always \`true\`" in its description instead`);
    }
  }
  return problems;
}

/** Whether a media type object carries an example, itself or through the named schema it refers to. */
function mediaHasExample(doc: Node, media: Node, schemaCounts: boolean): boolean {
  if (media.example !== undefined || (isNode(media.examples) && Object.keys(media.examples).length > 0)) return true;
  return schemaCounts && resolve(doc, media.schema)?.example !== undefined;
}

/** Operation-level problems: path parameters, request bodies and responses without an example. */
function exampleProblems(doc: Node): string[] {
  const problems: string[] = [];
  for (const [path, item] of Object.entries((doc.paths as Record<string, Node>) ?? {})) {
    const shared = (item.parameters as unknown[]) ?? [];
    for (const method of HTTP_METHODS.filter((m) => isNode(item[m]))) {
      const op = item[method] as Node;
      const where = `${method.toUpperCase()} ${path}`;
      for (const parameter of [...shared, ...((op.parameters as unknown[]) ?? [])].map((p) => resolve(doc, p))) {
        if (parameter?.in !== 'path') continue;
        const examples = isNode(parameter.examples) && Object.keys(parameter.examples).length > 0;
        if (parameter.example === undefined && !examples) problems.push(`${where}: path parameter ${String(parameter.name)} has no example`);
      }
      const body = resolve(doc, op.requestBody);
      for (const [type, media] of Object.entries((body?.content as Record<string, Node>) ?? {})) {
        // A body's example is on its media type: the schema's own example would not show a form body.
        if (!mediaHasExample(doc, media, false)) problems.push(`${where}: request body ${type} has no example`);
      }
      for (const [status, response] of Object.entries((op.responses as Record<string, unknown>) ?? {})) {
        for (const [type, media] of Object.entries((resolve(doc, response)?.content as Record<string, Node>) ?? {})) {
          if (!mediaHasExample(doc, media, true)) problems.push(`${where}: response ${status} ${type} has no example`);
        }
      }
    }
  }
  return problems;
}

/** Everything in `doc` (a parsed OpenAPI document) that the rules above refuse; empty when none. */
export function shapeProblems(doc: Node): string[] {
  return [...schemaProblems(doc), ...exampleProblems(doc)];
}

/**
 * The scalars (keys or values) of a YAML text that a YAML 1.1 reader takes for timestamps, read by
 * the `yaml` package as YAML 1.1, which turns `2027-03-01` and `2027-03-01 19:00:00` into Dates as
 * PyYAML's `safe_load` does.
 */
export function timestampsIn(text: string): string[] {
  const found: string[] = [];
  YAML.visit(YAML.parseDocument(text, { version: '1.1' }), {
    Scalar(_key, node) {
      if (node.value instanceof Date) found.push(String(node.source ?? node.value.toISOString()));
    },
  });
  return found;
}

const PYTHON_TIMESTAMPS = `
import datetime, sys, yaml
found = []
def walk(node):
    if isinstance(node, (datetime.date, datetime.datetime)): found.append(str(node))
    elif isinstance(node, dict):
        for key, value in node.items(): walk(key); walk(value)
    elif isinstance(node, list):
        for item in node: walk(item)
walk(yaml.safe_load(sys.stdin))
print("\\n".join(found))
`;

/** Whether python3 with PyYAML (python3-yaml) is there to read a text as PyYAML does. */
export function hasPyYaml(): boolean {
  try {
    execFileSync('python3', ['-c', 'import yaml'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** The timestamps PyYAML's `yaml.safe_load` reads in a YAML text (keys or values), as strings. */
export function pyYamlTimestampsIn(text: string): string[] {
  const out = execFileSync('python3', ['-c', PYTHON_TIMESTAMPS], { input: text, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\n').filter((line) => line !== '');
}
