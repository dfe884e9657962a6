import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that need a module graph of their own: one sets what a module reads when it loads (an
 * environment variable), one replaces modules with `vi.mock` (in a shared graph, another file may
 * have loaded the real ones first).
 */
const ownModules = ['test/tenancy/statement-log.test.ts', 'test/reliability/reset-race.test.ts'];

/**
 * Files that run the CLI or the README's commands as processes on the embedded database of a
 * temporary DATA_DIR, whatever TEST_DATABASE_URL says: the PostgreSQL run (TEST_DATABASE_URL set)
 * would repeat them unchanged, at a quarter of its time, so only the embedded run takes them.
 */
const embeddedOnly = ['test/cli/cli.test.ts', 'test/cli/staff.test.ts', 'test/config/readme.test.ts'];
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS build for type-graphql and Apollo; Vite would hand
    // our own sources the ESM build, and graphql-js refuses schemas from a second instance.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // Each file opens its own database (PGlite in memory, or a fresh PostgreSQL database).
    pool: 'forks',
    // Files mostly wait (on PostgreSQL, a gateway they started, a browser): two at a time even on
    // two cores, where vitest's default would run one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // leftovers: what a file spawns or writes to disk is removed when it ends, passed or failed.
    setupFiles: ['reflect-metadata', 'test/support/leftovers.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      // Files share their worker's loaded modules: loading the gateway's took 1.5 s a file, a third
      // of the suite's time. A file restores the environment and the timers it changes.
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...ownModules, ...(onPostgres ? embeddedOnly : [])], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ownModules, isolate: true } },
    ],
  },
});
