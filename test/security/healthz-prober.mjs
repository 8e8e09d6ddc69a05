// The stall tests' liveness prober (test/security/stall.ts `withoutStall`), a process of its own:
// asks for `/healthz` of the service at argv[2] back to back (20 ms apart, on one kept-alive
// connection, 5 s at most each) until its standard input closes, then prints the slowest probe and
// the number of probes as one line of JSON. It prints `ready` once it has started.
//
// Not a loop in the test runner: after a few thousand tests the runner's heap is large, and a pause
// of its own loop (a full garbage collection) would count as a slow service. Plain JavaScript with
// node:http, so it starts in about 40 ms.
//
// With the service's pid (argv[3]), a probe's time leaves out the time the service's main thread, or
// this prober's, was ready to run but had no processor (Linux's /proc/<pid>/task/<tid>/schedstat,
// its second field): on a machine whose processors other programs keep busy, that wait is theirs,
// not a loop the service held. Work and blocking I/O on the service's loop still count in full.
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const target = new URL('/healthz', process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let done = false;
process.stdin.on('end', () => {
  done = true;
});
process.stdin.resume();

/** One probe; a failed or timed-out one ends when it fails, so it is as slow as its timeout. */
const probe = () =>
  new Promise((resolve) => {
    const req = http.get(target, { agent, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', resolve);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', resolve);
  });

/** Milliseconds a thread has waited for a processor while ready to run; 0 where Linux does not say. */
function processorWait(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

const servicePid = process.argv[3];
/** The two waits for a processor so far; of a probe's, the larger is left out (they may overlap). */
const waits = () => [servicePid ? processorWait(servicePid) : 0, processorWait(process.pid)];

let slowest = 0;
let slowestWall = 0;
let probes = 0;
process.stdout.write('ready\n');
while (!done) {
  const before = waits();
  const began = performance.now();
  await probe();
  const wall = performance.now() - began;
  const after = waits();
  const waited = Math.max(after[0] - before[0], after[1] - before[1]);
  slowest = Math.max(slowest, wall - waited);
  slowestWall = Math.max(slowestWall, wall);
  probes++;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
agent.destroy();
process.stdout.write(`${JSON.stringify({ slowest, slowestWall, probes })}\n`);
