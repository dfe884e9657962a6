import postgres from 'postgres';
import { cheapCorrectionRecords } from '../src/modules/score-windows/score-windows.js';

/**
 * Waits, before the first scenario, until the account's kept windows have taken in the records
 * stored after them (the gateway's worker folds them). An earlier run's ingestion scenarios store
 * about 200,000 records in their last seconds, and the gateway stops before its worker folds them:
 * the next run's rankings then corrected every one of those records on each request (p50 600 ms
 * against 36 ms for a week at medium scale) until the worker had caught up, minutes into the run.
 * Each run starts from windows as the worker keeps them, and says how far behind they were.
 */
export interface KeptWindowsWait {
  /** Records stored at or after the least advanced window's end when the wait began, counted up to `countedUpTo`. */
  recordsBehind: number;
  countedUpTo: number;
  /** Seconds until the records behind were at most `cheapCorrectionRecords`. */
  caughtUpAfterSeconds: number;
}

const countedUpTo = 1_000_000;

/** Repeatable records stored at or after the account's least advanced window's end, counted up to `countedUpTo`. */
export async function countRecordsBehind(sql: postgres.Sql, accountId: number): Promise<number> {
  const [row] = await sql<{ behind: number }[]>`select count(*)::int as behind from (
      select 1 from activity_records where account_id = ${accountId} and not one_time
        and completed_at >= (select min(covered_until) from score_windows where account_id = ${accountId})
      limit ${countedUpTo}) r`;
  return Number(row.behind);
}

export async function waitForKeptWindows(databaseUrl: string, accountId: number, { timeoutSeconds = 900 } = {}): Promise<KeptWindowsWait> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const behind = () => countRecordsBehind(sql, accountId);
    const started = performance.now();
    const recordsBehind = await behind();
    let left = recordsBehind;
    if (left > cheapCorrectionRecords) console.error(`waiting for the kept windows to take in ${left.toLocaleString('en')} records stored after them (an earlier run's ingestion)…`);
    while (left > cheapCorrectionRecords) {
      if ((performance.now() - started) / 1000 > timeoutSeconds) throw new Error(`the kept windows were still ${left} records behind after ${timeoutSeconds} s`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      left = await behind();
    }
    return { recordsBehind, countedUpTo, caughtUpAfterSeconds: Math.round((performance.now() - started) / 100) / 10 };
  } finally {
    await sql.end();
  }
}
