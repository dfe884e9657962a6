// Bundles the gateway and the CLI into dist/ with esbuild (a fraction of a second), so `npm start`
// runs plain JavaScript instead of compiling TypeScript on every import. Dependencies stay in
// node_modules; type-graphql needs no decorator metadata because every decorator names its type.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { buildPagesIfChanged, writeChanged } from './build-pages.mjs';

// The browser pages (explorer, dashboard) bundle beside the server, when their sources changed.
const pages = buildPagesIfChanged();

const result = await build({
  // demo-seed has a bundle of its own, which the CLI imports only for `demo seed`: it starts a
  // gateway in the process, and loading the gateway's code would slow every other command.
  entryPoints: { main: 'src/main.ts', cli: 'src/cli.ts', 'pglite-template': 'src/db/pglite-template.ts', 'demo-seed': 'src/demo-seed.ts' },
  external: ['./demo-seed.js'],
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  write: false,
});

// Unchanged files are left alone and changed ones replaced by rename, so a process starting from
// dist/ while another build runs never reads half a file.
writeChanged(result.outputFiles);
await pages;

// Marks when dist/ was last made from the sources, so `npm start` can skip an unneeded bundle.
fs.writeFileSync(path.join('dist', '.build-stamp'), `${new Date().toISOString()}\n`);
