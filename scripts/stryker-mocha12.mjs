// Loaded with `node --import` into Stryker and its test runners (scripts/mutate.mjs, stryker.config.mjs).
// Mocha 12 renamed its CLI internals to `.cjs` (`lib/cli/run-helpers.cjs`, `options.cjs`,
// `collect-files.cjs`); @stryker-mutator/mocha-runner 10.0.0 still requires them without an extension,
// which only tries `.js`, `.json` and `.node`. Registering `.cjs` as a CommonJS extension makes those
// requires resolve; nothing else in the run requires extensionless paths that have a `.cjs` file.
import Module from 'node:module';

const extensions = /** @type {Record<string, unknown>} */ (/** @type {any} */ (Module)._extensions);
extensions['.cjs'] ??= extensions['.js'];
