// ESLint: typescript-eslint's recommended rules, unused code as errors, and the rule that only
// db/transactions.ts opens transactions (so every write bumps the data version). Formatting is
// Prettier's (eslint-config-prettier turns off the rules it owns). Import cycles and the direction of
// imports between layers are checked by test/unit/architecture.test.ts (madge). Module and function
// sizes in src/ are bounded here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/', 'generated/', 'node_modules/', 'artifacts/', 'bench/', 'data/', 'sdk/', 'test/sdk/out/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: 'Open transactions only through inTransaction (src/db/transactions.ts), which bumps the data version after the commit.',
        },
      ],
    },
  },
  // Sizes a reader can hold in mind (docs/architecture.md "Layers"): no module of src/ over 400 lines,
  // no function over 120, comments and blank lines included.
  // The global fetch is not for the service: its first call loads undici and compiles its WebAssembly
  // parser, about 40 MB of resident peak (docs/performance.md "Memory"); node:http does what src/ needs.
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 120 }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Use node:http (docs/performance.md "Memory"): fetch loads undici and its WebAssembly parser.' }],
    },
  },
  { files: ['src/db/transactions.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'scripts/**/*.mjs'], rules: { 'no-restricted-syntax': 'off' } },
  {
    files: ['test/**/*.ts'],
    languageOptions: { globals: { describe: 'readonly', it: 'readonly', before: 'readonly', after: 'readonly', beforeEach: 'readonly', afterEach: 'readonly', Mocha: 'readonly' } },
    // Tests read JSON answers of any shape; the document's response validation types them at run time.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
