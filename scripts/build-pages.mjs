// Bundles the browser pages the gateway serves (the GraphQL explorer, the dashboard, the console) into
// dist/pages/ with esbuild: React, GraphiQL and Chart.js come from node_modules, so the pages
// need no network beyond the gateway. Run by build.mjs (and so by `npm install` and `npm start`);
// the pages' tests call it too, so they never test a stale bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const pagesDir = path.join(root, 'dist', 'pages');

const stamp = path.join(pagesDir, '.build-stamp');
// What the bundles are made from: their sources, the bundler settings, the installed packages.
const inputs = [path.join(root, 'src', 'http', 'pages'), path.join(root, 'scripts', 'build-pages.mjs'), path.join(root, 'package-lock.json')];

function newestInput() {
  let newest = 0;
  const visit = (file) => {
    if (!fs.existsSync(file)) return;
    const stat = fs.statSync(file);
    if (stat.isDirectory()) for (const item of fs.readdirSync(file)) visit(path.join(file, item));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  inputs.forEach(visit);
  return newest;
}

/** Bundles the pages unless they are newer than everything they are made from (a few seconds saved on most starts). */
export async function buildPagesIfChanged() {
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  if (newestInput() > built) await buildPages();
}

export async function buildPages() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      explorer: 'src/http/pages/explorer/browser/main.ts',
      sandbox: 'src/http/pages/explorer/browser/sandbox.ts',
      dashboard: 'src/http/pages/dashboard/browser/main.ts',
      console: 'src/http/pages/console/browser/main.tsx',
    },
    outdir: pagesDir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    // The console is written in React's JSX, compiled to the automatic runtime (no React import per file).
    jsx: 'automatic',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
    // GraphiQL's stylesheet carries its fonts and icons: kept inline, so one CSS file per page.
    loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    logLevel: 'warning',
    write: false,
  });
  writeChanged(result.outputFiles);
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

// Unchanged files are left alone and changed ones replaced by rename, so a gateway reading the
// pages while another build runs never reads half a file.
export function writeChanged(files) {
  for (const file of files) {
    if (fs.existsSync(file.path) && fs.readFileSync(file.path).equals(file.contents)) continue;
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    fs.writeFileSync(partial, file.contents);
    fs.renameSync(partial, file.path);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildPages();
