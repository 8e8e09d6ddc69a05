import assert from 'node:assert/strict';
import { percentile } from '../common.js';
import { matchLag, throughputRatio, type Arrival, type Write } from '../webhooks.js';

/**
 * The webhook benchmark's verdict (scripts/bench/webhooks.ts, docs/performance.md "Webhooks") rests
 * on matching each write with each webhook's message of that very record version: a message of an
 * older version, a second delivery of one message, or a message to another webhook must not count
 * as the write's arrival, and a write no message carried must be reported missing.
 */
describe('webhook benchmark: lag matching and percentiles', () => {
  const writes: Write[] = [
    { kind: 'create', id: 10, title: 'A 1', answeredAt: 1000 },
    { kind: 'create', id: 11, title: 'A 2', answeredAt: 1100 },
    { kind: 'update', id: 5, title: 'A 3', answeredAt: 1200 },
  ];
  const arrival = (hook: number, messageId: string, id: number, title: string, at: number): Arrival => ({ hook, messageId, type: 'event.updated', id, title, at });

  it('gives each webhook its own count and each received version one lag, from the answer to the first arrival', () => {
    const arrivals = [
      arrival(1, 'msg_1_a', 10, 'A 1', 1300),
      arrival(1, 'msg_1_b', 11, 'A 2', 1150),
      arrival(1, 'msg_1_c', 5, 'A 3', 1700),
      arrival(2, 'msg_2_a', 10, 'A 1', 1400),
      // The same message again (a redelivery): counted as a duplicate, not as a second arrival.
      arrival(2, 'msg_2_a', 10, 'A 1', 1900),
      // Record 5 at another version than the write's: not the write's arrival.
      arrival(2, 'msg_2_c', 5, 'an older title', 1250),
    ];
    const { perHook, lags, missing } = matchLag(writes, arrivals, [1, 2, 3]);
    assert.deepEqual(perHook, [
      { hook: 1, expected: 3, received: 3, missing: 0, duplicates: 0 },
      { hook: 2, expected: 3, received: 1, missing: 2, duplicates: 1 },
      { hook: 3, expected: 3, received: 0, missing: 3, duplicates: 0 },
    ]);
    assert.deepEqual(lags, [50, 300, 400, 500]);
    assert.equal(missing.length, 5);
    assert.deepEqual(
      missing.filter((m) => m.hook === 2).map((m) => m.id),
      [11, 5],
    );
  });

  it('compares the throughput with webhooks to the mean of the runs without, before and after', () => {
    const runs = [
      { label: 'without webhooks', rps: 100 },
      { label: 'with 3 webhooks', rps: 95 },
      { label: 'without webhooks (paused), after', rps: 90 },
    ];
    assert.equal(throughputRatio(runs), 1);
    assert.equal(throughputRatio(runs.slice(0, 2)), 0.95);
    assert.equal(throughputRatio([runs[0]]), undefined);
  });

  it('takes the mean of every window of each kind when the windows are balanced over rounds', () => {
    const delivering = (l: string) => l.includes('delivering');
    const paused = (l: string) => l.includes('paused');
    // Two rounds of paused, delivering, delivering, paused, the machine slowing by 10 req/s a window.
    const rps = [100, 90, 80, 70, 60, 50, 40, 30];
    const runs = rps.map((r, i) => ({ label: [0, 3, 4, 7].includes(i) ? 'paused' : 'delivering', rps: r }));
    assert.equal(throughputRatio(runs, delivering, paused), 1);
    runs[5].rps = 10;
    assert.equal(throughputRatio(runs, delivering, paused), Math.round((1000 * (90 + 80 + 10 + 40)) / (100 + 70 + 60 + 30)) / 1000);
  });

  it('takes percentiles by nearest rank, the maximum at 1, nothing of an empty list', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(sorted, 0.5), 50);
    assert.equal(percentile(sorted, 0.95), 95);
    assert.equal(percentile(sorted, 0.99), 99);
    assert.equal(percentile(sorted, 1), 100);
    assert.equal(percentile([7], 0.95), 7);
    assert.equal(percentile([], 0.5), undefined);
  });
});
