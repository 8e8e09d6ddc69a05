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
