/**
 * The breaking-change check (docs/api-versioning.md): compares the current bundled document with the
 * last released one, path by path and operation by operation, and sorts every difference a client
 * could notice into breaking changes and additions. Pure functions over two parsed documents; the
 * command (`npm run -s api:diff`, scripts/api-diff/run.ts) and the CI test
 * (test/contract/breaking-changes.test.ts) read the files.
 */
import { type Change, type Json, compareSchemas, resolve } from './schemas.js';

export type { Change } from './schemas.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface Report {
  previousVersion: string;
  currentVersion: string;
  /** True when the major of `info.version` went up, which allows breaking changes. */
  majorRaised: boolean;
  breaking: Change[];
  /** Everything else a client could notice: additions and widened inputs or narrowed outputs. */
  additions: Change[];
  /** No breaking change, or a raised major. */
  passes: boolean;
}

/** `/events/{id}` and `/events/{event_id}` are the same route to a client: only the names differ. */
function routeKey(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

function byRoute(document: Json): Map<string, { path: string; item: Json }> {
  const paths = (document.paths as Record<string, unknown> | undefined) ?? {};
  return new Map(Object.entries(paths).map(([path, item]) => [routeKey(path), { path, item: resolve(document, item) }]));
}

/** Path-level and operation-level parameters, the operation's winning, keyed by `in` and name. */
function parametersOf(document: Json, item: Json, operation: Json): Map<string, Json> {
  const all = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])].map((p) => resolve(document, p));
  return new Map(all.map((parameter) => [`${String(parameter.in)} parameter ${String(parameter.name)}`, parameter]));
}

/** Parameter names differ between two spellings of one route; path parameters are matched by position. */
function pathParameterKeys(path: string): Map<string, string> {
  const names = [...path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1]);
  return new Map(names.map((name, index) => [`path parameter ${name}`, `path parameter #${index + 1}`]));
}

function normalisedParameters(document: Json, path: string, item: Json, operation: Json): Map<string, Json> {
  const positions = pathParameterKeys(path);
  return new Map([...parametersOf(document, item, operation)].map(([key, value]) => [positions.get(key) ?? key, value]));
}

interface Pair {
  before: Json;
  after: Json;
  changes: Change[];
}

function compareParameters(pair: Pair, at: string, old: Map<string, Json>, now: Map<string, Json>): void {
  for (const [key, parameter] of old) {
    const current = now.get(key);
    if (!current) {
      pair.changes.push({ breaking: true, location: `${at} ${key}`, message: 'parameter removed' });
      continue;
    }
    if (current.required === true && parameter.required !== true) pair.changes.push({ breaking: true, location: `${at} ${key}`, message: 'parameter became required' });
    if (current.deprecated === true && parameter.deprecated !== true) pair.changes.push({ breaking: false, location: `${at} ${key}`, message: 'deprecated' });
    compareSchemas({ ...pair, direction: 'request' }, `${at} ${key}`, parameter.schema ?? {}, current.schema ?? {});
  }
  for (const [key, parameter] of now) {
    if (old.has(key)) continue;
    const required = parameter.required === true;
    pair.changes.push({ breaking: required, location: `${at} ${key}`, message: required ? 'new required parameter' : 'new optional parameter' });
  }
}

function contentOf(document: Json, holder: unknown): Map<string, Json> {
  const content = (resolve(document, holder).content as Record<string, Json> | undefined) ?? {};
  return new Map(Object.entries(content));
}

function compareRequestBodies(pair: Pair, at: string, old: Json, now: Json): void {
  const [before, after] = [resolve(pair.before, old.requestBody ?? {}), resolve(pair.after, now.requestBody ?? {})];
  if (after.required === true && before.required !== true) pair.changes.push({ breaking: true, location: `${at} body`, message: 'a request body became required' });
  const [oldContent, newContent] = [contentOf(pair.before, before), contentOf(pair.after, after)];
  for (const [type, media] of oldContent) {
    const current = newContent.get(type);
    if (!current) pair.changes.push({ breaking: true, location: `${at} body ${type}`, message: 'request media type no longer accepted' });
    else compareSchemas({ ...pair, direction: 'request' }, `${at} body ${type}`, media.schema ?? {}, current.schema ?? {});
  }
  for (const type of newContent.keys()) {
    if (!oldContent.has(type)) pair.changes.push({ breaking: false, location: `${at} body ${type}`, message: 'request media type now accepted' });
  }
}

/** Response header names, in lower case (HTTP header names are case-insensitive). */
function headerNames(document: Json, response: unknown): Set<string> {
  return new Set(Object.keys((resolve(document, response).headers as Json | undefined) ?? {}).map((name) => name.toLowerCase()));
}

function compareHeaders(pair: Pair, location: string, old: unknown, now: unknown): void {
  const [before, after] = [headerNames(pair.before, old), headerNames(pair.after, now)];
  for (const name of before) if (!after.has(name)) pair.changes.push({ breaking: true, location: `${location} header ${name}`, message: 'response header removed' });
  for (const name of after) if (!before.has(name)) pair.changes.push({ breaking: false, location: `${location} header ${name}`, message: 'new response header' });
}

