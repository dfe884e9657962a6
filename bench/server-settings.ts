import type postgres from 'postgres';

/**
 * The PostgreSQL settings that shape a measurement, as the server reports them: autovacuum above
 * all (off on the project's shared machines, on in production), memory, parallelism, durability.
 * Each benchmark prints them at start and keeps them in its results file.
 */
export async function serverSettings(sql: postgres.Sql): Promise<Record<string, string>> {
  const rows = await sql`select name, setting, unit from pg_settings where name in ('autovacuum', 'shared_buffers', 'work_mem',
    'effective_cache_size', 'max_parallel_workers_per_gather', 'random_page_cost', 'jit', 'synchronous_commit', 'fsync', 'max_wal_size',
    'checkpoint_timeout', 'server_version')
    order by name`;
  return Object.fromEntries(rows.map((row) => [row.name as string, row.unit ? `${row.setting} ${row.unit}` : (row.setting as string)]));
}
