import { build } from 'esbuild';
await build({ entryPoints: { main: 'src/main.ts' }, outdir: '/work/main/dist2', bundle: true, platform: 'node', target: 'node20', format: 'esm', external: ['@electric-sql/pglite', '@node-rs/argon2', 'pino', 'pino-pretty', 'thread-stream', 'ioredis'], logLevel: 'error',
  banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" } });
