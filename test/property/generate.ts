import fc from 'fast-check';
import type { ParameterObject, SchemaObject } from '../../src/openapi/document.js';
import type { ApiOperation } from './operations.js';
import { CALLERS, queryString, type ApiRequest, type Caller, type World } from './world.js';

/**
 * Request generators driven by the OpenAPI document (fast-check arbitraries):
 * - `validRequest`: every parameter and body field drawn from its schema, with values that make sense
 *   for its name (dates, time zones, ids of seeded records), so requests reach the handlers;
 * - `invalidRequest`: a valid request with exactly one input broken against its schema, so the
 *   expected answer is clear (401 for an anonymous write, otherwise 400);
 * - `hostileRequest`: one input replaced by a hostile value (wrong type, huge, deeply nested, odd
 *   unicode, SQL/HTML metacharacters, out-of-range numbers, malformed dates and zones), and
 *   `rawBodyRequests`: malformed JSON and form bodies and wrong content types.
 */

// ---------------------------------------------------------------------------------------------
// Valid values

const DATE_NAMES = /^(start_date|end_date|date|date_utc|starts_before|starts_after|ends_before|ends_after)$/;
const PHRASES = ['now', 'today', 'tomorrow', 'tomorrow 9am', '+5 days 11am', 'next wednesday 4pm', '2018-01-01 4pm', 'yesterday'];
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'America/Chicago', 'UTC+5', 'UTC-3.5', 'Asia/Kolkata'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date in one of the accepted forms (wall time, date only, ISO with or without offset, timestamp, phrase). */
const dateText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PHRASES),
  fc
    .tuple(
      fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true }),
      fc.constantFrom('wall', 'day', 'iso', 'offset', 'timestamp'),
    )
    .map(([d, form]) => {
      const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
      const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
      if (form === 'wall') return `${day} ${time}`;
      if (form === 'day') return day;
      if (form === 'iso') return `${day}T${time}`;
      if (form === 'offset') return `${day}T${time}+05:30`;
      return String(Math.floor(d.getTime() / 1000));
    }),
);

/** An instant with an offset (`modified_after`, `modified_before`): Z, ±HH:MM or ±HHMM, sometimes a fraction. */
const instantText: fc.Arbitrary<string> = fc
  .tuple(fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true }), fc.constantFrom('Z', '+02:00', '-0530', '.250Z'))
  .map(([d, zone]) => `${d.toISOString().slice(0, 19)}${zone}`);

/** Short text: mostly ASCII words, sometimes any unicode, sometimes a seeded name (to hit duplicates). */
function text(world: World, minLength = 0, maxLength = 40): fc.Arbitrary<string> {
  const max = Math.min(maxLength, 40);
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}$/) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: max }) },
      { weight: 1, arbitrary: fc.constantFrom(...world.termWords, 'Concert Hall', 'The Band') },
    )
    .filter((s) => s.length >= minLength && s.length <= maxLength);
}

const pick = <T>(values: T[]): fc.Arbitrary<T> => fc.constantFrom(...values);

/** An id: usually one of the given seeded ids, sometimes any other seeded id or an unknown one. */
function idOf(world: World, ids: number[]): fc.Arbitrary<number> {
  const all = Object.values(world.ids).flat();
  return fc.oneof({ weight: 6, arbitrary: pick(ids) }, { weight: 1, arbitrary: pick(all) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 10_000_000 }) });
}

