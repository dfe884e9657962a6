import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { arrayLiteral } from '../src/db/arrays.js';
import { benchDefaults } from './settings.js';

/**
 * What a fold step's upsert of kept totals costs in its two forms, on one database: `account_id`
 * given as a parameter (which Citus pulls through the coordinator) and read from the account's
 * claim row (which Citus runs on the account's shard; kept-data/account-rows.ts). Each statement
 * upserts `--keys` totals of members of the account into one window, in a transaction rolled back
 * after it, so the data stay as generated; the two forms alternate, `--runs` times each per size.
 *
 *   npx tsx bench/kept-inserts.ts --account-id N [--database URL] [--sizes 100,2000,20000] [--runs 20] [--label citus]
 *
 * Writes bench/results/<date>-kept-inserts-<label>.json: per size and form, the statement's
 * median and p90 in ms, and where the plan ran (`explain`'s first two lines).
 */
const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'account-id': { type: 'string' },
    sizes: { type: 'string', default: '100,2000,20000' },
    runs: { type: 'string', default: '20' },
    label: { type: 'string', default: 'run' },
  },
});
if (!args['account-id']) throw new Error('--account-id is required (bench:generate prints it)');
const accountId = Number(args['account-id']);
const sizes = args.sizes.split(',').map(Number);
const runs = Number(args.runs);

const columns = `(account_id, window_id, brand_id, member_id, points, activity_count)`;
const upsert = `on conflict (account_id, window_id, brand_id, member_id) do update
  set points = score_window_totals.points + excluded.points, activity_count = score_window_totals.activity_count + excluded.activity_count`;
const unnested = `unnest($2::smallint[], $3::int[], $4::int[], $5::int[], $6::int[]) as d(window_id, brand_id, member_id, points, activity_count)`;
const forms = {
  parameter: `insert into score_window_totals ${columns} select $1::int, d.* from ${unnested} ${upsert}`,
  claimRow: `insert into score_window_totals ${columns} select k.account_id, d.* from score_window_claims k cross join ${unnested} where k.account_id = $1 ${upsert}`,
};

const sql = postgres(args.database, { max: 1, onnotice: () => {} });
const window = (await sql<{ id: number }[]>`select window_id as id from score_windows where account_id = ${accountId} order by window_id limit 1`)[0]?.id;
if (window === undefined) throw new Error(`account ${accountId} has no kept windows`);
const memberIds = (await sql<{ id: number }[]>`select id from members where account_id = ${accountId} order by id limit ${Math.max(...sizes)}`).map((row) => row.id);

const parameters = (keys: number) => {
  const ids = memberIds.slice(0, keys);
  return [accountId, arrayLiteral(ids.map(() => window)), arrayLiteral(ids.map(() => 0)), arrayLiteral(ids), arrayLiteral(ids.map(() => 1)), arrayLiteral(ids.map(() => 1))];
};

/** Milliseconds of the statement alone, in a transaction rolled back. */
async function timed(text: string, values: unknown[]): Promise<number> {
  let ms = 0;
  await sql
    .begin(async (tx) => {
      const started = performance.now();
      await tx.unsafe(text, values as never[]);
      ms = performance.now() - started;
      throw new Error('roll back');
    })
    .catch((error: Error) => {
      if (error.message !== 'roll back') throw error;
    });
  return ms;
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const results: Record<string, Record<string, { medianMs: number; p90Ms: number; plan: string }>> = {};
for (const keys of sizes) {
  const values = parameters(keys);
  const times: Record<string, number[]> = { parameter: [], claimRow: [] };
  for (let run = 0; run < runs + 2; run += 1) {
    for (const [form, text] of Object.entries(forms)) {
      const ms = await timed(text, values);
      if (run >= 2) times[form].push(ms); // the first two of each form prepare and warm
    }
  }
  results[keys] = {};
  for (const [form, text] of Object.entries(forms)) {
    const plan = (await sql.unsafe(`explain (costs off) ${text}`, values as never[])).map((row) => String(Object.values(row)[0]).trim());
    results[keys][form] = { medianMs: +quantile(times[form], 0.5).toFixed(2), p90Ms: +quantile(times[form], 0.9).toFixed(2), plan: plan.slice(0, 2).join('; ') };
  }
  console.log(keys, JSON.stringify(results[keys]));
}
const [server] = await sql<{ version: string }[]>`select version() as version`;
await sql.end();
const file = path.join('bench', 'results', `${new Date().toISOString().slice(0, 10)}-kept-inserts-${args.label}.json`);
fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), accountId, runs, server: server.version, results }, null, 2)}\n`);
console.log(`written ${file}`);
process.exit(0);
