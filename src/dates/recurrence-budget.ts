import ICAL from 'ical.js';

/**
 * Bounds on the work of expanding recurrence rules (docs/limits.md "Recurrence rules"). ical.js's
 * iterator searches for the next instance in loops whose length the rule decides: `next()` steps
 * until every limiting part matches (a `FREQ=SECONDLY` rule limited to May steps through every
 * second of February to April), and `init()` of a yearly rule scans up to the year 20000 for a year
 * with an instance. Nothing a rule says bounds those loops before they run, so their steps are
 * counted while they run, against two bounds:
 * - per instance: one search (`init()` or one `next()`) runs on the event loop without a break, so
 *   it may take INSTANCE_STEP_BUDGET steps; that is what stops a rule whose next instance is
 *   millions of steps away, and what bounds how long one search holds the loop;
 * - per expansion: all searches of one expansion (every rule of a series, from its first start to
 *   the horizon) may take EXPANSION_STEP_BUDGET steps. The expansion gives the event loop a turn
 *   between searches (dates/recurrence.ts), so this total bounds the processor time a write costs,
 *   not how long it holds the loop; it is large enough that a legitimate rule does not age out
 *   (an expansion always starts at the series' first start, so its work grows with the series' age).
 * Only steps are counted, never time: a rule is refused or accepted the same way on a loaded machine
 * as on an idle one, and a refusal always names the same bound.
 */

/**
 * Steps of ical.js's iterator one search for an instance may take. Measured on the development
 * machine (2 cores), searches that reach it take 16–50 ms of processor time with the machine under
 * a load of 12 (about 1.6–5 µs a step; 10–30 ms when it is idle): under the 100 ms a request may
 * hold the loop with a margin of two. The most a legitimate rule takes is about 5,800 (a daily rule
 * kept to 29 February); common rules take a few to a few hundred (docs/limits.md).
 */
const INSTANCE_STEP_BUDGET = 10_000;
/**
 * Steps one expansion may take in all (every rule of a series together). The most expensive common
 * rule measured, "the last weekday of every month" (BYSETPOS), takes about 480 steps per occurrence:
 * this covers it for about 85 years of a series' age (docs/limits.md has the measurements).
 */
const EXPANSION_STEP_BUDGET = 500_000;

/** Which bound an expansion passed. */
export type ExceededBound = 'instance-steps' | 'expansion-steps';

const EXCEEDED_MESSAGES: Record<ExceededBound, string> = {
  'instance-steps': `the rule needs too much work to find one occurrence (more than ${INSTANCE_STEP_BUDGET} iteration steps): give it fewer limiting parts or a coarser FREQ.`,
  'expansion-steps': `the rules need too much work to expand up to the horizon (more than ${EXPANSION_STEP_BUDGET} iteration steps, all lines together): give them fewer limiting parts, a coarser FREQ, or end the series (COUNT or UNTIL) and start a new one.`,
};

/** Thrown when an expansion has passed a bound; recurrence.ts names the line it was expanding. */
export class ExpansionBudgetExceeded extends Error {
  constructor(readonly bound: ExceededBound) {
    super(EXCEEDED_MESSAGES[bound]);
  }
}

/** The work one expansion has done so far, in all and in its current search for an instance. */
export class ExpansionBudget {
  private steps = 0;
  private instanceSteps = 0;

  constructor(
    private readonly maxSteps = EXPANSION_STEP_BUDGET,
    private readonly maxInstanceSteps = INSTANCE_STEP_BUDGET,
  ) {}

  /** A new search for an instance begins: the per-instance bound counts from here. */
  startInstance(): void {
    this.instanceSteps = 0;
  }

  /** Counts `weight` steps; throws ExpansionBudgetExceeded past a bound. */
  spend(weight = 1): void {
    this.steps += weight;
    this.instanceSteps += weight;
    if (this.instanceSteps > this.maxInstanceSteps) throw new ExpansionBudgetExceeded('instance-steps');
    if (this.steps > this.maxSteps) throw new ExpansionBudgetExceeded('expansion-steps');
  }

