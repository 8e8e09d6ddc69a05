import assert from 'node:assert/strict';
import { zoneOf } from '../../src/dates/parse.js';
import { defaultWindow, listBounds, searchTerms } from '../../src/domain/events/list-window.js';

/** The plugin's own capture was taken at this moment on a UTC site (docs/plugin-behaviour.md §5.5). */
const NOW = new Date('2026-11-21T21:09:00Z');

function bounds(query: Record<string, string>, options: Partial<{ strict: boolean; include: boolean; byModified: boolean; now: Date; siteTimezone: string }> = {}) {
  return listBounds(query, { strict: false, include: false, now: NOW, siteTimezone: 'UTC', ...options });
}

describe('GET /events date window (docs/plugin-behaviour.md §5.5)', () => {
  describe('defaultWindow', () => {
    const window = (now: string, zone: string) => defaultWindow(new Date(now), zoneOf(zone)!);

    it('runs from yesterday 00:00 to the end of the day 24 months ahead on a UTC site', () => {
      const expected = { start_date: '2026-11-20 00:00:00', end_date: '2028-11-21 23:59:59' };
      assert.deepEqual(window('2026-11-21T21:09:00Z', 'UTC'), expected);
      assert.deepEqual(window('2026-11-21T00:00:00Z', 'UTC'), expected);
      assert.deepEqual(window('2026-11-21T23:59:59Z', 'UTC'), expected);
    });

    it('starts on the site-local date of 23:59 UTC yesterday: today east of UTC', () => {
      assert.deepEqual(window('2026-11-21T21:09:00Z', 'Asia/Tokyo'), { start_date: '2026-11-21 00:00:00', end_date: '2028-11-21 23:59:59' });
      assert.deepEqual(window('2026-11-21T01:00:00Z', 'Australia/Darwin'), { start_date: '2026-11-21 00:00:00', end_date: '2028-11-21 23:59:59' });
    });

    it('starts yesterday west of UTC, whatever the local hour', () => {
      // 21:09 UTC is 16:09 on 21 November in New York; 03:00 UTC is 22:00 on 20 November.
      assert.deepEqual(window('2026-11-21T21:09:00Z', 'America/New_York'), { start_date: '2026-11-20 00:00:00', end_date: '2028-11-21 23:59:59' });
      assert.deepEqual(window('2026-11-21T03:00:00Z', 'America/New_York'), { start_date: '2026-11-20 00:00:00', end_date: '2028-11-21 23:59:59' });
      assert.deepEqual(window('2026-11-21T21:09:00Z', 'UTC-3.5'), { start_date: '2026-11-20 00:00:00', end_date: '2028-11-21 23:59:59' });
    });

    it('adds 24 months as PHP does, rolling 29 February over to 1 March', () => {
      assert.deepEqual(window('2028-02-29T12:00:00Z', 'UTC'), { start_date: '2028-02-28 00:00:00', end_date: '2030-03-01 23:59:59' });
      assert.deepEqual(window('2028-02-28T12:00:00Z', 'UTC'), { start_date: '2028-02-27 00:00:00', end_date: '2030-02-28 23:59:59' });
      assert.deepEqual(window('2027-03-31T12:00:00Z', 'UTC'), { start_date: '2027-03-30 00:00:00', end_date: '2029-03-31 23:59:59' });
    });

    it('ends on the UTC date 24 months ahead, not the site-local one', () => {
      // 23:30 UTC on 21 November is already 22 November in Tokyo.
      assert.deepEqual(window('2026-11-21T23:30:00Z', 'Asia/Tokyo'), { start_date: '2026-11-21 00:00:00', end_date: '2028-11-21 23:59:59' });
    });
  });

  describe('listBounds', () => {
    it('applies the default window when no date parameter is given', () => {
      assert.deepEqual(bounds({}), {
        bounds: { startFrom: '2026-11-20 00:00:00', endTo: '2028-11-21 23:59:59' },
        urlValues: { start_date: '2026-11-20 00:00:00', end_date: '2028-11-21 23:59:59' },
        invalid: [],
      });
    });

    it('computes the default window in the site time zone', () => {
      assert.deepEqual(bounds({}, { siteTimezone: 'Asia/Tokyo' }).bounds, { startFrom: '2026-11-21 00:00:00', endTo: '2028-11-21 23:59:59' });
      assert.deepEqual(bounds({}, { siteTimezone: 'America/New_York', now: new Date('2026-11-21T03:00:00Z') }).bounds, {
        startFrom: '2026-11-20 00:00:00',
        endTo: '2028-11-21 23:59:59',
      });
    });

    it('widens start_date to 00:00:00 and end_date to 23:59:59 of their dates (inclusive mode)', () => {
      assert.deepEqual(bounds({ start_date: '2030-01-01 10:00:00', end_date: '2030-01-31 10:00:00' }), {
        bounds: { startFrom: '2030-01-01 00:00:00', endTo: '2030-01-31 23:59:59' },
        urlValues: { start_date: '2030-01-01 00:00:00', end_date: '2030-01-31 23:59:59' },
        invalid: [],
      });
    });

    it('fills the other end of the window with its default when only one of start_date and end_date is given', () => {
      assert.deepEqual(bounds({ start_date: '2030-01-01' }).bounds, { startFrom: '2030-01-01 00:00:00', endTo: '2028-11-21 23:59:59' });
      assert.deepEqual(bounds({ end_date: '2026-12-31' }).bounds, { startFrom: '2026-11-20 00:00:00', endTo: '2026-12-31 23:59:59' });
    });

    it('moves all four relative bounds to 23:59:59 of their dates and drops the default window', () => {
      assert.deepEqual(bounds({ starts_after: '2030-05-01' }), {
        bounds: { startsAfter: '2030-05-01 23:59:59' },
        urlValues: { starts_after: '2030-05-01 23:59:59' },
        invalid: [],
      });
      assert.deepEqual(bounds({ starts_before: '2030-05-10 08:00', ends_after: '2030-05-01', ends_before: '2030-06-01 00:00:01' }).bounds, {
        startsBefore: '2030-05-10 23:59:59',
        endsBefore: '2030-06-01 23:59:59',
        endsAfter: '2030-05-01 23:59:59',
      });
    });

    it('keeps an explicit start_date or end_date beside a relative bound', () => {
      assert.deepEqual(bounds({ start_date: '2030-01-01', starts_after: '2030-05-01' }).bounds, {
        startFrom: '2030-01-01 00:00:00',
        startsAfter: '2030-05-01 23:59:59',
      });
      assert.deepEqual(bounds({ end_date: '2030-12-31', ends_before: '2030-06-01' }).bounds, {
        endTo: '2030-12-31 23:59:59',
        endsBefore: '2030-06-01 23:59:59',
      });
    });

    it('reads relative phrases in the site zone', () => {
      assert.deepEqual(bounds({ start_date: 'tomorrow' }, { siteTimezone: 'Asia/Tokyo' }).bounds.startFrom, '2026-11-23 00:00:00');
      assert.deepEqual(bounds({ start_date: 'tomorrow' }, { siteTimezone: 'America/New_York' }).bounds.startFrom, '2026-11-22 00:00:00');
      assert.deepEqual(bounds({ ends_before: 'today' }).bounds, { endsBefore: '2026-11-21 23:59:59' });
    });

    it('takes the date of an instant with an offset in the site zone', () => {
      // 02:00 UTC on 22 December is still 21 December in New York.
      assert.deepEqual(bounds({ start_date: '2017-12-22T02:00:00Z' }, { siteTimezone: 'America/New_York' }).bounds.startFrom, '2017-12-21 00:00:00');
    });

    it('with strict_dates reads each value as UTC, converts it to the site zone and keeps its time', () => {
      assert.deepEqual(bounds({ start_date: '2017-12-21' }, { strict: true, siteTimezone: 'America/New_York' }), {
        bounds: { startFrom: '2017-12-20 19:00:00', endTo: '2028-11-21 23:59:59' },
        urlValues: { start_date: '2017-12-20 19:00:00', end_date: '2028-11-21 23:59:59' },
        invalid: [],
      });
      assert.deepEqual(bounds({ starts_after: '2030-05-01 10:30:00', ends_before: '2030-05-02 08:00:00' }, { strict: true, siteTimezone: 'Europe/Paris' }).bounds, {
        startsAfter: '2030-05-01 12:30:00',
        endsBefore: '2030-05-02 10:00:00',
      });
      // A value with an offset is that instant, not UTC wall time.
      assert.deepEqual(bounds({ start_date: '2017-12-21T10:00:00+02:00' }, { strict: true, siteTimezone: 'America/New_York' }).bounds.startFrom, '2017-12-21 03:00:00');
    });

    it('leaves the default window as it is under strict_dates', () => {
      assert.deepEqual(bounds({}, { strict: true }).bounds, { startFrom: '2026-11-20 00:00:00', endTo: '2028-11-21 23:59:59' });
    });

    it('ignores every date bound, the defaults included, when include is given (docs/contract.md §6)', () => {
      assert.deepEqual(bounds({}, { include: true }), { bounds: {}, urlValues: {}, invalid: [] });
      assert.deepEqual(bounds({ start_date: '2030-01-01', ends_before: '2030-02-01' }, { include: true }), { bounds: {}, urlValues: {}, invalid: [] });
    });

    it('still reports an unparseable date beside include', () => {
      assert.deepEqual(bounds({ start_date: 'someday' }, { include: true }), { bounds: {}, urlValues: {}, invalid: ['start_date'] });
    });

    it('names every unparseable parameter, in the order of the document, and applies no bound', () => {
      assert.deepEqual(bounds({ ends_before: 'bar', start_date: 'foo', end_date: '2030-01-01' }), {
        bounds: {},
        urlValues: { end_date: '2030-01-01 23:59:59' },
        invalid: ['start_date', 'ends_before'],
      });
      assert.deepEqual(bounds({ starts_after: '', ends_after: '2030-13-01' }).invalid, ['starts_after', 'ends_after']);
      assert.deepEqual(bounds({ start_date: '0999-01-01' }).invalid, ['start_date']);
    });

    it('applies no default window to a list by modification time without dates, and the usual bounds with them (docs/contract.md §8)', () => {
      assert.deepEqual(bounds({}, { byModified: true }), { bounds: {}, urlValues: {}, invalid: [] });
      assert.deepEqual(bounds({ start_date: '2030-01-01' }, { byModified: true }).bounds, { startFrom: '2030-01-01 00:00:00', endTo: '2028-11-21 23:59:59' });
      assert.deepEqual(bounds({ ends_after: '2030-01-01' }, { byModified: true }).bounds, { endsAfter: '2030-01-01 23:59:59' });
      assert.deepEqual(bounds({}, { byModified: false }).bounds, { startFrom: '2026-11-20 00:00:00', endTo: '2028-11-21 23:59:59' });
    });

    it('falls back to UTC for an unknown site zone', () => {
      assert.deepEqual(bounds({ start_date: '2030-01-01T02:00:00+05:00' }, { siteTimezone: 'Nowhere/Special' }).bounds.startFrom, '2029-12-31 00:00:00');
    });
  });

  describe('searchTerms', () => {
    it('splits words on spaces, commas and plus signs', () => {
      assert.deepEqual(searchTerms('foo bar'), { include: ['foo', 'bar'], exclude: [] });
      assert.deepEqual(searchTerms('a,b+c  d'), { include: ['a', 'b', 'c', 'd'], exclude: [] });
    });

    it('keeps double-quoted phrases whole, closed or not', () => {
      assert.deepEqual(searchTerms('"foo bar" baz'), { include: ['foo bar', 'baz'], exclude: [] });
      assert.deepEqual(searchTerms('"unclosed phrase'), { include: ['unclosed phrase'], exclude: [] });
      assert.deepEqual(searchTerms('"-foo"'), { include: ['-foo'], exclude: [] }, 'a quoted minus is text');
      assert.deepEqual(searchTerms('" spaced phrase " x'), { include: ['spaced phrase', 'x'], exclude: [] }, 'a phrase without its outer spaces');
    });

    it('excludes words written with a leading minus', () => {
      assert.deepEqual(searchTerms('-foo bar'), { include: ['bar'], exclude: ['foo'] });
      assert.deepEqual(searchTerms('-'), { include: ['-'], exclude: [] }, 'a lone minus is a word');
    });

    it('finds no term in blank text or empty quotes', () => {
      assert.deepEqual(searchTerms('  '), { include: [], exclude: [] });
      assert.deepEqual(searchTerms('""'), { include: [], exclude: [] });
      assert.deepEqual(searchTerms('"   "'), { include: [], exclude: [] });
    });
  });
});