/** Values for names whose meaning the schema alone does not carry. */
function valueForName(name: string, schema: SchemaObject, world: World, where: 'query' | 'body', collection: string | undefined): fc.Arbitrary<unknown> | undefined {
  if (DATE_NAMES.test(name) && schema.type === 'string') return dateText;
  if ((name === 'modified_after' || name === 'modified_before') && where === 'query') return instantText;
  if (name === 'timezone') return pick(ZONES);
  // A webhook's URL: one it may send to (hooks.example.org resolves in test apps: test/helpers/app.ts), or refused ones.
  if (name === 'url' && collection === 'webhooks')
    return fc.constantFrom('https://hooks.example.org/calendar', 'https://93.184.216.34/p', 'https://10.0.0.1/', 'http://hooks.example.org/', 'https://nowhere.example.org/');
  if (name === 'url' && collection === 'subscriptions')
    return fc.constantFrom('https://93.184.216.34/p.ics', 'http://calendar.example.org/feed', 'ftp://example.org/a.ics', 'not a url');
  if (name === 'website') return fc.constantFrom('', 'https://example.org/', 'http://example.com/a?b=c');
  if (name === 'email') return fc.constantFrom('someone@example.org', 'a.b+c@example.co.uk');
  if (name === 'author' && schema.type === 'integer') return pick(world.userIds);
  if (name === 'image') return fc.oneof(pick(world.ids.images), fc.constantFrom('', null, false, 'https://img.example.org/new.png', 'https://img.example.org/concert.jpg'));
  if (name === 'cost') return fc.oneof(fc.constantFrom('15', '$15', 'Free', 'Free - 30$', '', 'Donation'), fc.integer({ min: 0, max: 500 }), fc.constant(['5', 10]));
  if (name === 'password') return fc.constantFrom('secret', 'wrong', '');
  if (name === 'page') return fc.integer({ min: 1, max: 3 });
  if (name === 'per_page') return fc.integer({ min: 1, max: 60 });
  if (name === 'geo_lat' || name === 'geoloc_lat') return fc.integer({ min: -9000, max: 9000 }).map((n) => n / 100);
  if (name === 'geo_lng' || name === 'geoloc_lng') return fc.integer({ min: -18000, max: 18000 }).map((n) => n / 100);
  if (name === 'geoloc_radius') return fc.integer({ min: 1, max: 20000 });
  if (where === 'query') {
    if (name === 'event' || name === 'post' || name === 'post_parent') return idOf(world, world.ids.events);
    if (name === 'venue') return fc.array(idOf(world, world.ids.venues), { minLength: 1, maxLength: 2 });
    if (name === 'organizer') return fc.array(idOf(world, world.ids.organizers), { minLength: 1, maxLength: 2 });
    if (name === 'categories') return fc.array(fc.oneof(idOf(world, world.ids.categories).map(String), pick(world.termWords)), { minLength: 1, maxLength: 2 });
    if (name === 'tags') return fc.array(fc.oneof(idOf(world, world.ids.tags).map(String), pick(world.termWords)), { minLength: 1, maxLength: 2 });
    if (name === 'include' && collection === 'events') return fc.array(idOf(world, world.ids.events), { minLength: 1, maxLength: 3 });
    if (name === 'include' || name === 'exclude') return fc.array(idOf(world, [...world.ids.categories, ...world.ids.tags]), { minLength: 1, maxLength: 3 });
    if (name === 'parent') return fc.oneof(fc.constant(0), idOf(world, world.ids.categories));
    if (name === 'search' || name === 'slug') return text(world, 1, 20);
  } else {
    if (name === 'venue' && collection === 'events')
      return fc.oneof(
        idOf(world, world.ids.venues),
        fc.constantFrom(0, '', null, []),
        fc.record({ venue: text(world, 1) }),
        fc.array(idOf(world, world.ids.venues), { maxLength: 2 }),
      );
    if (name === 'organizer' && collection === 'events')
      return fc.oneof(
        idOf(world, world.ids.organizers),
        fc.constantFrom('', null, []),
        fc.array(fc.oneof(idOf(world, world.ids.organizers), fc.record({ organizer: text(world, 1) })), { maxLength: 2 }),
      );
    // Recurrence lines (docs/contract.md §14): series of a few occurrences, an end to a series, and lines the rules refuse.
    if (name === 'recurrence' && collection === 'events')
      return fc.constantFrom(
        ['RRULE:FREQ=DAILY;COUNT=3'],
        ['RRULE:FREQ=WEEKLY;COUNT=2', 'EXDATE:20000101T000000Z'],
        ['RRULE:FREQ=DAILY;INTERVAL=2;COUNT=2', 'RDATE;VALUE=DATE:20991231'],
        [],
        false,
        ['RRULE:FREQ=MONTHLY;BYDAY=MO'],
        ['EXRULE:FREQ=DAILY'],
      );
    if (name === 'categories') return fc.array(fc.oneof(idOf(world, world.ids.categories), pick(world.termWords), fc.record({ id: pick(world.ids.categories) })), { maxLength: 3 });
    if (name === 'tags') return fc.array(fc.oneof(idOf(world, world.ids.tags), pick(world.termWords)), { maxLength: 3 });
    if (name === 'parent') return fc.oneof(fc.constant(0), idOf(world, world.ids.categories));
  }
  return undefined;
}

