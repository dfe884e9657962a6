import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/lib/rate-limit.js';
import { LoginThrottle } from '../../src/modules/identity/login-throttle.js';

/** A port nothing listens on: every connection attempt is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    warn: (_details: object, message: string) => lines.push({ level: 'warn', message }),
    info: (_details: object, message: string) => lines.push({ level: 'info', message }),
  };
}

describe('Redis unreachable', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is reported once, calls keep working on the in-process fallback, and ioredis prints nothing', async () => {
    const printed = vi.spyOn(console, 'error');
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const log = recordingLog();
    const limiter = await RateLimiter.create(5, url, log);
    const throttle = await LoginThrottle.create({ redisUrl: url, log });
    try {
      // ioredis retries in the background meanwhile, emitting an error event per attempt.
      const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.consume('key-a')));
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, false]);
      expect((await throttle.reserve('identity', [{ kind: 'fan', key: '10.0.0.1' }])).allowed).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(2); // one per client
      expect(printed.mock.calls.flat().join(' ')).not.toMatch(/Unhandled error event/);
    } finally {
      await limiter.close();
      await throttle.close();
    }
  });
});
