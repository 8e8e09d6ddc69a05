import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { loadDocument } from '../../src/openapi/document.js';
import { createUser, NS, testApp } from '../helpers/app.js';
import { undocumentedKeys } from './answers.js';

/**
 * The document's examples (what /docs and generated SDK docs show): every record schema, list
 * answer and error answer has one, and every example is an instance of its schema (Ajv, with the
 * document's own `$ref`s), with no key the schema does not name. The records' examples also have
 * the keys, in the order, that the service really sends.
 */

const doc = loadDocument();
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
// The whole document as a schema container, so `#/components/schemas/...` references resolve.
ajv.addSchema(doc as object, 'openapi');

type Node = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Ajv's complaints about `value` as an instance of the schema at a `#/...` pointer of the document. */
function schemaErrors(pointer: string, value: unknown): string[] {
  const validate = ajv.getSchema(`openapi${pointer}`) ?? ajv.compile({ $ref: `openapi${pointer}` });
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The media types that carry examples, each with where it is (a test title) and its pointer in the
 * document: the components' responses, and the request bodies and inline responses of operations.
 */
function mediaTypes(): Array<[string, string, Node]> {
  const found: Array<[string, string, Node]> = [];
  const content = (where: string, pointer: string, owner: Node) => {
    for (const [type, media] of Object.entries((owner.content as Record<string, Node>) ?? {})) {
      found.push([`${where} ${type}`, `${pointer}/content/${type.replace(/\//g, '~1')}`, media]);
    }
  };
  for (const [name, response] of Object.entries(doc.components.responses as Record<string, Node>)) content(`response ${name}`, `#/components/responses/${name}`, response);
  for (const [path, item] of Object.entries(doc.paths as Record<string, Node>)) {
    for (const method of HTTP_METHODS.filter((m) => m in item)) {
      const op = item[method] as Node;
      const at = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
      if (op.requestBody && !('$ref' in (op.requestBody as Node))) content(`${method.toUpperCase()} ${path} body`, `${at}/requestBody`, op.requestBody as Node);
      for (const [status, response] of Object.entries(op.responses as Record<string, Node>)) {
        if (!('$ref' in response)) content(`${method.toUpperCase()} ${path} ${status}`, `${at}/responses/${status}`, response);
      }
    }
  }
  return found;
}

/** The parameters that carry an example: components, and those written inside path items or operations. */
function parameterExamples(): Array<{ where: string; value: unknown; schema: { $ref: string } }> {
  const found: Array<{ where: string; value: unknown; schema: { $ref: string } }> = [];
  const add = (where: string, pointer: string, parameter: Node) => {
    if ('example' in parameter) found.push({ where, value: parameter.example, schema: { $ref: `${pointer}/schema` } });
    for (const [key, example] of Object.entries((parameter.examples as Record<string, Node>) ?? {})) {
      found.push({ where: `${where} ${key}`, value: example.value, schema: { $ref: `${pointer}/schema` } });
    }
  };
  for (const [name, parameter] of Object.entries(doc.components.parameters as Record<string, Node>)) add(`parameter ${name}`, `#/components/parameters/${name}`, parameter);
  for (const [path, item] of Object.entries(doc.paths as Record<string, Node>)) {
    const at = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const lists: Array<[string, Node[]]> = [[at, (item.parameters as Node[]) ?? []]];
    for (const method of HTTP_METHODS.filter((m) => m in item)) lists.push([`${at}/${method}`, ((item[method] as Node).parameters as Node[]) ?? []]);
    for (const [pointer, parameters] of lists) {
      parameters.forEach((parameter, i) => {
        if (!('$ref' in parameter)) add(`parameter ${parameter.name as string} of ${pointer}`, `${pointer}/parameters/${i}`, parameter);
      });
    }
  }
  return found;
}

/** Every example of the document: where it is, its value, and the schema (a `#/...` pointer) it illustrates. */
function allExamples(): Array<{ where: string; value: unknown; schema: { $ref: string } }> {
  const found: Array<{ where: string; value: unknown; schema: { $ref: string } }> = [];
  for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Node>)) {
    if ('example' in schema) found.push({ where: `schema ${name}`, value: schema.example, schema: ref(name) });
  }
  found.push(...parameterExamples());
  for (const [where, pointer, media] of mediaTypes()) {
    // The media's schema, by its place in the document (a `$ref` there is followed by Ajv).
    const schema = { $ref: `${pointer}/schema` };
    if ('example' in media) found.push({ where, value: media.example, schema });
    for (const [key, example] of Object.entries((media.examples as Record<string, Node>) ?? {})) found.push({ where: `${where} ${key}`, value: example.value, schema });
  }
  return found;
}

