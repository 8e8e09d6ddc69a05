// The stall tests' liveness prober (test/security/stall.ts `withoutStall`), a process of its own:
// asks for `/healthz` of the service at argv[2] back to back (20 ms apart, on one kept-alive
// connection, 5 s at most each) until its standard input closes, then prints the slowest probe and
// the number of probes as one line of JSON. It prints `ready` once it has started.
//
// Not a loop in the test runner: after a few thousand tests the runner's heap is large, and a pause
// of its own loop (a full garbage collection) would count as a slow service. Plain JavaScript with
// node:http, so it starts in about 40 ms.
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

let slowest = 0;
let probes = 0;
process.stdout.write('ready\n');
while (!done) {
  const began = performance.now();
  await probe();
  slowest = Math.max(slowest, performance.now() - began);
  probes++;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
agent.destroy();
process.stdout.write(`${JSON.stringify({ slowest, probes })}\n`);
