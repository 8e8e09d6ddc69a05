import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/**
 * Which of `urls` a BAN regex matches, as Varnish would: the regex is written in the subset that
 * POSIX EREs, PCRE and JavaScript read alike (cache/ban-pattern.ts), so it is matched both with
 * JavaScript's RegExp and with `grep -E` (a real POSIX ERE matcher), and the two must agree.
 */
export function matching(pattern: string, urls: readonly string[]): Set<string> {
  assert.doesNotMatch(pattern, /[\\\s"]/, 'no backslash, space or quote: the cache reads the header into a ban expression as it is');
  const regex = new RegExp(pattern);
  const byJs = new Set(urls.filter((url) => regex.test(url)));
  const grep = spawnSync('grep', ['-E', '-e', pattern], { input: urls.join('\n') + '\n', encoding: 'utf8' });
  assert.ok(grep.status === 0 || grep.status === 1, `grep -E failed: ${grep.stderr}`);
  const byEre = new Set(grep.stdout.split('\n').filter((line) => line !== ''));
  assert.deepEqual([...byEre].sort(), [...byJs].sort(), 'POSIX ERE and JavaScript agree');
  return byJs;
}

/** Asserts that the regex matches every URL of `must` and none of `mustNot`, naming the ones that fail. */
export function assertBans(pattern: string, must: readonly string[], mustNot: readonly string[]): void {
  const matched = matching(pattern, [...must, ...mustNot]);
  assert.deepEqual(
    must.filter((url) => !matched.has(url)),
    [],
    `URLs the BAN must cover (${pattern})`,
  );
  assert.deepEqual(
    mustNot.filter((url) => matched.has(url)),
    [],
    `URLs the BAN must leave (${pattern})`,
  );
}
