// Mutation testing of the modules that carry the service's rules (`npm run mutate`; scripts/mutate.mjs).
// Tests run as `npx mocha` runs them (tsx, test/hooks.ts, in-memory SQLite), but only the focused
// list below: the tests that exercise these modules. MUTATE_SPEC (comma-separated globs) narrows it
// for a quick run on one module.

/** The modules with the rules: policies, read rules, paging, dates, input parsing, caches, conditionals. */
export const RULE_MODULES = [
  'src/policies/*.ts',
  'src/repositories/read-scope.ts',
  'src/operations/shared/paging.ts',
  'src/domain/events/list-window.ts',
  'src/dates/*.ts',
  'src/http/input.ts',
  'src/domain/events/input.ts',
  'src/text/*.ts',
  'src/domain/events/cost.ts',
  'src/repositories/unique-slugs.ts',
  'src/repositories/slug-claims.ts',
  'src/operations/shared/replies.ts',
  'src/db/versioned-cache.ts',
  'src/db/data-version.ts',
  'src/operations/shared/conditional.ts',
  'src/operations/shared/idempotency.ts',
  'src/repositories/idempotency.ts',
  'src/records/change-feed.ts',
  'src/operations/changes.ts',
  'src/repositories/changes.ts',
  'src/db/change-log.ts',
  'src/db/statement-retries.ts',
];

/** The tests that exercise them (unit tests, the list/paging/conditional API suites, the authorization matrix). */
export const RULE_TESTS = [
  'test/unit/*.test.ts',
  'test/recurrence/unit-*.test.ts',
  'test/integration/repositories/read-scope.test.ts',
  'test/integration/repositories/idempotency.test.ts',
  'test/integration/db/data-version.test.ts',
  'test/integration/db/statement-retries.test.ts',
  'test/api/lists/paging.test.ts',
  'test/api/lists/events-list.test.ts',
  'test/api/lists/modified-order.test.ts',
  'test/api/wire/lists-booleans.test.ts',
  'test/api/events/impossible-dates.test.ts',
  'test/api/writes/conditional.test.ts',
  'test/api/feeds/changes.test.ts',
  'test/api/writes/idempotent-creates.test.ts',
  'test/api/caching/reply-cache.test.ts',
  'test/api/events/clean-stored-plain-text.test.ts',
  'test/api/feeds/ics.test.ts',
  'test/api/writes/status.test.ts',
  'test/api/events/reads.test.ts',
  'test/api/events/writes.test.ts',
  'test/api/linked/venues.test.ts',
  'test/api/terms/categories.test.ts',
  'test/api/terms/tags.test.ts',
  'test/security/authorization-matrix.test.ts',
  'test/security/leaks.test.ts',
  'test/security/xss.test.ts',
];

const spec = process.env.MUTATE_SPEC ? process.env.MUTATE_SPEC.split(',').filter(Boolean) : RULE_TESTS;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  mutate: RULE_MODULES,
  testRunner: 'mocha',
  // The same loader and root hooks as .mocharc.json (which is not read: its spec would be the whole suite).
  // scripts/stryker-mocha12.mjs lets the mocha runner load mocha 12 (see there).
  testRunnerNodeArgs: ['--import', './scripts/stryker-mocha12.mjs', '--import', 'tsx'],
  mochaOptions: {
    'no-config': true,
    'no-package': true,
    spec,
    // The layering check (madge) mutates nothing here and takes seconds.
    ignore: ['test/unit/architecture.test.ts'],
    require: ['test/hooks.ts'],
  },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  // Mutants are in src/: the checker compiles src/ and generated/ only (the tests make it several times slower).
  tsconfigFile: 'tsconfig.mutate.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // Two shared cores: one test runner (and one checker) at a time.
  concurrency: 1,
  timeoutMS: 10000,
  dryRunTimeoutMinutes: 15,
  // .tools holds Stryker itself (scripts/mutate.mjs): nothing to copy into the sandboxes.
  ignorePatterns: ['/dist', '/data', '/bench', '/sdk', '/artifacts', '/.tools', '*.log'],
  tempDirName: 'artifacts/.stryker-tmp',
  incrementalFile: 'artifacts/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'artifacts/mutation/index.html' },
  jsonReporter: { fileName: 'artifacts/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportTests: false, reportScoreTable: true, reportMutants: true },
  thresholds: { high: 100, low: 90, break: null },
};
