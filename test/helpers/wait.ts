/**
 * A barrier for tests: waits until `condition` holds, checking it every `intervalMs`, and fails
 * naming `what` after `timeoutMs`. Use it instead of a fixed sleep that stands for a condition (a
 * request has arrived, a connection is taken, a poll has begun): it waits no longer than needed and
 * fails with a reason instead of racing on a slow machine.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A wait of fixed time, for where time itself is what is tested: a max-age or a lease lapsing, a
 * timeout firing, a read that must still be waiting, or "nothing happens within N ms" (after a
 * barrier showed the system got to where it would have acted). Every call says why in a comment.
 * Anything else waits with `waitFor` on its condition.
 */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
