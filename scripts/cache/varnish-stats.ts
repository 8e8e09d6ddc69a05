/**
 * Varnish's own counters for a running varnishd, by its work directory (`varnishd -n DIR`), read with
 * `varnishstat -n DIR -1 -j`: how many objects it holds and the bytes its storage uses, and what it
 * believes it did (hits, misses, backend requests). Kept apart from the harness (varnish.ts), which
 * starts and stops varnishd and does not hand out its work directory: `findVarnishd` finds it from the
 * varnishd this process started that listens on a given port. The cache benchmark
 * (scripts/bench/cache.ts) reads these at its end.
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';

export interface VarnishStats {
  /** MAIN.n_object: objects in the cache. */
  objects?: number;
  /** Bytes allocated in each storage (SMA.<name>.g_bytes: `s0` is the first -s malloc, `Transient` the short-lived). */
  storageBytes: Record<string, number>;
  cacheHit?: number;
  /** Hits on an expired object within its grace (stale-while-revalidate): served stale while a background fetch runs. */
  cacheHitGrace?: number;
  cacheMiss?: number;
  backendRequests?: number;
  clientRequests?: number;
  /** Every counter read, by name. */
  counters: Record<string, number>;
}

/**
 * The counters of `varnishstat -1 -j` output: Varnish 6.5 and later nest them under "counters", older
 * versions put them at the top level beside "timestamp".
 */
export function parseVarnishstat(json: string): VarnishStats {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  const source = (typeof parsed.counters === 'object' && parsed.counters !== null ? parsed.counters : parsed) as Record<string, unknown>;
  const counters: Record<string, number> = {};
  for (const [name, entry] of Object.entries(source)) {
    const value = (entry as { value?: unknown } | null)?.value;
    if (typeof value === 'number') counters[name] = value;
  }
  const storageBytes: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    const storage = /^SMA\.(.+)\.g_bytes$/.exec(name)?.[1];
    if (storage) storageBytes[storage] = value;
  }
  return {
    objects: counters['MAIN.n_object'],
    storageBytes,
    cacheHit: counters['MAIN.cache_hit'],
    cacheHitGrace: counters['MAIN.cache_hit_grace'],
    cacheMiss: counters['MAIN.cache_miss'],
    backendRequests: counters['MAIN.backend_req'],
    clientRequests: counters['MAIN.client_req'],
    counters,
  };
}

/** The counters of the varnishd whose work directory is `workDir`; undefined (with why) when varnishstat cannot read them. */
export function varnishStats(workDir: string): { stats?: VarnishStats; error?: string } {
  const result = spawnSync('varnishstat', ['-n', workDir, '-1', '-j'], { encoding: 'utf8', timeout: 15_000 });
  if (result.error) return { error: result.error.message };
  if (result.status !== 0) return { error: `varnishstat exited with ${result.status}: ${result.stderr.trim().slice(0, 300)}` };
  try {
    return { stats: parseVarnishstat(result.stdout) };
  } catch (err) {
    return { error: `varnishstat's output is not JSON: ${(err as Error).message}` };
  }
}

/** Each process's parent pid and command line, from /proc (processes gone meanwhile left out). */
function processes(): Array<{ pid: number; ppid: number; args: string[] }> {
  const out: Array<{ pid: number; ppid: number; args: string[] }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces): state, then the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.push({ pid: Number(entry), ppid, args: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * The varnishd that `parentPid` started (the harness runs it as a child, `varnishd -F -n DIR ...`) and
 * that listens on `port` (asked with `varnishadm debug.listen_address`): its work directory (`-n`), for
 * varnishstat, and the pids of its manager and of the manager's children (the cache process), for
 * their CPU time. Undefined when there is none. Reads /proc only; touches no process.
 */
export function findVarnishd(port: number, parentPid = process.pid): { workDir: string; pids: number[] } | undefined {
  const all = processes();
  for (const manager of all) {
    if (manager.ppid !== parentPid || !/(^|\/)varnishd$/.test(manager.args[0] ?? '')) continue;
    const n = manager.args.indexOf('-n');
    const workDir = n === -1 ? undefined : manager.args[n + 1];
    if (!workDir) continue;
    const listen = spawnSync('varnishadm', ['-n', workDir, '-t', '5', 'debug.listen_address'], { encoding: 'utf8', timeout: 10_000 });
    if (!new RegExp(`\\s${port}\\s*$`, 'm').test(listen.stdout ?? '')) continue;
    return { workDir, pids: [manager.pid, ...all.filter((p) => p.ppid === manager.pid).map((p) => p.pid)] };
  }
  return undefined;
}
