// Loaded with `node --import` into the Stryker parent process only on Node 20 (scripts/mutate.mjs).
// StrykerJS 10 refuses to start below Node 22 by a version check alone (its plugins use nothing newer
// than Node 20.19 has, and the 9.x line cannot load mocha 12); the check reads `process.version` once
// at start-up. Test runners and checkers are child processes and see the real version.
Object.defineProperty(process, 'version', { value: 'v22.0.0', configurable: true });
