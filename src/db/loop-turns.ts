/**
 * Turns of the event loop for long database work (docs/limits.md "Series writes and other people's
 * occurrences"). SQLite's driver is synchronous: a transaction of many statements holds the event
 * loop from its first statement to its last (a series write over a thousand occurrences held it for
 * half a second), and no other request, not even `/healthz`, is answered meanwhile. Work that loops
 * over statements calls `loopTurn()` between them: it gives the loop a turn once TURN_BUDGET_MS have
 * passed since the last turn it gave, so short work pays nothing.
 */

/** How long work may hold the event loop between two turns: well under the 100 ms a request may hold it. */
export const TURN_BUDGET_MS = 20;

/** When `loopTurn` last gave the loop a turn (one clock for the process: the loop is one). */
let lastTurn = 0;

/** Gives the event loop a turn (`setImmediate`) when TURN_BUDGET_MS have passed since the last one given here. */
export async function loopTurn(): Promise<void> {
  if (performance.now() - lastTurn < TURN_BUDGET_MS) return;
  await new Promise((resolve) => setImmediate(resolve));
  lastTurn = performance.now();
}
