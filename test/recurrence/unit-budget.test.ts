import assert from 'node:assert/strict';
import { ExpansionBudget, ExpansionBudgetExceeded, type ExceededBound } from '../../src/dates/recurrence-budget.js';

/** The bounds of one expansion count steps, never time (src/dates/recurrence-budget.ts, docs/limits.md "Recurrence rules"). */
describe('recurrence budget: steps only', () => {
  const refusedFor = (bound: ExceededBound) => (err: unknown) => err instanceof ExpansionBudgetExceeded && err.bound === bound;
  /** Holds the thread for `ms`, as a slow machine or a garbage collection would. */
  const hold = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it('refuses a search at its step bound exactly, however long its steps took, and counts each search afresh', () => {
    const budget = new ExpansionBudget(1_000, 100);
    budget.startInstance();
    budget.spend(60);
    hold(120);
    budget.spend(40);
    assert.throws(() => budget.spend(), refusedFor('instance-steps'));
    budget.startInstance();
    budget.spend(100);
    assert.equal(budget.used, 201);
  });

  it('refuses an expansion at its total bound, all searches together', () => {
    const budget = new ExpansionBudget(250, 100);
    for (let search = 0; search < 2; search++) {
      budget.startInstance();
      budget.spend(100);
    }
    budget.startInstance();
    budget.spend(50);
    assert.throws(() => budget.spend(), refusedFor('expansion-steps'));
  });
});
