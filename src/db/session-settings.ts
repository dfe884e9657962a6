/**
 * Settings of every gateway session. JIT compilation and parallel workers pay off for long
 * analytical scans run alone; a gateway's statements are short and run many at a time, and
 * either adds 10–200 ms to any statement whose row estimate is high (a ranking's correction
 * spans join by time ranges the planner cannot size), while concurrent requests already keep
 * every core busy.
 *
 * The gateway sends them when it connects. On a Citus cluster the workers run the statements in
 * sessions the coordinator opens, which do not carry them: the distribution procedure sets them on
 * the database instead, and Citus applies that on every node (src/db/distribution.ts).
 */
export const sessionSettings: Readonly<Record<string, string>> = { jit: 'off', max_parallel_workers_per_gather: '0' };
