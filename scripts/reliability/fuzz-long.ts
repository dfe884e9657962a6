import 'reflect-metadata';
import fs from 'node:fs';
import fc from 'fast-check';
import { getSchema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/rest/table.js';
import { fuzzRequests, httpSender, runFuzz } from '../../test/reliability/fuzz.js';
import { startFuzzTarget } from '../../test/reliability/fuzz-target.js';

/**
 * The long fuzzing run (`npm run fuzz:long`): FUZZ_COUNT (10,000 by default) generated hostile
 * requests, in batches so the 1 MB values are not all held at once, against a test gateway on
 * PGlite in memory, or on a fresh PostgreSQL database when TEST_DATABASE_URL is set. Prints the
 * figures as JSON and exits 1 if any answer broke a rule; FUZZ_FAILURES names a file for the failing
 * requests whole.
 */
const count = Number(process.env.FUZZ_COUNT ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const batch = 500;

const target = await startFuzzTarget();
const started = performance.now();
const arbitrary = fuzzRequests(await getSchema(), restRoutes, target.keys);
const send = httpSender(target.base);
const total = {
  requests: 0,
  byKind: {} as Record<string, number>,
  byStatus: {} as Record<string, number>,
  databaseRefusals: 0,
  slowestMs: 0,
  slowest: '',
  p99Ms: 0,
  targets: new Set<string>(),
  failures: [] as unknown[],
};
try {
  for (let done = 0; done < count; done += batch) {
    const requests = fc.sample(arbitrary, { numRuns: Math.min(batch, count - done), seed: seed + done });
    requests.forEach((request) => total.targets.add(request.target));
    const figures = await runFuzz(requests, send);
    total.requests += figures.requests;
    for (const [kind, n] of Object.entries(figures.byKind)) total.byKind[kind] = (total.byKind[kind] ?? 0) + n;
    for (const [status, n] of Object.entries(figures.byStatus)) total.byStatus[status] = (total.byStatus[status] ?? 0) + n;
    total.databaseRefusals += figures.databaseRefusals;
    total.p99Ms = Math.max(total.p99Ms, figures.p99Ms);
    if (figures.slowestMs > total.slowestMs) Object.assign(total, { slowestMs: figures.slowestMs, slowest: figures.slowest });
    total.failures.push(...figures.failures);
    process.stderr.write(`${total.requests}/${count} requests, ${total.failures.length} failures\n`);
  }
} finally {
  await target.close();
}
// Every failing request whole, to send again by hand.
if (total.failures.length && process.env.FUZZ_FAILURES) fs.writeFileSync(process.env.FUZZ_FAILURES, JSON.stringify(total.failures, null, 1));
const seconds = Math.round((performance.now() - started) / 1000);
console.log(
  JSON.stringify(
    {
      seed,
      seconds,
      database: process.env.TEST_DATABASE_URL ? 'postgresql' : 'pglite',
      ...total,
      targets: total.targets.size,
      failures: (total.failures as { request: string; problems: string[] }[]).slice(0, 20).map(({ request, problems }) => ({ request, problems })),
      failureCount: total.failures.length,
    },
    null,
    2,
  ),
);
process.exit(total.failures.length ? 1 : 0);