/** Any value the schema accepts (as the validator reads it: after coercion and normalisation). */
export function valueOf(schema: SchemaObject, world: World, name = '', where: 'query' | 'body' = 'body', collection?: string): fc.Arbitrary<unknown> {
  const named = valueForName(name, schema, world, where, collection);
  if (named) return named;
  const alternatives = schema.anyOf ?? schema.oneOf;
  let arbitrary: fc.Arbitrary<unknown>;
  if (alternatives) arbitrary = fc.oneof(...alternatives.map((s) => valueOf(s, world, name, where, collection)));
  else if (schema.enum) arbitrary = pick(schema.enum);
  else if (schema.type === 'integer') arbitrary = fc.integer({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 1000) });
  else if (schema.type === 'number') arbitrary = fc.integer({ min: Number(schema.minimum ?? -1000) * 100 + 1, max: Number(schema.maximum ?? 1000) * 100 }).map((n) => n / 100);
  else if (schema.type === 'boolean') arbitrary = fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'yes', 'Off'));
  else if (schema.type === 'string') arbitrary = text(world, Number(schema.minLength ?? 0), Number(schema.maxLength ?? 40));
  else if (schema.type === 'array') {
    const items = valueOf(schema.items ?? {}, world, '', where, collection);
    arbitrary = schema.enum ? fc.uniqueArray(items, { minLength: 1, maxLength: 2 }) : fc.array(items, { minLength: 1, maxLength: 3 });
  } else if (schema.type === 'object' || schema.properties) arbitrary = objectOf(schema, world, collection, 3);
  else arbitrary = fc.oneof(fc.string({ maxLength: 5 }), fc.integer());
  return schema.nullable ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary }) : arbitrary;
}

/** An object with every required property and up to `extra` optional ones. */
function objectOf(schema: SchemaObject, world: World, collection: string | undefined, extra: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const optional = Object.keys(properties).filter((name) => !required.includes(name));
  return fc
    .subarray(optional, { maxLength: Math.min(extra, optional.length) })
    .chain((chosen) => fc.record(Object.fromEntries([...required, ...chosen].map((name) => [name, valueOf(properties[name], world, name, 'body', collection)]))));
}

// ---------------------------------------------------------------------------------------------
// Valid requests

function pathArbitrary(op: ApiOperation, world: World): fc.Arbitrary<string> {
  if (op.pathParameter === 'id') {
    const own = op.collection ? world.ids[op.collection] : [];
    return idOf(world, own).map((id) => op.path.replace('{id}', String(id)));
  }
  if (op.pathParameter === 'slug') {
    const own = world.slugs[op.collection as keyof World['slugs']];
    return fc.oneof({ weight: 5, arbitrary: pick(own) }, { weight: 1, arbitrary: text(world, 1, 30) }).map((slug) => op.path.replace('{slug}', encodeURIComponent(slug)));
  }
  return fc.constant(op.path);
}

function queryArbitrary(op: ApiOperation, world: World): fc.Arbitrary<Record<string, unknown>> {
  const byName = new Map(op.queryParameters.map((p) => [p.name, p]));
  return fc
    .subarray([...byName.keys()], { maxLength: Math.min(3, byName.size) })
    .chain((names) => fc.record(Object.fromEntries(names.map((name) => [name, valueOf(byName.get(name)!.schema, world, name, 'query', op.collection)]))));
}

function bodyArbitrary(op: ApiOperation, world: World): fc.Arbitrary<ApiRequest['body']> {
  if (!op.bodySchema) return fc.constant(undefined);
  const kinds = op.contentTypes.map((type) => (type === 'application/json' ? 'json' : 'form') as 'json' | 'form');
  return fc.record({ kind: pick(kinds), value: objectOf(op.bodySchema, world, op.collection, 4) });
}

export function validRequest(op: ApiOperation, world: World): fc.Arbitrary<ApiRequest> {
  return fc
    .record({ path: pathArbitrary(op, world), query: queryArbitrary(op, world), body: bodyArbitrary(op, world), caller: pick(CALLERS) })
    .map(({ path, query, body, caller }) => ({ operationId: op.operationId, method: op.method, path, query, body, caller }));
}

// ---------------------------------------------------------------------------------------------
// Invalid requests: one input broken against its schema

/**
 * Values the schema refuses whatever the route does with them, after the service's own
 * normalisation (booleans `1`/`0`, comma lists) and the validator's coercion ("10" → 10). Schemas
 * with alternatives (anyOf) get none: no single value is sure to miss every branch.
 */
