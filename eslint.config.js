// ESLint: eslint's recommended rules and typescript-eslint's type-aware ones over the sources, the
// tests, the benchmark and the scripts (`npm run lint`). Layout is Prettier's (`npm run format`):
// eslint-config-prettier, last, turns off every rule it would fight with.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The rules that read values typed `any`: off where this code reads untyped data on purpose. */
const unsafeAny = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default defineConfig(
  // Generated (the typed operations, the migrations), built, installed or measured: not written here.
  globalIgnores(['src/generated/', 'test/client/generated/', 'src/http/pages/console/browser/generated/', 'drizzle/', 'dist/', 'data/', 'coverage/', 'test-results/', 'bench/results/']),
  {
    files: ['**/*.{ts,tsx,mts,js,mjs}'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // Each file with the tsconfig that includes it; the JavaScript files, in none, with the defaults.
        projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Apollo's plugin hooks and Fastify's plugins are async by their interfaces, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      // A caught error is passed on as it came (unknown), as only-throw-error allows for `throw`.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Node's URLSearchParams prints its query string, as the DOM's does (which the rule allows).
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { from: 'lib', name: ['Error', 'URL', 'URLSearchParams'] },
            { from: 'package', package: '@types/node', name: 'URLSearchParams' },
          ],
        },
      ],
      // A variable that a closure reads before its one later assignment stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The pages' browser code (src/http/pages/tsconfig.json).
    files: ['src/http/pages/*/browser/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Tests read answers (JSON bodies, GraphQL data) untyped and let `expect` check their shape.
    files: ['test/**'],
    rules: { ...unsafeAny, '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Commander hands each command's action its options untyped; the actions read them by name.
    files: ['src/cli.ts'],
    rules: unsafeAny,
  },
  {
    // libpg-query's parse trees are untyped JSON, walked by node type.
    files: ['scripts/tenancy/statement-checker.ts'],
    rules: { ...unsafeAny, '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript: without annotations its parameters and JSON are `any`.
    files: ['**/*.{js,mjs}'],
    rules: unsafeAny,
  },
  prettier,
);
