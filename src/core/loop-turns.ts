/**
 * Turns of the event loop for long work (docs/limits.md). Work whose size a caller chooses (a list
 * of records with long descriptions, a series write over a thousand occurrences, which SQLite's
 * synchronous driver runs on the loop statement by statement) gives the loop back every
 * TURN_BUDGET_MS, so no other request, not even `/healthz`, waits for all of it. Short work pays
 * nothing: a turn is given only once the budget has passed.
 */

/** How long work may hold the event loop between two turns: well under the 100 ms a request may hold it. */
export const TURN_BUDGET_MS = 20;

/** One turn of the event loop: whatever else is ready runs first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** When `loopTurn` last gave the loop a turn (one clock for the process: the loop is one). */
let lastTurn = 0;

/** Gives the event loop a turn when TURN_BUDGET_MS have passed since the last one given here. */
export async function loopTurn(): Promise<void> {
  if (performance.now() - lastTurn < TURN_BUDGET_MS) return;
  await nextTurn();
  lastTurn = performance.now();
}

/**
 * The turns of one piece of long work: `due` once this work has held the loop for TURN_BUDGET_MS
 * since its last turn, and at first (the turn the work starts in has done other work already, such
 * as the validator compiling an operation's schemas on its first request, or reading the rows).
 */
export class TurnClock {
  private started = -Infinity;

  get due(): boolean {
    return performance.now() - this.started >= TURN_BUDGET_MS;
  }

  /** Gives the loop one turn and starts counting this work's time again. */
  async turn(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}

/**
 * `build` of each item, in order, giving the event loop back whenever one turn has spent
 * TURN_BUDGET_MS. A record can cost milliseconds to build (its description cleaned within the
 * bounds of docs/limits.md "HTML in descriptions"), so a page of 50 such records is built over
 * several turns instead of keeping every other request waiting for all of it.
 */
export async function mapInTurns<T, R>(items: readonly T[], build: (item: T, index: number) => R): Promise<R[]> {
  const built: R[] = [];
  const clock = new TurnClock();
  for (const [index, item] of items.entries()) {
    if (clock.due) await clock.turn();
    built.push(build(item, index));
  }
  return built;
}

/**
 * `work` on each slice of `size` items, in order, giving the event loop a turn between slices once
 * they have held it for TURN_BUDGET_MS: a large page read and built a slice at a time (docs/limits.md
 * "Large pages are read in slices").
 */
export async function slicesInTurns<T>(items: readonly T[], size: number, work: (slice: T[]) => Promise<void>): Promise<void> {
  const clock = new TurnClock();
  for (let at = 0; at < items.length; at += size) {
    if (clock.due) await clock.turn();
    await work(items.slice(at, at + size));
  }
}