function invalidValuesOf(schema: SchemaObject, where: 'query' | 'body'): unknown[] {
  if (schema.anyOf || schema.oneOf) return [];
  const values: unknown[] = [];
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  if (schema.type === 'integer') values.push('abc', '1.5', ...(min !== undefined ? [min - 1] : []), ...(max !== undefined ? [max + 1] : []));
  if (schema.type === 'number') values.push('abc', ...(min !== undefined ? [schema.exclusiveMinimum ? min : min - 1] : []), ...(max !== undefined ? [max + 1] : []));
  if (schema.type === 'boolean') values.push('maybe', '2');
  if (schema.type === 'string') {
    if (schema.enum) values.push('not-a-listed-value');
    if (Number(schema.minLength ?? 0) > 0) values.push('');
    if (schema.maxLength !== undefined) values.push('x'.repeat(Number(schema.maxLength) + 1));
    // A query string value cannot be an object (bracket keys are flattened into values).
    if (where === 'body') values.push({ nested: 'object' });
  }
  if (schema.type === 'array' && schema.items)
    values.push(
      ...invalidValuesOf(schema.items, where)
        .filter((v) => typeof v !== 'object')
        .map((v) => [v]),
    );
  return values;
}

interface Mutation {
  label: string;
  apply: (req: ApiRequest) => ApiRequest;
}

function mutationsOf(op: ApiOperation): Mutation[] {
  const mutations: Mutation[] = [];
  if (op.pathParameter === 'id') {
    for (const bad of ['abc', '-1', '1.5']) mutations.push({ label: `path id ${bad}`, apply: (req) => ({ ...req, path: op.path.replace('{id}', bad) }) });
  }
  for (const p of op.queryParameters) {
    for (const bad of invalidValuesOf(p.schema, 'query')) {
      mutations.push({ label: `query ${p.name}=${JSON.stringify(bad).slice(0, 40)}`, apply: (req) => ({ ...req, query: { ...req.query, [p.name]: bad } }) });
    }
  }
  const body = op.bodySchema;
  if (body) {
    for (const [name, schema] of Object.entries(body.properties ?? {})) {
      for (const bad of invalidValuesOf(schema, 'body')) {
        mutations.push({
          label: `body ${name}=${JSON.stringify(bad).slice(0, 40)}`,
          apply: (req) => ({ ...req, body: { kind: req.body?.kind === 'form' ? 'form' : 'json', value: { ...((req.body as { value: object }).value ?? {}), [name]: bad } } }),
        });
      }
    }
    for (const name of body.required ?? []) {
      mutations.push({
        label: `body without required ${name}`,
        apply: (req) => {
          const { [name]: _dropped, ...rest } = (req.body as { value: Record<string, unknown> }).value;
          return { ...req, body: { kind: req.body?.kind === 'form' ? 'form' : 'json', value: rest } };
        },
      });
    }
  }
  return mutations;
}

/** A valid request with one input broken; undefined when the operation has no input to break. */
export function invalidRequest(op: ApiOperation, world: World): fc.Arbitrary<ApiRequest> | undefined {
  const mutations = mutationsOf(op);
  if (mutations.length === 0) return undefined;
  return fc.tuple(validRequest(op, world), pick(mutations)).map(([req, mutation]) => ({ ...mutation.apply(req), mutation: mutation.label }));
}

/**
 * What an invalid request must get: 401 for an anonymous write (authentication comes first); 404
 * `rest_no_route` for a malformed path id (WordPress's route patterns only match digits); else 400.
 */
export function expectedRejection(op: ApiOperation, req: ApiRequest): number {
  if (req.caller === 'anonymous' && !op.allowsAnonymous) return 401;
  return req.mutation?.startsWith('path ') ? 404 : 400;
}

// ---------------------------------------------------------------------------------------------
// Hostile inputs

