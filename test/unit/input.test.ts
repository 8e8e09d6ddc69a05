import assert from 'node:assert/strict';
import { inputShapesOf, normaliseBoolean, normaliseList, queryParser } from '../../src/http/input.js';
import { listOperations, loadDocument } from '../../src/openapi/document.js';

describe('input normalisation', () => {
  const shapes = inputShapesOf(listOperations(loadDocument()), '/wp-json/tribe/events/v1');
  const bodyShape = (method: string, path: string) => shapes.bodies.find((b) => b.method === method && b.pattern.test(path));

  it('reads boolean and list parameter names from the document', () => {
    for (const name of ['hide_empty', 'strict_dates', 'featured', 'has_events', 'force']) assert.ok(shapes.queryBooleans.has(name), name);
    for (const name of ['include', 'exclude', 'categories', 'tags', 'venue', 'organizer', 'status']) assert.ok(shapes.queryLists.has(name), name);
    const createEvent = bodyShape('POST', '/wp-json/tribe/events/v1/events');
    for (const name of ['all_day', 'sticky', 'featured', 'hide_from_listings', 'show_map']) assert.ok(createEvent?.booleans.has(name), name);
    assert.ok(createEvent?.lists.has('categories'));
    const updateVenue = bodyShape('PATCH', '/wp-json/tribe/events/v1/venues/12');
    assert.ok(updateVenue && !updateVenue.booleans.has('show_map'), 'venue show_map also takes strings');
    assert.equal(bodyShape('POST', '/wp-json/tribe/events/v1/venues/12/extra'), undefined);
    assert.ok(!shapes.queryLists.has('search'));
  });

  it('accepts the boolean spellings WordPress accepts and leaves others for the validator', () => {
    for (const value of ['1', 'true', 'TRUE', 'True', ' true ', 1]) assert.equal(normaliseBoolean(value), true, String(value));
    for (const value of ['0', 'false', 'FALSE', 0]) assert.equal(normaliseBoolean(value), false, String(value));
    for (const value of ['yes', '', 'on', 2]) assert.equal(normaliseBoolean(value), value);
  });

  it('splits comma-separated lists and ignores spaces around commas', () => {
    assert.deepEqual(normaliseList('1, 2 ,3'), ['1', '2', '3']);
    assert.deepEqual(normaliseList(['1,2', '3']), ['1', '2', '3']);
    assert.deepEqual(normaliseList(7), [7]);
    assert.deepEqual(normaliseList(''), []);
  });

  it('parses every list form of a query string into one array', () => {
    const parse = queryParser(shapes);
    for (const query of ['include=1,2', 'include=1%2C%202', 'include=1&include=2', 'include[]=1&include[]=2']) {
      assert.deepEqual(parse(query).include, ['1', '2'], query);
    }
    assert.deepEqual(parse('include=').include, [''], 'an empty list stays visible so validation refuses it');
  });

  it('keeps free text intact and takes the last of a repeated scalar', () => {
    const parse = queryParser(shapes);
    assert.equal(parse('search=a,b').search, 'a,b');
    assert.equal(parse('page=1&page=3').page, '3');
    assert.equal(parse('hide_empty=TRUE').hide_empty, 'true');
    assert.equal(parse('hide_empty=maybe').hide_empty, 'maybe');
  });
});
