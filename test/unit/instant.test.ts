import assert from 'node:assert/strict';
import { parseInstantUtc } from '../../src/dates/instant.js';

/** `modified_after` / `modified_before` and the change feed's instants (docs/contract.md §8). */
describe('parseInstantUtc', () => {
  it('reads an RFC 3339 date-time with its offset as UTC storage text', () => {
    const cases: Record<string, string> = {
      '2026-01-01T09:30:00Z': '2026-01-01 09:30:00',
      '2026-01-01t09:30:00z': '2026-01-01 09:30:00',
      '2026-01-01 09:30:00Z': '2026-01-01 09:30:00',
      '2026-01-01T10:30:00+01:00': '2026-01-01 09:30:00',
      '2026-01-01T10:30:00+01': '2026-01-01 09:30:00',
      '2026-01-01T10:30:00+0100': '2026-01-01 09:30:00',
      '2026-01-01T04:00:00-05:30': '2026-01-01 09:30:00',
      '2026-01-01T00:15:00+00:45': '2025-12-31 23:30:00',
      '2026-12-31T23:30:00-01:00': '2027-01-01 00:30:00',
      '2026-01-01T09:30:00.999Z': '2026-01-01 09:30:00',
      '2026-06-30T23:59:60Z': '2026-06-30 23:59:59',
      '2028-02-29T12:00:00Z': '2028-02-29 12:00:00',
      '2026-01-01T00:00:00+23:59': '2025-12-31 00:01:00',
      '0999-03-04T05:06:07Z': '0999-03-04 05:06:07',
      '0000-01-01T12:00:00Z': '0000-01-01 12:00:00',
      '9999-12-31T12:00:00Z': '9999-12-31 12:00:00',
    };
    for (const [input, expected] of Object.entries(cases)) assert.equal(parseInstantUtc(input), expected, input);
  });

  it('clamps instants beyond the stored years to the first and last stored forms', () => {
    assert.equal(parseInstantUtc('0000-01-01T00:30:00+01:00'), '0000-01-01 00:00:00');
    assert.equal(parseInstantUtc('9999-12-31T23:30:00-01:00'), '9999-12-31 23:59:59');
  });

  it('refuses everything else: other types, dates alone, wall times, phrases, days and times that do not exist', () => {
    for (const input of [
      undefined,
      null,
      1767259800,
      '2026-01-01',
      '2026-01-01T09:30:00',
      'yesterday',
      ' 2026-01-01T09:30:00Z',
      '2026-01-01T09:30:00Z ',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-01-32T00:00:00Z',
      '2027-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:61Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00+23:60',
      '2026-01-01T00:00:00+1:00',
    ]) {
      assert.equal(parseInstantUtc(input), undefined, String(input));
    }
  });
});
