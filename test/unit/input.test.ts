import assert from 'node:assert/strict';
import type { Request, Response } from 'express';
import { holdsBoolean, inputShapesOf, nonFiniteInput, normaliseBody, normaliseBoolean, normaliseList, queryParser, trueAsText } from '../../src/http/input.js';
import { listOperations, loadDocument, type OperationInfo, type SchemaObject } from '../../src/openapi/document.js';
import { splitList } from '../../src/text/lists.js';

describe('input normalisation', () => {
  const shapes = inputShapesOf(listOperations(loadDocument()), '/wp-json/tribe/events/v1');
  const bodyShape = (method: string, path: string) => shapes.bodies.find((b) => b.method === method && b.pattern.test(path));

  it('reads boolean and list parameter names from the document', () => {
    for (const name of ['hide_empty', 'strict_dates', 'featured', 'has_events', 'force']) assert.ok(shapes.queryBooleans.has(name), name);
    for (const name of ['include', 'exclude', 'categories', 'tags', 'venue', 'organizer', 'status']) assert.ok(shapes.queryLists.has(name), name);
    const createEvent = bodyShape('POST', '/wp-json/tribe/events/v1/events');
    for (const name of ['all_day', 'sticky', 'featured', 'hide_from_listings', 'show_map']) assert.ok(createEvent?.booleans.has(name), name);
    assert.ok(createEvent?.nameLists.has('categories'));
    const updateVenue = bodyShape('PATCH', '/wp-json/tribe/events/v1/venues/12');
    assert.ok(updateVenue && !updateVenue.booleans.has('show_map'), 'venue show_map also takes strings');
    assert.equal(bodyShape('POST', '/wp-json/tribe/events/v1/venues/12/extra'), undefined);
    assert.ok(!shapes.queryLists.has('search'));
  });

  it('accepts the boolean spellings the plugin reads and leaves others for the validator', () => {
    for (const value of ['1', 'true', 'TRUE', 'True', ' true ', 1, 'yes', 'YES', 'on', 'On']) assert.equal(normaliseBoolean(value), true, String(value));
    for (const value of ['0', 'false', 'FALSE', 0, 'no', 'No', 'off', 'OFF']) assert.equal(normaliseBoolean(value), false, String(value));
    for (const value of ['', 'y', 'maybe', 'yess', 2]) assert.equal(normaliseBoolean(value), value);
  });

  it('splits lists as wp_parse_list does: on commas and whitespace, empty items dropped', () => {
    for (const text of ['1,2', '1, 2', '1 ,2', '1 2', '1,,2', ' 1\t2 ', '1 , , 2', ',1,2,']) assert.deepEqual(normaliseList(text), ['1', '2'], text);
    assert.deepEqual(normaliseList(['1,2', '3 4', '']), ['1', '2', '3', '4']);
    assert.deepEqual(normaliseList(7), [7]);
    assert.deepEqual(normaliseList(''), []);
    assert.deepEqual(normaliseList(', ,'), []);
    assert.deepEqual(normaliseList([1, '2,3']), [1, '2', '3'], 'items that are not strings stay as they are');
    assert.deepEqual(normaliseList({ a: 1 }), { a: 1 }, 'an object is left for the validator');
    assert.equal(normaliseList(true), true);
  });

  it('keeps the spaces of names in name lists, and still splits a run of IDs', () => {
    assert.deepEqual(normaliseList('Live Music, Jazz', true), ['Live Music', 'Jazz']);
    assert.deepEqual(normaliseList('Live Music ,,Jazz', true), ['Live Music', 'Jazz']);
    assert.deepEqual(normaliseList('12 14, 15', true), ['12', '14', '15']);
    assert.deepEqual(normaliseList('12 Angry Men', true), ['12 Angry Men']);
    assert.deepEqual(normaliseList(['Live Music', 'a,b']), ['Live', 'Music', 'a', 'b'], 'plain lists split array items too');
    assert.deepEqual(normaliseList(['Live Music', 'a,b'], true), ['Live Music', 'a', 'b']);
    assert.deepEqual(normaliseList('12 14 16,12  14', true), ['12', '14', '16', '12', '14'], 'any run of IDs, any spaces');
    assert.deepEqual(normaliseList('Room 1 2, 1 2 Jazz', true), ['Room 1 2', '1 2 Jazz'], 'only a whole item of IDs splits');
    assert.deepEqual(splitList('Live Music'), ['Live', 'Music'], 'a plain list unless names are asked for');
  });

  it('marks the event term lists as name lists and number fields for the boolean guard', () => {
    const createEvent = bodyShape('POST', '/wp-json/tribe/events/v1/events');
    assert.deepEqual([...(createEvent?.nameLists ?? [])].sort(), ['categories', 'tags']);
    assert.equal(createEvent?.lists.size, 0);
    assert.ok(createEvent?.numbers.has('author'));
    assert.ok(bodyShape('PATCH', '/wp-json/tribe/events/v1/categories/3')?.numbers.has('parent'));
    assert.deepEqual([...shapes.queryLowercase], ['order']);
    // References (an id among other forms) are the event's venue and organizer; `recurrence` takes booleans.
    assert.deepEqual([...(createEvent?.references ?? [])].sort(), ['organizer', 'venue']);
  });

  it('sends `true` in a reference on as text, alone, in a list or as {id}; leaves everything else', () => {
    assert.equal(trueAsText(true), 'true');
    assert.deepEqual(trueAsText([1, true, '2', false]), [1, 'true', '2', false]);
    assert.deepEqual(trueAsText({ id: true, venue: 'x' }), { id: 'true', venue: 'x' });
    assert.deepEqual(trueAsText([{ id: true }, { id: 3 }]), [{ id: 'true' }, { id: 3 }]);
    for (const kept of [false, 0, '', null, { id: 1 }, { venue: true }]) assert.deepEqual(trueAsText(kept), kept);
  });

  it('finds a boolean in a term list, as an item or an id; nothing else counts', () => {
    for (const list of [[true], [1, false], [{ id: true }], ['a', { id: false }]]) assert.equal(holdsBoolean(list), true, JSON.stringify(list));
    for (const other of [true, [], [1, 'true', null, { id: 2 }, { name: true }], 'true, false']) assert.equal(holdsBoolean(other), false, JSON.stringify(other));
  });

  it('parses every list form of a query string into one array', () => {
    const parse = queryParser(shapes);
    for (const query of [
      'include=1,2',
      'include=1%2C%202',
      'include=1, 2',
      'include=1 ,2',
      'include=1 2',
      'include=1+2',
      'include=1,+2',
      'include=1,,2',
      'include=1&include=2',
      'include=1,&include=2',
      'include[]=1&include[]=2',
    ]) {
      assert.deepEqual(parse(query).include, ['1', '2'], query);
    }
    assert.deepEqual(parse('include=').include, [''], 'an empty list stays visible so validation refuses it');
    assert.deepEqual(parse('include=,').include, [''], 'so does a list of empty items');
  });

  it('lower-cases the case-insensitive parameters only', () => {
    const parse = queryParser(shapes);
    assert.equal(parse('order=DESC').order, 'desc');
    assert.equal(parse('slug=MixedCase').slug, 'MixedCase');
    assert.equal(parse('hide_empty=Off').hide_empty, 'false');
    assert.equal(parse('strict_dates=YES').strict_dates, 'true');
  });

  it('keeps free text intact and takes the last of a repeated scalar', () => {
    const parse = queryParser(shapes);
    assert.equal(parse('search=a,b').search, 'a,b');
    assert.equal(parse('page=1&page=3').page, '3');
    assert.equal(parse('hide_empty=TRUE').hide_empty, 'true');
    assert.equal(parse('hide_empty=maybe').hide_empty, 'maybe');
    assert.deepEqual(parse('hide_empty=yes&hide_empty=no').hide_empty, ['yes', 'no'], 'a repeated boolean is left for the validator to refuse');
  });

  it('turns bracket objects into their values as strings, so the validator sees a shape it can refuse', () => {
    const parse = queryParser(shapes);
    assert.equal(parse('search[x]=1&search[y]=2').search, '2');
    assert.equal(parse('search[x][y]=1').search, '{"y":"1"}');
    assert.deepEqual(parse('include[][a]=1').include, ['{"a":"1"}']);
  });
});