function compareResponses(pair: Pair, at: string, old: Json, now: Json): void {
  const [oldResponses, newResponses] = [(old.responses as Json | undefined) ?? {}, (now.responses as Json | undefined) ?? {}];
  for (const [status, response] of Object.entries(oldResponses)) {
    const location = `${at} response ${status}`;
    if (!(status in newResponses)) {
      // A success answer that disappears changes what working calls get; a documented error that no
      // longer happens breaks nobody.
      pair.changes.push({ breaking: status.startsWith('2'), location, message: 'response no longer documented' });
      continue;
    }
    compareHeaders(pair, location, response, newResponses[status]);
    const [oldContent, newContent] = [contentOf(pair.before, response), contentOf(pair.after, newResponses[status])];
    for (const [type, media] of oldContent) {
      const current = newContent.get(type);
      if (!current) pair.changes.push({ breaking: true, location: `${location} ${type}`, message: 'response media type removed' });
      else compareSchemas({ ...pair, direction: 'response' }, `${location} ${type}`, media.schema ?? {}, current.schema ?? {});
    }
    for (const type of newContent.keys()) {
      if (!oldContent.has(type)) pair.changes.push({ breaking: false, location: `${location} ${type}`, message: 'new response media type' });
    }
  }
  for (const status of Object.keys(newResponses)) {
    if (!(status in oldResponses)) pair.changes.push({ breaking: false, location: `${at} response ${status}`, message: 'new response' });
  }
}

/** The security requirements of an operation: its own, else the document's. */
function securityOf(document: Json, operation: Json): Json[] {
  return ((operation.security ?? document.security) as Json[] | undefined) ?? [];
}

/** Whether a call without credentials is allowed (no requirement, or an empty one among the alternatives). */
function allowsAnonymous(requirements: Json[]): boolean {
  return requirements.length === 0 || requirements.some((requirement) => Object.keys(requirement).length === 0);
}

function compareSecurity(pair: Pair, at: string, old: Json, now: Json): void {
  const [before, after] = [securityOf(pair.before, old), securityOf(pair.after, now)];
  if (allowsAnonymous(before) && !allowsAnonymous(after)) pair.changes.push({ breaking: true, location: at, message: 'now requires credentials' });
  const schemes = (requirements: Json[]): Set<string> => new Set(requirements.flatMap((requirement) => Object.keys(requirement)));
  const [oldSchemes, newSchemes] = [schemes(before), schemes(after)];
  for (const scheme of oldSchemes) {
    if (!newSchemes.has(scheme) && !allowsAnonymous(after)) pair.changes.push({ breaking: true, location: at, message: `no longer accepts ${scheme} credentials` });
  }
}

function compareOperation(pair: Pair, at: string, old: { path: string; item: Json; operation: Json }, now: { path: string; item: Json; operation: Json }): void {
  if (now.operation.deprecated === true && old.operation.deprecated !== true) pair.changes.push({ breaking: false, location: at, message: 'deprecated' });
  compareSecurity(pair, at, old.operation, now.operation);
  const oldParameters = normalisedParameters(pair.before, old.path, old.item, old.operation);
  const newParameters = normalisedParameters(pair.after, now.path, now.item, now.operation);
  compareParameters(pair, at, oldParameters, newParameters);
  compareRequestBodies(pair, at, old.operation, now.operation);
  compareResponses(pair, at, old.operation, now.operation);
}

/** The major of a semantic version (`1.4.0` → 1); NaN when there is none. */
export function majorOf(version: unknown): number {
  return Number.parseInt(String(version ?? ''), 10);
}

/** Compares the released document `before` with the current document `after`. */
export function compareDocuments(before: Json, after: Json): Report {
  const pair: Pair = { before, after, changes: [] };
  const [oldRoutes, newRoutes] = [byRoute(before), byRoute(after)];
  for (const [key, old] of oldRoutes) {
    const now = newRoutes.get(key);
    if (!now) {
      pair.changes.push({ breaking: true, location: old.path, message: 'path removed' });
      continue;
    }
    for (const method of METHODS) {
      if (!old.item[method]) continue;
      const at = `${method.toUpperCase()} ${now.path}`;
      if (!now.item[method]) pair.changes.push({ breaking: true, location: at, message: 'operation removed' });
      else compareOperation(pair, at, { ...old, operation: old.item[method] as Json }, { ...now, operation: now.item[method] as Json });
    }
    for (const method of METHODS) {
      if (now.item[method] && !old.item[method]) pair.changes.push({ breaking: false, location: `${method.toUpperCase()} ${now.path}`, message: 'new operation' });
    }
  }
  for (const [key, now] of newRoutes) {
    if (!oldRoutes.has(key)) pair.changes.push({ breaking: false, location: now.path, message: 'new path' });
  }
  const info = [(before.info as Json | undefined) ?? {}, (after.info as Json | undefined) ?? {}];
  const majorRaised = majorOf(info[1].version) > majorOf(info[0].version);
  const breaking = pair.changes.filter((change) => change.breaking);
  return {
    previousVersion: String(info[0].version),
    currentVersion: String(info[1].version),
    majorRaised,
    breaking,
    additions: pair.changes.filter((change) => !change.breaking),
    passes: breaking.length === 0 || majorRaised,
  };
}

/** The report as text, for the command and for the test's failure message. */
export function formatReport(report: Report): string {
  const lines = [`API changes ${report.previousVersion} (released) → ${report.currentVersion} (current)`];
  const list = (title: string, changes: Change[]): void => {
    lines.push('', `${title}: ${changes.length === 0 ? 'none' : changes.length}`);
    for (const change of changes) lines.push(`  - ${change.location}: ${change.message}`);
  };
  list('Breaking changes', report.breaking);
  list('Additions and other compatible changes', report.additions);
  lines.push('');
  if (report.breaking.length === 0) lines.push('OK: no breaking change.');
  else if (report.majorRaised) lines.push('OK: breaking changes, allowed because the major of info.version was raised.');
  else lines.push('FAIL: breaking changes without a raised major of info.version (docs/api-versioning.md "Releasing the document").');
  return lines.join('\n');
}
