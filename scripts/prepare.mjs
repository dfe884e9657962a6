// Run by npm after every install: bundles dist/ and saves the migrated PGlite template, so the
// first `npm start` and every test database skip PGlite's initdb.
// npm shows this script's output during `npm install`: say what the wait is for.
console.log('bundling the gateway and the browser pages (the pages only when their sources changed)…');
await import('./build.mjs');
const { ensureTemplate } = await import('../dist/pglite-template.js');
const started = Date.now();
const file = await ensureTemplate();
console.log(`embedded database template ready (${Date.now() - started} ms): ${file}`);
