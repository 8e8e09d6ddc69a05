import assert from 'node:assert/strict';
import { ExpansionBudget, ExpansionBudgetExceeded } from '../../src/dates/recurrence-budget.js';

/** The time back-stop of one search for an instance (src/dates/recurrence-budget.ts, docs/limits.md "Recurrence rules"). */
describe('recurrence budget: the time of one search', () => {
  /** Holds the thread for `ms` (both clocks the budget reads move), as a pause or a slow step would. */
  const hold = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  /** Enough calls of spend() for the budget to read its clocks (every 8). */
  const spendSome = (budget: ExpansionBudget) => {
    for (let i = 0; i < 16; i++) budget.spend();
  };

  it('lets a search through one pause past the deadline, refuses it past a second window, and starts afresh for the next search', () => {
    const budget = new ExpansionBudget(1_000_000, 1_000_000, 20);
    budget.startInstance();
    hold(60);
    spendSome(budget);
    // One pause: the search goes on in a second window.
    spendSome(budget);
    hold(60);
    assert.throws(
      () => spendSome(budget),
      (err: unknown) => err instanceof ExpansionBudgetExceeded && err.bound === 'instance-time',
    );
    // The next search has both windows again.
    budget.startInstance();
    hold(60);
    spendSome(budget);
    spendSome(budget);
  });
});
