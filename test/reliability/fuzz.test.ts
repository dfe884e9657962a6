import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/rest/table.js';
import { fuzzRequests, httpSender, runFuzz } from './fuzz.js';
import { startFuzzTarget } from './fuzz-target.js';

/**
 * The short fuzzing run: a few hundred generated hostile requests over every route and operation,
 * over real HTTP. `FUZZ_SEED` repeats a run (the seed is printed); `npm run fuzz:long` sends 10,000.
 */
const count = Number(process.env.FUZZ_COUNT ?? 300);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

let target: Awaited<ReturnType<typeof startFuzzTarget>>;
beforeAll(async () => {
  target = await startFuzzTarget();
}, 60_000);
afterAll(() => target?.close());

describe('generated hostile requests', () => {
  it(`answer no 5xx, every 4xx in the error body, no internals in any message, none slower than 2 s (${count} requests)`, async () => {
    const requests = fc.sample(fuzzRequests(await getSchema(), restRoutes, target.keys), { numRuns: count, seed });
    const figures = await runFuzz(requests, httpSender(target.base));
    console.info(
      `fuzz (seed ${seed}): ${figures.requests} requests over ${figures.targets} targets ${JSON.stringify(figures.byKind)}; statuses ${JSON.stringify(figures.byStatus)}; ` +
        `${figures.databaseRefusals} refused by the database's own checks; p99 ${figures.p99Ms} ms, slowest ${figures.slowestMs} ms (${figures.slowest}), ${figures.slowRetried} slow only under load`,
    );
    expect(
      figures.failures.map(({ request, problems }) => ({ request, problems })),
      `seed ${seed}`,
    ).toEqual([]);
    expect(figures.requests).toBe(count);
  }, 120_000);
});
