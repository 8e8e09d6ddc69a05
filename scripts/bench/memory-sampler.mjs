/**
 * Preloaded into the service by `--probe memory --breakdown` (node --import): samples the process's
 * memory every 20 ms and, on SIGUSR2, prints (one `memory-sample {json}` line, MB) what it was made of
 * when its resident size was largest since the last SIGUSR2: file and anonymous pages, V8's committed
 * heap and new space, the heap used, external memory and each V8 space. Plain JavaScript, so that dist/ needs no tsx.
 */
import fs from 'node:fs';
import v8 from 'node:v8';

const MB = 1024 * 1024;
let peak;

function sample() {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  const rss = kb('VmRSS');
  if (peak && rss <= peak.rss * MB) return;
  const memory = process.memoryUsage();
  const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  const mb = (bytes) => Math.round((bytes / MB) * 10) / 10;
  // Each of V8's spaces that holds anything: used/physical MB ("used" counts garbage not yet
  // collected; physical less used is room the space keeps committed).
  const spaces = Object.fromEntries(
    v8
      .getHeapSpaceStatistics()
      .filter((space) => space.physical_space_size > 0)
      .map((space) => [space.space_name.replace('_space', ''), `${mb(space.space_used_size)}/${mb(space.physical_space_size)}`]),
  );
  peak = {
    rss: mb(rss),
    file: mb(kb('RssFile')),
    anon: mb(kb('RssAnon')),
    heapTotal: mb(memory.heapTotal),
    newSpace: mb(newSpace?.space_size ?? 0),
    heapUsed: mb(memory.heapUsed),
    external: mb(memory.external),
    spaces,
  };
}

setInterval(sample, 20).unref();
process.on('SIGUSR2', () => {
  sample();
  process.stdout.write(`memory-sample ${JSON.stringify(peak)}\n`);
  peak = undefined;
});
