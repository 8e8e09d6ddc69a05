/**
 * A mocha reporter for CI (docs/testing.md "Continuous integration"): mocha's own `spec` output,
 * unchanged, plus each test file's wall time (its suites with their hooks and tests), written as
 * `seconds<TAB>file` lines, slowest first, to the file FILE_TIMES_OUT names. `.ci/run` prints the
 * slowest of every leg, so the run says which files to make faster before the run nears its budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Mocha from 'mocha';

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;

export default class FileTimes extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = process.env.FILE_TIMES_OUT;
    if (!out) return;
    const began = new Map();
    const seconds = new Map();
    // A file's top-level suites (children of the root); a file may have several.
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) began.set(suite, performance.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const start = began.get(suite);
      if (start === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      seconds.set(file, (seconds.get(file) ?? 0) + (performance.now() - start) / 1000);
    });
    runner.once(EVENT_RUN_END, () => {
      const rows = [...seconds].sort((a, b) => b[1] - a[1]).map(([file, s]) => `${s.toFixed(1)}\t${file}`);
      fs.writeFileSync(out, rows.join('\n') + '\n');
    });
  }
}
