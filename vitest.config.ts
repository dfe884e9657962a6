import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS build for type-graphql and Apollo; Vite would hand
    // our own sources the ESM build, and graphql-js refuses schemas from a second instance.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Each file opens its own database (PGlite in memory, or a fresh PostgreSQL database).
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // leftovers: what a file spawns or writes to disk is removed when it ends, passed or failed.
    setupFiles: ['reflect-metadata', 'test/support/leftovers.ts'],
    globalSetup: ['test/support/global-setup.ts'],
  },
});
