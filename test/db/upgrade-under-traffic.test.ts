import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { databaseUrl } from '../support/database.js';
import { bundleGateway, startGatewayProcess } from '../support/gateway-process.js';
import { testSecretKey } from '../support/gateway.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { freePort } from '../support/pg-cluster.js';
import { previousRelease, type PreviousRelease } from '../support/previous-release.js';

/**
 * An upgrade as an operator runs it on a live database (docs/operations.md, "Upgrading"): a gateway of
 * the last release serves a populated PostgreSQL database while this version's migrations are
 * applied beside it. No request fails, no session waits for a lock for a second or more, and this
 * version's gateway then serves the same data. PostgreSQL only: the embedded database has one
 * connection, so nothing runs beside a migration there.
 */
const run = promisify(execFile);
const adminUrl = process.env.TEST_DATABASE_URL;
const release = adminUrl ? previousRelease() : undefined;
const runnable = release !== undefined && !('missing' in release);
if (release && 'missing' in release) console.warn(`upgrade under traffic skipped: ${release.missing}`);

const name = `marquee_upgrade_${process.pid}`;
let admin: postgres.Sql;
let url: string;

beforeAll(async () => {
  if (!runnable) return;
  admin = postgres(adminUrl!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  url = databaseUrl(adminUrl!, name);
});
afterAll(async () => {
  if (!runnable) return;
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
});

/** Requests of every kind a live gateway answers, in a loop until stopped; each failure is kept. */
function traffic(port: number, apiKey: string, ids: { members: number[]; activity: number }, loops = 4) {
  const failures: string[] = [];
  let answered = 0;
  let running = true;
  const base = `http://127.0.0.1:${port}/v1.1`;
  const requests = [
    () => fetch(`${base}/members/active?apikey=${apiKey}&period=1%20week&limit=20`),
    () => fetch(`${base}/member/${ids.members[answered % ids.members.length]}?apikey=${apiKey}`),
    () =>
      fetch(`${base}/activity/record?apikey=${apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `activityid=${ids.activity}&id=${ids.members[answered % ids.members.length]}`,
      }),
    () => fetch(`${base}/activities/count/daily?apikey=${apiKey}`),
  ];
  const loop = async (offset: number) => {
    for (let turn = offset; running; turn += 1) {
      try {
        const answer = await requests[turn % requests.length]();
        const body = await answer.text();
        if (answer.status !== 200 || body.includes('"error"')) failures.push(`${answer.status} ${body.slice(0, 200)}`);
        answered += 1;
      } catch (error) {
        failures.push(String(error));
      }
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, offset) => loop(offset)));
  return {
    failures,
    answered: () => answered,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** The longest any session of the database has been waiting for a lock, sampled until stopped. */
function lockWatch(sql: postgres.Sql) {
  let longestMs = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const [row] = await sql<{ ms: number | null }[]>`select max(extract(epoch from clock_timestamp() - state_change) * 1000)::float8 as ms
        from pg_stat_activity where datname = ${name} and wait_event_type = 'Lock'`;
      longestMs = Math.max(longestMs, Number(row.ms ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  return {
    longestMs: () => longestMs,
    async stop() {
      running = false;
      await done;
    },
  };
}

describe.skipIf(!runnable)('an upgrade under traffic', () => {
  it('applies the new migrations while the last release serves, with no request failing and no lock wait of a second', { timeout: 600_000 }, async () => {
    const { root, version } = release as PreviousRelease;
    const dataDir = temporaryDirectory('upgrade');
    const env = { DATABASE_URL: url, DATA_DIR: dataDir, SECRET_KEY: testSecretKey, LOG_LEVEL: 'silent' };
    // The last release makes its schema and the demo account, and fills it.
    const port = await freePort();
    const old = await startGatewayProcess(path.join(root, 'dist', 'main.js'), port, { ...env, DEMO_ACCOUNT: 'true' });
    const { apiKey, accountId } = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-key.json'), 'utf8')) as { apiKey: string; accountId: number };
    await run(process.execPath, [path.join(root, 'dist', 'cli.js'), 'demo', 'seed', '--members', '1000', '--records', '20000', '--days', '60', '--json'], { env: { ...process.env, ...env }, cwd: root });
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    const members = (await sql<{ id: number }[]>`select id from members where account_id = ${accountId} order by id limit 200`).map((row) => row.id);
    const [activity] = await sql<{ id: number }[]>`select id from activity_definitions where account_id = ${accountId} and not one_time order by id limit 1`;
    const [{ applied: before }] = await sql<{ applied: number }[]>`select count(*)::int as applied from drizzle.__drizzle_migrations`;
    const pending = fs.readdirSync(path.resolve('drizzle')).filter((file) => file.endsWith('.sql')).length - before;
    expect(pending, `migrations since ${version}`).toBeGreaterThan(0);

    const load = traffic(port, apiKey, { members, activity: activity.id });
    const locks = lockWatch(sql);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const answeredBefore = load.answered();
    // This version's migrations, as its first gateway to start applies them.
    const messages: string[] = [];
    const upgraded = await openDatabase({ kind: 'postgres', url, readUrl: undefined, poolSize: 2 }, { progress: (message) => messages.push(message) });
    await upgraded.close();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await load.stop();
    await locks.stop();
    old.kill('SIGTERM');
    await new Promise((resolve) => old.once('exit', resolve));

    console.log(
      `upgrade from ${version}: ${pending} migration(s) under ${load.answered()} requests (${answeredBefore} before the migrations began), longest lock wait ${locks.longestMs().toFixed(0)} ms; ${messages.join('; ')}`,
    );
    expect(load.failures).toEqual([]);
    expect(load.answered()).toBeGreaterThan(answeredBefore);
    expect(messages[0]).toBe(`applying ${pending} migration${pending === 1 ? '' : 's'}`);
    expect(locks.longestMs()).toBeLessThan(1_000);

    // This version's gateway serves the same account.
    const next = await startGatewayProcess(await bundleGateway('upgrade'), port, env);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/v1.1/member/${members[0]}?apikey=${apiKey}`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: { ID: number } }).data.ID).toBe(members[0]);
    } finally {
      next.kill('SIGTERM');
      await new Promise((resolve) => next.once('exit', resolve));
      await sql.end();
    }
  });
});
