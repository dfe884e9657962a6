// `npm start` and `npm run cli`: bundle with esbuild only when a source changed since the last
// bundle, then run the entry point in this same process (one Node start instead of two).
//   node scripts/run.mjs main|cli [arguments…]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const [entry] = process.argv.splice(2, 1);
if (entry !== 'main' && entry !== 'cli') throw new Error('usage: node scripts/run.mjs main|cli [arguments]');

function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, item.name);
      if (item.isDirectory()) visit(file);
      else newest = Math.max(newest, fs.statSync(file).mtimeMs);
    }
  };
  visit(path.join(root, 'src'));
  for (const file of ['package.json', 'scripts/build.mjs']) newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
  return newest;
}

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
if (!fs.existsSync(path.join(root, 'dist', `${entry}.js`)) || newestSource() > built) await import('./build.mjs');
process.setSourceMapsEnabled(true);
await import(`../dist/${entry}.js`);