function nested(depth: number, leaf: unknown, kind: 'array' | 'object'): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** Hostile values by family; every one is tried against every input of every operation. */
export const HOSTILE_VALUES: Record<string, unknown[]> = {
  wrongType: [[], {}, null, true, false, 12345, -1, 0, 'abc', [['x']], { id: 'x' }, [null], [{}]],
  huge: ['a'.repeat(300_000), '😀'.repeat(60_000), 'word '.repeat(40_000), '9'.repeat(5_000)],
  deep: [nested(2_000, 'x', 'array'), nested(2_000, 'x', 'object'), nested(60, [1], 'object')],
  unicode: ['😀🎉', 'Ünïcødé', 'مرحبا بالعالم', '\u202Eevil\u202C', 'a\u0000b', '\ud800', 'e\u0301', '𝕏'.repeat(50), '\uFEFFbom', '\u200B', '日本語のイベント', 'Ⅻ', '\r\n\t'],
  sql: ["' OR '1'='1", '1; DROP TABLE posts; --', '%', '_', '\\', "'); --", '" OR ""="', '%%%_\\', '1 UNION SELECT * FROM users', '\\x27', '`', '0x7e'],
  html: ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '"><svg onload=alert(1)>', '&amp;&lt;&#x27;', '<a href="javascript:alert(1)">x</a>', '<!--', ']]>'],
  // Tags without their closing `>`, nested and entity-encoded: what a regex-based tag stripper lets through.
  unclosedHtml: [
    'Talk <img src=x onerror=alert(document.domain)//',
    '<scr<script>ipt>alert(1)</script>',
    '<<img src=x onerror=alert(1)>',
    '&lt;img src=x onerror=alert(1)&gt;',
    'a < b',
    '<svg/onload=alert(1)',
  ],
  // Broken %-escapes and markup in URLs (image, website): each once answered 500 or came back live.
  urls: [
    'https://x.example/%ff',
    'https://x.example/a%e0%a4%a.png',
    'https://x.example/%',
    'http://%zz/',
    'https://[::1/',
    'https://x.example/?<svg/onload=alert(1)>',
    'https://x.example/"onmouseover="alert(1)',
  ],
  hugeArray: [Array(10_000).fill(1), Array(2_000).fill('same'), Array.from({ length: 1_000 }, (_, i) => i + 1), Array(500).fill({ id: 1 })],
  numbers: [1e308, -1e308, 2 ** 31, 2 ** 32, 2 ** 53 + 2, 2 ** 64, -2147483649, 5e-324, -0, 0.1, '99999999999999999999', '1e400', '-1e400', 'NaN', 'Infinity', '0x10', '1e3'],
  dates: [
    '2024-02-30',
    '2024-13-01',
    '0000-00-00 00:00:00',
    '99999-01-01',
    '2024-01-01T25:61:61',
    '2024-01-01 10:00:00+99:00',
    '@@@',
    'tomorrow 25pm',
    '-99999999999999',
    '1e20',
    '99999999999999999',
    'next blursday',
    ' ',
    'now + 10000000 years',
    '+9999999 days',
    '1969-12-31 23:59:59',
    '9999-12-31 23:59:59',
    '2024-03-31 02:30:00',
    '2024-01-01T00:00:00Z[Europe/Paris]',
    '2024-W01-1',
    '0',
  ],
  zones: [
    'Mars/Olympus',
    'UTC+99',
    'UTC+5.5.5',
    'UTC-',
    '+05:00',
    '../../etc/passwd',
    'America/New_York\u0000',
    'EST5EDT',
    'utc',
    'Etc/GMT+14',
    'Z',
    'UTC+14',
    'UTC-12.75',
    'Europe/Kyiv',
    'local',
  ],
};

/**
 * The 2,000-level structures go in JSON bodies only: qs (form bodies, query strings) serialises
 * recursively and would overflow the test's own stack. Form nesting is fuzzed by the raw bodies.
 */
const JSON_ONLY = new Set(HOSTILE_VALUES.deep.slice(0, 2));

const HOSTILE = Object.entries(HOSTILE_VALUES).flatMap(([family, values]) => values.map((value, index) => ({ family: `${family}[${index}]`, value })));

/** A list value repeats its parameter's name per item: measure with a name as long as any query name. */
const LONGEST_QUERY_NAME = 'x'.repeat(24);

/**
 * Values that still fit in a URL. Node's HTTP parser refuses a request line past 16 KB (431, before
 * the app sees it), so huge values are sent in bodies only.
 */
const HOSTILE_IN_URL = HOSTILE.filter(({ value }) => !JSON_ONLY.has(value) && queryString({ [LONGEST_QUERY_NAME]: value }).length < 8_000);

/** Path values for the id/slug parameter. */
const HOSTILE_PATH = [
  '%ff',
  '%',
  '%e0%a4%a',
  '99999999999999999999',
  '4294967296',
  '2147483648',
  '1e3',
  '0x10',
  '%00',
  '..%2F..',
  '%27%20OR%201%3D1',
  encodeURIComponent('😀'),
  '-0',
  ' 1',
  encodeURIComponent('<script>'),
  'a'.repeat(5_000),
  encodeURIComponent("' OR 1=1 --"),
];

