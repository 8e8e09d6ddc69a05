import { spawnSync } from 'node:child_process';

/**
 * Whether openapi-generator can run here (it is a Java program). Without Java its SDK tests skip
 * with a message, unless REQUIRE_SDK=1 (CI sets it), which makes a missing Java a failure.
 */
export function skipUnlessJava(context: Mocha.Context): void {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (!java.error && java.status === 0) return;
  if (process.env.REQUIRE_SDK === '1') throw new Error('REQUIRE_SDK=1 but `java` was not found: the SDK generator cannot run.');
  console.log('      (the openapi-generator SDK tests are skipped: `java` was not found; install a Java runtime, or set REQUIRE_SDK=1 to fail instead)');
  context.skip();
}