describe('input shapes from synthetic operations', () => {
  const op = (method: string, path: string, parameters: OperationInfo['parameters'], properties?: Record<string, SchemaObject>): OperationInfo =>
    ({ operationId: `${method} ${path}`, method, path, parameters, bodySchema: properties ? { type: 'object', properties } : undefined, allowsAnonymous: true }) as OperationInfo;
  const operations = [
    op('GET', '/x/{id}', [
      { name: 'id', in: 'path', schema: { type: 'boolean' } },
      { name: 'mixed', in: 'query', schema: { type: 'boolean' } },
      { name: 'flag', in: 'query', schema: { type: 'boolean' } },
    ] as OperationInfo['parameters']),
    op('GET', '/y', [{ name: 'mixed', in: 'query', schema: { type: 'array' } }] as OperationInfo['parameters']),
    op('POST', '/feed.ics', [], {
      i: { type: 'integer' },
      n: { type: 'number' },
      s: { type: 'string' },
      b: { type: 'boolean' },
      l: { type: 'array' },
      nl: { type: 'array', 'x-list-items': 'names' } as SchemaObject,
    }),
    op('POST', '/x/{id}', []),
  ];
  const shapes = inputShapesOf(operations);

  it('reads query names only from query parameters, and leaves a name used two ways alone', () => {
    assert.deepEqual([...shapes.queryBooleans], ['flag']);
    assert.deepEqual([...shapes.queryLists], []);
  });

  it('keeps a shape per operation with a body: integers and numbers are numbers, strings are not', () => {
    assert.equal(shapes.bodies.length, 1);
    const [shape] = shapes.bodies;
    assert.deepEqual([...shape.numbers], ['i', 'n']);
    assert.deepEqual([...shape.booleans], ['b']);
    assert.deepEqual([...shape.lists], ['l']);
    assert.deepEqual([...shape.nameLists], ['nl']);
    assert.ok(shape.pattern.test('/feed.ics'));
    assert.ok(!shape.pattern.test('/feedxics'), 'the path is matched literally');
    const withRoot = inputShapesOf([op('POST', '/x/{id}', [], { b: { type: 'boolean' } })], '/ns');
    assert.ok(withRoot.bodies[0].pattern.test('/ns/x/12'));
    assert.ok(!withRoot.bodies[0].pattern.test('/ns/x/12/y'));
    assert.ok(!withRoot.bodies[0].pattern.test('/x/12'));
  });

  describe('normaliseBody', () => {
    const run = (method: string, path: string, body: unknown) => {
      let called = false;
      const req = { method, path, body } as Request;
      normaliseBody(shapes)(req, {} as Response, () => (called = true));
      assert.ok(called);
      return req.body as unknown;
    };
    const sent = () => ({ i: true, n: 5, s: true, b: 'yes', l: 'a b,c', nl: 'Live Music, Jazz' });

    it('rewrites the fields of the matching operation by their shape', () => {
      assert.deepEqual(run('POST', '/feed.ics', sent()), { i: 'true', n: 5, s: true, b: true, l: ['a', 'b', 'c'], nl: ['Live Music', 'Jazz'] });
    });

    it('leaves bodies of other methods and paths, arrays and absent bodies alone', () => {
      assert.deepEqual(run('PUT', '/feed.ics', sent()), sent());
      assert.deepEqual(run('POST', '/feedxics', sent()), sent());
      assert.deepEqual(run('POST', '/feed.ics', [sent()]), [sent()]);
      assert.equal(run('POST', '/feed.ics', undefined), undefined);
    });
  });
});

describe('nonFiniteInput', () => {
  const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { a: nest(levels - 1, leaf) });

  it('names the first query or body input that is a number but not finite, at any depth up to nine objects', () => {
    assert.equal(nonFiniteInput({ page: '1', per_page: Infinity }, {}), 'per_page');
    assert.equal(nonFiniteInput({}, { title: 'x', venue: [1, -Infinity] }), 'venue');
    assert.equal(nonFiniteInput({}, { deep: nest(9, NaN) }), 'deep');
    assert.equal(nonFiniteInput({}, { deep: nest(10, NaN) }), undefined, 'deeper than that is not looked at');
  });

  it('finds nothing in finite numbers, strings and empty input', () => {
    assert.equal(nonFiniteInput({ page: '1' }, { n: 5, list: [1, 2], nested: { x: 1 } }), undefined);
    assert.equal(nonFiniteInput({}, null), undefined);
    assert.equal(nonFiniteInput({}, 'text'), undefined);
  });
});