/** One input of the operation replaced by a hostile value, sent by the given caller. */
export function hostileRequest(op: ApiOperation, world: World, caller: Caller): fc.Arbitrary<ApiRequest> {
  const targets: Array<{ where: 'path' | 'query' | 'body'; name: string }> = [
    ...(op.pathParameter ? [{ where: 'path' as const, name: op.pathParameter }] : []),
    ...op.queryParameters.map((p: ParameterObject) => ({ where: 'query' as const, name: p.name })),
    ...Object.keys(op.bodySchema?.properties ?? {}).map((name) => ({ where: 'body' as const, name })),
  ];
  const base = validRequest(op, world).map((req) => ({ ...req, caller }));
  if (targets.length === 0) return base;
  return fc.tuple(base, pick(targets), pick(HOSTILE), pick(HOSTILE_IN_URL), pick(HOSTILE_PATH)).map(([req, target, hostile, inUrl, pathValue]) => {
    if (target.where === 'path') return { ...req, path: op.path.replace(`{${target.name}}`, pathValue), mutation: `path ${pathValue.slice(0, 40)}` };
    if (target.where === 'query') return { ...req, query: { ...req.query, [target.name]: inUrl.value }, mutation: `query ${target.name} ${inUrl.family}` };
    const kind = req.body?.kind === 'form' && !JSON_ONLY.has(hostile.value) ? 'form' : 'json';
    return {
      ...req,
      body: { kind, value: { ...((req.body as { value: object } | undefined)?.value ?? {}), [target.name]: hostile.value } },
      mutation: `body ${target.name} ${hostile.family}`,
    };
  });
}

/** Malformed bodies and wrong content types, each sent raw. */
export const RAW_BODIES: Array<{ contentType: string; text: string }> = [
  ...[
    '{"title": ',
    '{',
    '[',
    'nul',
    '{"a":1}garbage',
    '\uFEFF{"title":"x"}',
    '"just a string"',
    '123',
    '[1,2,3]',
    'null',
    '{"title":"x","title":"y"}',
    "{'title': 'x'}",
    '{"title":"\\ud800"}',
    '{"__proto__": {"admin": true}, "title": "x"}',
    '{"constructor": {"prototype": {"polluted": 1}}}',
    `{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
    '',
    ' ',
  ].map((text) => ({ contentType: 'application/json', text })),
  ...[
    'title=%E0%A4%A',
    'a[=1',
    '&&&==&',
    'title[][][][][]=x',
    `title${'[a]'.repeat(50)}=x`,
    '%',
    'title=x&title=y&title[]=z',
    'venue[venue][venue]=x',
    'categories[999999999]=1',
    '__proto__[admin]=1',
    'a='.repeat(2_000),
    '=x',
  ].map((text) => ({ contentType: 'application/x-www-form-urlencoded', text })),
  { contentType: 'text/plain', text: '{"title":"x"}' },
  { contentType: 'application/xml', text: '<event><title>x</title></event>' },
  { contentType: 'multipart/form-data', text: '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--x--' },
  { contentType: 'multipart/form-data; boundary=x', text: '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--x--' },
  { contentType: 'application/json; charset=utf-16', text: '{"title":"x"}' },
  { contentType: 'application/json; charset=latin1', text: '{"title":"x"}' },
  { contentType: 'application/x-www-form-urlencoded', text: '{"title":"x"}' },
  { contentType: 'application/json', text: 'title=x&start_date=now' },
  { contentType: 'image/png', text: '\u0089PNG\r\n\u001a\n' },
  { contentType: 'application/vnd.api+json', text: '{"title":"x"}' },
  { contentType: 'application/octet-stream', text: '\u0000\u0001\u0002' },
  { contentType: 'application/json, text/plain', text: '{"title":"x"}' },
  { contentType: ';;;', text: 'x' },
];

/**
 * `count` of the raw bodies for the operation with index `offset`, taking turns: consecutive
 * operations get the next ones, so every raw body reaches many operations and every caller.
 */
export function rawBodyRequests(op: ApiOperation, path: string, offset: number, count: number): ApiRequest[] {
  return Array.from({ length: Math.min(count, RAW_BODIES.length) }, (_, i) => {
    const n = offset * count + i;
    return {
      operationId: op.operationId,
      method: op.method,
      path,
      query: {},
      caller: CALLERS[(n + offset) % CALLERS.length],
      body: { kind: 'raw' as const, ...RAW_BODIES[n % RAW_BODIES.length] },
      mutation: 'raw body',
    };
  });
}
