import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { openDatabase } from '../../src/db/client.js';
import { SeedRefused, seedDemoAccount } from '../../src/demo-seed.js';
import { dashboardQuery, type DashboardData } from '../../src/http/pages/dashboard/browser/queries.js';
import { ensureDemoAccount, type DemoCredentials } from '../../src/modules/tenancy/demo.js';
import { listKeys } from '../../src/modules/tenancy/tenancy.queries.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * `marquee demo seed`: the demo account gets brands, activities, members, opt-ins and records over
 * the last weeks, all through the gateway's own operations, so the dashboard's query has something
 * in every part; a second run is refused and changes nothing.
 */
let database: DatabaseHandle;
let t: TestGateway;
let demo: DemoCredentials;

beforeAll(async () => {
  database = await createTestDatabase();
  demo = (await ensureDemoAccount(database.db, temporaryDirectory('seed')))!;
  t = await startTestGateway({}, database);
});

afterAll(async () => {
  await t?.close();
  await database?.close();
});

const small = { members: 12, records: 150, days: 42 };

describe('seeding the demo account', () => {
  it('fills every part of the dashboard for the demo brand over three months, and revokes the key it used', { timeout: 120_000 }, async () => {
    const messages: string[] = [];
    const summary = await seedDemoAccount(t.config, database, { size: small, progress: (message) => void messages.push(message) });
    expect(summary).toMatchObject({ accountId: demo.accountId, applicationId: demo.applicationId, activities: 4, members: 12, records: 150 });
    expect(summary.optIns).toBeGreaterThan(0);
    expect(messages).toContain('members: 12/12');
    expect(messages.at(-1)).toBe('records: 150/150');

    const [brand] = summary.brands;
    const answer = await t.graphql<DashboardData>(demo.apiKey, dashboardQuery, { brandId: String(brand.id), window: { period: { amount: 3, unit: 'MONTH' } }, brand: { brandId: String(brand.id) } });
    expect(answer.body.errors).toBeUndefined();
    const data = answer.body.data!;
    expect(data.brandStats.members.activeMembers).toBeGreaterThan(0);
    expect(data.brandStats.members.totalMembers).toBeGreaterThan(0);
    expect(data.brandStats.activity.items.length).toBe(3);
    expect(data.brandStats.timeline.flatMap((line) => line.days).filter((day) => day.count > 0).length).toBeGreaterThan(7);
    expect(data.brandStats.location.countries.length).toBeGreaterThan(1);
    expect(data.brandStats.gender.length).toBeGreaterThan(1);
    expect(data.registrationStats.totals.registrations).toBe(12);
    expect(data.members.edges[0].node.score.points).toBeGreaterThan(0);

    // The run's own key is revoked; the demo key is untouched.
    const keys = await listKeys(database.db, demo.accountId);
    expect(keys.filter((key) => key.revokedAt === null).map((key) => key.id)).toHaveLength(1);
    expect((await t.graphql(demo.apiKey, '{ application { id } }')).body.data).toEqual({ application: { id: String(demo.applicationId) } });
  });

  it('refuses a second run, naming the brand found, and changes nothing', async () => {
    const before = (await t.graphql(demo.apiKey, '{ brands(first: 100) { totalCount } members(first: 1) { totalCount } }')).body.data;
    await expect(seedDemoAccount(t.config, database, { size: small })).rejects.toThrow(SeedRefused);
    await expect(seedDemoAccount(t.config, database, { size: small })).rejects.toThrow(/already has the demo data \(brand \d+, "Aurora Skies"\)/);
    expect((await t.graphql(demo.apiKey, '{ brands(first: 100) { totalCount } members(first: 1) { totalCount } }')).body.data).toEqual(before);
  });
});

describe('npm run -s cli -- demo seed', () => {
  const run = promisify(execFile);
  const dataDir = temporaryDirectory('seed-cli');
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent', ENV_FILE: '' };

  it('prints its progress on stderr and the summary as JSON on stdout, then refuses a second run', { timeout: 240_000 }, async () => {
    const handle = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
    await ensureDemoAccount(handle.db, dataDir);
    await handle.close();

    const args = ['scripts/run.mjs', 'cli', 'demo', 'seed', '--members', '5', '--records', '40', '--json'];
    const { stdout, stderr } = await run(process.execPath, args, { env, cwd: process.cwd() });
    expect(JSON.parse(stdout)).toMatchObject({ accountId: 1, members: 5, records: 40 });
    expect(stderr).toContain('members: 5/5');
    expect(stderr).toContain('records: 40/40');

    await expect(run(process.execPath, args, { env, cwd: process.cwd() })).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/already has the demo data/) });
  });
});
