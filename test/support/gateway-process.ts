import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../../src/db/paths.js';
import { heapCeilingOption } from '../../src/heap-ceiling.js';
import { testSecretKey } from './gateway.js';
import { killAtEnd } from './leftovers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The gateway as a process of its own, for tests that kill it or signal it: `src/main.ts` bundled
 * as `npm start` bundles it (inside the project so its packages resolve), then started on a port.
 */
export async function bundleGateway(name: string): Promise<string> {
  const outfile = path.join(projectRoot, 'node_modules', '.cache', 'marquee', `${name}-${process.pid}`, 'main.mjs');
  await build({
    entryPoints: [path.join(projectRoot, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

/** Starts the bundled gateway and resolves once /readyz answers 200. */
export async function startGatewayProcess(script: string, port: number, env: Record<string, string>, options: { log?: boolean } = {}): Promise<ChildProcess> {
  const child = killAtEnd(
    spawn(process.execPath, [script], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        // As the container image runs it (src/heap-ceiling.ts).
        NODE_OPTIONS: heapCeilingOption,
        HOST: '127.0.0.1',
        PORT: String(port),
        SECRET_KEY: testSecretKey,
        LOG_LEVEL: 'error',
        DEMO_ACCOUNT: 'false',
        RATE_LIMIT_PER_MINUTE: '100000000',
        ...env,
      },
      // The log (stdout) is shown only when asked for.
      stdio: ['ignore', options.log ? 'inherit' : 'ignore', 'inherit'],
    }),
  );
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the gateway did not become ready');
}
