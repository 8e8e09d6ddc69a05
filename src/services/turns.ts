/** How long one turn of the event loop may spend building the records of one list. */
// Stryker disable next-line ArithmeticOperator: a bound on latency for others; with any bound every list is the same.
const TURN_BUDGET_MS = 20;

/** One turn of the event loop: whatever else is ready runs first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `build` of each item, in order, giving the event loop back whenever one turn has spent
 * TURN_BUDGET_MS. A record can cost milliseconds to build (its description cleaned within the
 * structural bounds of docs/limits.md "HTML in descriptions"), so a page of 50 such records is built
 * over several turns instead of keeping every other request waiting for all of it.
 */
export async function mapInTurns<T, R>(items: readonly T[], build: (item: T, index: number) => R): Promise<R[]> {
  const built: R[] = [];
  // The turn this is called in has done other work already (reading the rows): start a new one.
  let turnStarted = -Infinity;
  for (const [index, item] of items.entries()) {
    if (performance.now() - turnStarted >= TURN_BUDGET_MS) {
      await nextTurn();
      turnStarted = performance.now();
    }
    built.push(build(item, index));
  }
  return built;
}
