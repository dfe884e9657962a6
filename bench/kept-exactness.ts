import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Database } from '../src/db/client.js';
import { rollupAgainstRecords, totalsAgainstRecords } from '../test/support/kept-differences.js';

/**
 * After ingestion, whether what the account keeps still equals brute force over its records: the
 * daily rollup against the records grouped by its key, and the kept windows' totals against the
 * records of each window's covered span (the tests' comparisons, counted rather than asserted).
 */
export interface KeptExactness {
  /** Rows that differ, either way. */
  rollupDifferences: number;
  rollupRows: number;
  totalsDifferences: number;
  totalsRows: number;
  seconds: number;
}

export async function keptExactness(databaseUrl: string, accountId: number): Promise<KeptExactness> {
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const db = drizzle(client) as unknown as Database;
  const started = performance.now();
  try {
    const rollup = await rollupAgainstRecords(db, accountId);
    const totals = await totalsAgainstRecords(db, accountId);
    return {
      rollupDifferences: rollup.differences,
      rollupRows: rollup.rows,
      totalsDifferences: totals.differences,
      totalsRows: totals.rows,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await client.end();
  }
}