  get used(): number {
    return this.steps;
  }
}

/** A rule's iterator refused by ical.js itself (a combination of parts it cannot iterate). */
export class IteratorRefused extends Error {}

/** The members of ical.js's RecurIterator the budget hooks into (its loops call them on every step). */
interface IteratorInternals {
  init(): void;
  completed: boolean;
  check_contracting_rules(): boolean;
  increment_month(): void;
  increment_monthday(inc: number): void;
  expand_year_days(year: number): number;
  is_day_in_byday(time: ICAL.Time): number;
  by_data: Record<string, unknown[] | undefined>;
}

/** ical.js's message for a rule it found no instance of while initialising (its error class is not exported). */
/**
 * Weights that make a step cost about the same time (about 1 to 3 µs on the development machine;
 * docs/limits.md has the measurements): a year's expansion builds a year of days with ical.js Time
 * objects (with BYDAY and a negative BYMONTHDAY it cost 50–75 µs: at a weight of 5,
 * `FREQ=YEARLY;BYDAY=TH;BYMONTHDAY=-8` held the loop 100–150 ms before its 10,000 steps were spent,
 * found by the property test once only steps were counted), a weekday test runs once per BYDAY item,
 * and an instance returned is converted and stored by the caller.
 */
const YEAR_EXPANSION_WEIGHT = 40;
const INSTANCE_WEIGHT = 5;
const NO_INSTANCE_MESSAGE = 'Recurrence rule has no valid occurrences';

/**
 * An iterator over `recur` from `dtstart` whose every step spends from `budget` (`init()` and each
 * `next()` a search of their own): the checks of
 * `next()`'s search loop, and the month, day and year steps of `init()` and of the per-frequency
 * helpers (a day step counts its days: an `INTERVAL` of 1,000 days is 1,000 steps). An error ical.js
 * throws while it builds or runs the iterator is an IteratorRefused; ExpansionBudgetExceeded
 * passes through.
 */
export function budgetedIterator(recur: ICAL.Recur, dtstart: ICAL.Time, budget: ExpansionBudget): { next(): ICAL.Time | null } {
  // Built uninitialised so that the hooks are in place before init() runs its own loops.
  const iterator = new ICAL.RecurIterator({ rule: recur, dtstart, initialized: true });
  const internals = iterator as unknown as IteratorInternals;
  const hook = <K extends 'check_contracting_rules' | 'increment_month' | 'increment_monthday' | 'expand_year_days' | 'is_day_in_byday'>(
    name: K,
    weight: (...args: Parameters<IteratorInternals[K]>) => number,
  ) => {
    const original = internals[name].bind(iterator) as (...args: unknown[]) => unknown;
    (internals as unknown as Record<string, unknown>)[name] = (...args: Parameters<IteratorInternals[K]>) => {
      budget.spend(weight(...args));
      return original(...args);
    };
  };
  hook('check_contracting_rules', () => 1);
  hook('increment_month', () => 1);
  hook('increment_monthday', (inc) => Math.max(1, Number(inc) || 0));
  hook('expand_year_days', () => YEAR_EXPANSION_WEIGHT);
  hook('is_day_in_byday', () => Math.max(1, internals.by_data.BYDAY?.length ?? 0));
  const refused = (err: unknown): never => {
    if (err instanceof ExpansionBudgetExceeded) throw err;
    throw new IteratorRefused((err as Error).message);
  };
  try {
    budget.startInstance();
    internals.init();
  } catch (err) {
    // As ical.js's own constructor does: a rule without instances is an empty iterator.
    if ((err as Error).message === NO_INSTANCE_MESSAGE) internals.completed = true;
    else refused(err);
  }
  return {
    next() {
      let instance: ICAL.Time | null;
      try {
        budget.startInstance();
        instance = iterator.next();
      } catch (err) {
        return refused(err);
      }
      if (instance) budget.spend(INSTANCE_WEIGHT);
      return instance;
    },
  };
}
