import assert from 'node:assert/strict';
import { sleep, waitFor } from '../helpers/wait.js';
import { deliveryTestbed, startDelivery } from '../helpers/webhooks.js';

/**
 * How often the delivery loop reads the feed (docs/webhooks.md "Delivery at scale"): a commit wakes
 * it, but its rounds begin at least 250 ms apart (or the poll's period, if shorter), so a stream of
 * commits shares their reads of the committed position, which on MySQL hold writers back.
 */
describe('webhook delivery rounds under a stream of commits', function () {
  this.timeout(20_000);
  deliveryTestbed();

  it('begins a round at most every 250 ms however often commits wake it, and one soon after a quiet spell', async () => {
    let commit: () => void = () => {};
    const delivery = await startDelivery(
      {},
      {
        // A poll far off: only the commits below wake the loop.
        pollMs: 60_000,
        onCommit: (listener) => {
          commit = listener;
          return () => {};
        },
      },
    );
    await waitFor(() => delivery.counts().rounds >= 1, 'the first round');
    const before = delivery.counts().rounds;
    const started = Date.now();
    // A commit every 10 ms for 1.5 s: 150 wakes (time is the subject: a stream of commits at a rate).
    while (Date.now() - started < 1500) {
      commit();
      await sleep(10);
    }
    const elapsed = Date.now() - started;
    const rounds = delivery.counts().rounds - before;
    assert.ok(rounds >= 2, `${rounds} rounds in ${elapsed} ms: the commits woke the loop`);
    assert.ok(rounds <= Math.ceil(elapsed / 250) + 1, `${rounds} rounds in ${elapsed} ms: at most one per 250 ms`);
    // Quiet, then one commit: a round follows without waiting for the poll. The quiet spell, longer
    // than the 250 ms gap, is what is tested (the loop's state after it), so it is a wait of fixed time.
    await sleep(400);
    const quiet = delivery.counts().rounds;
    commit();
    await waitFor(() => delivery.counts().rounds > quiet, 'a round after the commit');
  });
});
