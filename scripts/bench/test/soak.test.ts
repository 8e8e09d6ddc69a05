import assert from 'node:assert/strict';
import { slopePerHour } from '../soak.js';

/**
 * The soak's verdict is the resident size's least-squares slope per hour after the warm-up
 * (scripts/bench/soak.ts, docs/performance.md "Soak"): samples are one a minute, so a wrong unit or
 * a fit that follows the last point instead of the trend would pass or fail the 5 MB/h target wrongly.
 */
describe('soak: the memory slope per hour', () => {
  it('is 60 times the per-minute growth of a straight line', () => {
    const points = Array.from({ length: 51 }, (_, i): [number, number] => [10 + i, 150 + 0.1 * (10 + i)]);
    assert.equal(slopePerHour(points), 6);
  });

  it('follows the trend, not the ends: a flat series with one high last sample stays under the end-to-end difference', () => {
    const flat = Array.from({ length: 50 }, (_, i): [number, number] => [10 + i, 180 + (i % 2 ? 1 : -1)]);
    assert.ok(Math.abs(slopePerHour(flat)!) < 2.5, `flat: ${slopePerHour(flat)} MB/h`);
    // End to end, 179 -> 190 MB in 50 minutes would read as 13.2 MB/h.
    const slope = slopePerHour([...flat, [60, 190]])!;
    assert.ok(slope > 0 && slope < 5, `with one high last sample: ${slope} MB/h`);
  });

  it('falls, too, and needs two samples at two times', () => {
    assert.equal(
      slopePerHour([
        [10, 200],
        [20, 190],
      ]),
      -60,
    );
    assert.equal(slopePerHour([[10, 200]]), undefined);
    assert.equal(
      slopePerHour([
        [10, 200],
        [10, 210],
      ]),
      undefined,
    );
  });
});