/** The schemas that answers carry directly: records, lists, the index, the error envelope. */
function answerSchemas(): Set<string> {
  const names = new Set<string>();
  for (const response of Object.values(doc.components.responses as Record<string, Node>)) {
    const target = ((response.content as Record<string, { schema?: { $ref?: string } }> | undefined)?.['application/json']?.schema?.$ref ?? '').split('/').pop();
    if (target) names.add(target);
  }
  return names;
}

describe('the examples of the document', () => {
  it('are on every record, list and error schema answers carry, and on every error response', () => {
    const schemas = doc.components.schemas as Record<string, Node>;
    const names = answerSchemas();
    for (const name of ['Event', 'Venue', 'Organizer', 'Category', 'Tag', 'EventList', 'VenueList', 'OrganizerList', 'CategoryList', 'TagList', 'Error']) {
      assert.ok(names.has(name), `${name} is an answer schema`);
    }
    // This document itself (`GET /doc`) is its own example; `Error` has one per status on each error
    // response instead (below), so that no tool answers one status with another's example.
    const missing = [...names].filter((name) => !['OpenApiDocument', 'Error'].includes(name) && !('example' in schemas[name]));
    assert.deepEqual(missing, [], 'answer schemas without an example');
    assert.ok(!('example' in schemas.Error), 'Error has no example of one status for all');
    const errors = Object.entries(doc.components.responses as Record<string, Node>).filter(([, response]) => {
      const media = (response.content as Record<string, Node> | undefined)?.['application/json'];
      return (media?.schema as { $ref?: string } | undefined)?.$ref === '#/components/schemas/Error';
    });
    assert.ok(errors.length >= 6);
    for (const [name, response] of errors) {
      const media = (response.content as Record<string, Node>)['application/json'];
      assert.ok(Object.keys((media.examples as Node) ?? {}).length > 0, `response ${name} has examples`);
    }
  });

  it('give every documented error status examples of that status', () => {
    const responses = doc.components.responses as Record<string, Node>;
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Node>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [code, listed] of Object.entries(((operation as Node).responses as Record<string, Node> | undefined) ?? {})) {
          if (!/^[45]\d\d$/.test(code)) continue;
          const ref = listed.$ref as string | undefined;
          const response = ref ? responses[ref.split('/').pop() as string] : listed;
          const media = (response.content as Record<string, Node> | undefined)?.['application/json'];
          const examples = Object.values((media?.examples as Record<string, Node> | undefined) ?? {}).map((example) => example.value as Node);
          const statuses = examples.map((value) => (value.data as Node | undefined)?.status);
          if (statuses.length === 0 || statuses.some((status) => String(status) !== code)) wrong.push(`${method} ${path} ${code}: ${statuses.join(', ') || 'none'}`);
        }
      }
    }
    assert.deepEqual(wrong, [], 'error responses whose examples are missing or of another status');
  });

  for (const { where, value, schema } of allExamples()) {
    it(`${where} is an instance of its schema, with no undocumented key`, () => {
      assert.deepEqual(schemaErrors(schema.$ref, value), [], JSON.stringify(value).slice(0, 300));
      assert.deepEqual(undocumentedKeys(doc, schema, value), []);
    });
  }

  it('error examples carry the status of their response', () => {
    const statuses: Record<string, number[]> = { BadRequest: [400], Unauthorized: [401], Forbidden: [403], NotFound: [404], Gone: [410], Error: [413, 415, 429, 500, 503] };
    for (const [name, allowed] of Object.entries(statuses)) {
      const media = ((doc.components.responses as Record<string, Node>)[name].content as Record<string, Node>)['application/json'];
      for (const [key, example] of Object.entries(media.examples as Record<string, { value: { data: { status: number } } }>)) {
        assert.ok(allowed.includes(example.value.data.status), `${name} ${key}: ${example.value.data.status}`);
      }
    }
  });

  it('are checked for real: a wrong example fails', () => {
    const event = (doc.components.schemas as Record<string, Node>).Event.example as Record<string, unknown>;
    assert.notDeepEqual(schemaErrors('#/components/schemas/Event', { ...event, id: 'four' }), []);
    const { title: _title, ...untitled } = event;
    assert.notDeepEqual(schemaErrors('#/components/schemas/Event', untitled), []);
    assert.deepEqual(undocumentedKeys(doc, ref('Event'), { ...event, colour: 'blue' }), ['/colour']);
    // Request bodies and parameters are checked through their place in the document, as above.
    const body = '#/paths/~1events/post/requestBody/content/application~1x-www-form-urlencoded/schema';
    assert.notDeepEqual(schemaErrors(body, { title: 'Gig', start_date: 'tomorrow 7pm' }), []);
    assert.deepEqual(undocumentedKeys(doc, { $ref: body }, { title: 'Gig', colour: 'blue' }), ['/colour']);
    assert.notDeepEqual(schemaErrors('#/components/parameters/VenueIdPath/schema', 'town-hall'), []);
  });

  it("records' examples have the keys the service sends, in its order", async () => {
    const { http } = await testApp();
    const admin = await createUser('administrator');
    const post = (path: string, body: object) => http().post(`${NS}${path}`).set('Authorization', admin.authorization).send(body);
    const examples = doc.components.schemas as Record<string, { example: Record<string, unknown> }>;
    const category = (await post('/categories', { name: 'Concerts' })).body;
    const child = (await post('/categories', { name: 'Jazz', parent: category.id })).body;
    const tag = (await post('/tags', { name: 'Outdoor', description: 'Open air.' })).body;
    const venue = (
      await post('/venues', {
        venue: 'Hall',
        description: 'd',
        address: 'a',
        city: 'c',
        country: 'United States',
        state: 'IL',
        zip: 'z',
        phone: 'p',
        website: 'https://h.example.org',
        geo_lat: 1,
        geo_lng: 2,
      })
    ).body;
    const organizer = (await post('/organizers', { organizer: 'Crew', description: 'd', phone: 'p', website: 'https://c.example.org', email: 'crew@example.org' })).body;
    const event = (
      await post('/events', {
        title: 'Gig',
        description: 'd',
        excerpt: 'e',
        start_date: 'tomorrow 7pm',
        end_date: 'tomorrow 9pm',
        status: 'publish',
        cost: '15',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
        image: 'https://img.example.org/g.jpg',
        website: 'https://g.example.org',
      })
    ).body;
    const read = async (path: string) => (await http().get(`${NS}${path}`)).body as Record<string, unknown>;
    const cases: Array<[string, Record<string, unknown>]> = [
      ['Event', await read(`/events/${event.id}`)],
      ['Venue', await read(`/venues/${venue.id}`)],
      ['Organizer', await read(`/organizers/${organizer.id}`)],
      ['Category', await read(`/categories/${child.id}`)],
      ['Tag', await read(`/tags/${tag.id}`)],
    ];
    for (const [name, real] of cases) assert.deepEqual(Object.keys(examples[name].example), Object.keys(real), name);
    const list = await read('/events?per_page=1');
    assert.deepEqual(Object.keys((examples.EventList.example.events as object[])[0]), Object.keys((list.events as object[])[0]), 'EventList');
  });
});
