import postgres from 'postgres';

/**
 * Statements still running on the benchmark's database once a scenario is over: a scenario's
 * requests whose clients are gone, or anything else the gateway left behind. They would take the
 * database's time, locks and connections from the next scenario, which would then measure them;
 * so each is cancelled (pg_cancel_backend) and the benchmark says which.
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
    const rows = await sql<{ pid: number; running_seconds: number; statement: string }[]>`
      select pid, extract(epoch from now() - query_start)::float8 as running_seconds, left(query, 80) as statement
      from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' and state = 'active'`;
    for (const row of rows) await sql`select pg_cancel_backend(${row.pid})`;
    return rows.map((row) => ({ pid: row.pid, runningSeconds: Math.round(row.running_seconds * 10) / 10, statement: row.statement }));
  } finally {
    await sql.end();
  }
}
