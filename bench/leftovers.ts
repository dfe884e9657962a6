import postgres from 'postgres';
import { keptDataWorkName } from '../src/db/work-names.js';

/**
 * Statements still running on the benchmark's database once a scenario is over: a scenario's
 * requests whose clients are gone, or anything else the gateway left behind. They would take the
 * database's time, locks and connections from the next scenario, which would then measure them;
 * so each is cancelled (pg_cancel_backend) and the benchmark says which.
 *
 * The kept-data worker's transactions are left alone (they carry `keptDataWorkName` as their
 * application_name while they run): a fold is the gateway's own work, bounded, and cancelling it
 * only throws its step away for the next pass to do again.
 */
export interface Leftover {
  pid: number;
  /** How long it had been running, in seconds. */
  runningSeconds: number;
  /** Its first characters: enough to tell which statement it was, never its parameters. */
  statement: string;
}

export async function cancelLeftoverStatements(databaseUrl: string): Promise<Leftover[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    // Chosen and cancelled in one statement: a pooled connection whose request statement ends
    // meanwhile may start a worker's transaction, which a second statement's cancel would hit.
    const rows = await sql<{ pid: number; running_seconds: number; statement: string }[]>`
      select pid, extract(epoch from now() - query_start)::float8 as running_seconds, left(query, 80) as statement,
        pg_cancel_backend(pid) as cancelled
      from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' and state = 'active'
        and application_name is distinct from ${keptDataWorkName}`;
    return rows.map((row) => ({ pid: row.pid, runningSeconds: Math.round(row.running_seconds * 10) / 10, statement: row.statement }));
  } finally {
    await sql.end();
  }
}
