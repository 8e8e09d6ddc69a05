import assert from 'node:assert/strict';
import { applyFields, listKeys, parseFields, selectFields, type FieldSelection } from '../../src/http/fields.js';
import { loadDocument } from '../../src/openapi/document.js';

/** A selection as a plain object, to compare. */
function plain(selection: FieldSelection | undefined): unknown {
  if (!selection) return undefined;
  return Object.fromEntries([...selection].map(([key, value]) => [key, value === true ? true : plain(value)]));
}

describe('_fields (WordPress rest_filter_response_fields)', () => {
  describe('parseFields', () => {
    it('splits on commas and whitespace, drops empty names, and reads lists as the query parser leaves them', () => {
      assert.deepEqual(plain(parseFields('id,title')), { id: true, title: true });
      assert.deepEqual(plain(parseFields(' id , title  slug,,')), { id: true, title: true, slug: true });
      assert.deepEqual(plain(parseFields(['id', 'title, slug'])), { id: true, title: true, slug: true });
      assert.equal(parseFields(''), undefined);
      assert.equal(parseFields(' , '), undefined);
      assert.equal(parseFields(undefined), undefined);
      assert.equal(parseFields({ id: '1' }), undefined);
    });

    it('nests dotted names, and a whole parent wins over narrower names in either order', () => {
      assert.deepEqual(plain(parseFields('venue.venue,venue.city,image.url')), { venue: { venue: true, city: true }, image: { url: true } });
      assert.deepEqual(plain(parseFields('venue.venue,venue')), { venue: true });
      assert.deepEqual(plain(parseFields('venue,venue.venue')), { venue: true });
      assert.deepEqual(plain(parseFields('a.b.c')), { a: { b: { c: true } } });
    });

    it('cannot reach the prototype of anything', () => {
      const selection = parseFields('__proto__.polluted,constructor.prototype.polluted')!;
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.deepEqual(selectFields({ id: 1 }, selection), {});
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });

  describe('selectFields and applyFields', () => {
    const event = {
      id: 7,
      title: 'Gig',
      image: false,
      venue: { id: 3, venue: 'Hall', city: 'Town' },
      organizer: [
        { id: 4, organizer: 'Crew', email: 'a@b.c' },
        { id: 5, organizer: 'Band' },
      ],
    };

    it("keeps the named keys in the record's order, whole or narrowed", () => {
      assert.deepEqual(Object.keys(selectFields(event, parseFields('title,id')!) as object), ['id', 'title']);
      assert.deepEqual(selectFields(event, parseFields('venue.venue')!), { venue: { venue: 'Hall' } });
      assert.deepEqual(selectFields(event, parseFields('venue')!), { venue: event.venue });
    });

    it('leaves a scalar under a nested name whole, and narrows each object of a nested list', () => {
      assert.deepEqual(selectFields(event, parseFields('image.url,title.rendered')!), { title: 'Gig', image: false });
      assert.deepEqual(selectFields(event, parseFields('organizer.organizer')!), { organizer: [{ organizer: 'Crew' }, { organizer: 'Band' }] });
    });

    it('leaves out names that match nothing', () => {
      assert.deepEqual(selectFields(event, parseFields('nothing,venue.nothing')!), { venue: {} });
    });

    it('applies to each record of a list and keeps the envelope', () => {
      const list = { events: [event, { ...event, id: 8 }], rest_url: 'r', total: 2, total_pages: 1 };
      assert.deepEqual(applyFields(list, parseFields('id')!, 'events'), { events: [{ id: 7 }, { id: 8 }], rest_url: 'r', total: 2, total_pages: 1 });
      assert.deepEqual(applyFields(event, parseFields('id')!, undefined), { id: 7 });
    });

    it('finds the records key of every list operation in the document', () => {
      assert.deepEqual(Object.fromEntries(listKeys(loadDocument())), {
        listEvents: 'events',
        listEventOccurrences: 'events',
        listVenues: 'venues',
        listOrganizers: 'organizers',
        listCategories: 'categories',
        listTags: 'tags',
        listWebhookDeliveries: 'deliveries',
        listSubscriptionRuns: 'runs',
      });
    });
  });
});
