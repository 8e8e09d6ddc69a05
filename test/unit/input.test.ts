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
  });

  it('keeps the spaces of names in name lists, and still splits a run of IDs', () => {
    assert.deepEqual(normaliseList('Live Music, Jazz', true), ['Live Music', 'Jazz']);
    assert.deepEqual(normaliseList('Live Music ,,Jazz', true), ['Live Music', 'Jazz']);
    assert.deepEqual(normaliseList('12 14, 15', true), ['12', '14', '15']);
    assert.deepEqual(normaliseList('12 Angry Men', true), ['12 Angry Men']);
    assert.deepEqual(normaliseList(['Live Music', 'a,b']), ['Live', 'Music', 'a', 'b'], 'plain lists split array items too');
    assert.deepEqual(normaliseList(['Live Music', 'a,b'], true), ['Live Music', 'a', 'b']);
  });

  it('marks the event term lists as name lists and number fields for the boolean guard', () => {
    const createEvent = bodyShape('POST', '/wp-json/tribe/events/v1/events');
    assert.deepEqual([...(createEvent?.nameLists ?? [])].sort(), ['categories', 'tags']);
    assert.equal(createEvent?.lists.size, 0);
    assert.ok(createEvent?.numbers.has('author'));
    assert.ok(bodyShape('PATCH', '/wp-json/tribe/events/v1/categories/3')?.numbers.has('parent'));
    assert.deepEqual([...shapes.queryLowercase], ['order']);
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
  });
});
