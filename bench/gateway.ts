import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { heapCeilingOption } from '../src/heap-ceiling.js';
import { benchDefaults } from './settings.js';

/**
 * The gateway under measurement: the built server (dist/main.js) in production mode on 127.0.0.1,
 * against the benchmark's database, with the rate limit out of the way. Answers once `/readyz` does
 * (migrations applied, database reachable), or kills it and throws after `readyWithinMs`.
 */
export async function startBenchGateway(options: {
  port: number;
  database: string;
  poolSize?: string;
  readyWithinMs?: number;
  /** The checkout whose dist/ runs (another worktree, to measure a change against its base). */
  root?: string;
  env?: Record<string, string>;
}): Promise<ChildProcess> {
  const gateway = spawn('node', ['dist/main.js'], {
    cwd: options.root ?? path.resolve(import.meta.dirname, '..'),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      // As the container image runs it (src/heap-ceiling.ts).
      NODE_OPTIONS: heapCeilingOption,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.database,
      ...(options.poolSize ? { DATABASE_POOL_SIZE: options.poolSize } : {}),
      SECRET_KEY: benchDefaults.secretKey,
      METRICS_TOKEN: benchDefaults.metricsToken,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000000',
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + (options.readyWithinMs ?? 20_000);
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${options.port}/readyz`)).ok) return gateway;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  gateway.kill();
  throw new Error('the gateway did not become ready');
}
