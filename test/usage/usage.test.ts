import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHits } from '../../src/db/schema/index.js';
import { formatDay, formatMonth, formatTimestamp, truncate } from '../../src/lib/time.js';
import { createApplication, createApplicationKey, createGlobalKey, findAccountById } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

/** Makes `count` metered calls with a key, then writes the counters. */
async function call(apiKey: string, count: number) {
  for (let i = 0; i < count; i += 1) {
    expect((await t.rest({ apiKey }, 'GET', '/app/info', {}, { key: 'header' })).status).toBe(200);
  }
  await t.gateway.meter.flush();
}

/** A second application in the tenant's account, with its own key. */
async function sibling(tenant: Tenant, name: string): Promise<Tenant> {
  const account = await findAccountById(t.database.db, tenant.accountId);
  const created = await createApplication(t.database.db, { accountName: account.name, name, plan: 'basic' });
  expect(created.account.id).toBe(tenant.accountId);
  return { accountId: tenant.accountId, applicationId: created.application.id, apiKey: created.apiKey };
}

/** GET /v1.1/account/usage with the key in the header and `query` as written. */
const usage = (apiKey: string, query: string) => t.rest({ apiKey }, 'GET', `/account/usage?${query}`, {}, { key: 'header' });

const now = new Date();
const today = truncate(now, 'day');
const todayText = encodeURIComponent(formatTimestamp(today));

describe('GET /v1.1/account/usage', () => {
  it('counts every call per hour, in the seed envelope', async () => {
    const tenant = await t.tenant('basic');
    await call(tenant.apiKey, 5);
    const response = await usage(tenant.apiKey, `interval=hour&start_date=${todayText}&period=1%20day`);
    expect(response.status).toBe(200);
    const hours = Array.from({ length: 24 }, (_, hour) => {
      const at = new Date(today.getTime() + hour * 3_600_000);
      return { hour: formatTimestamp(at), hits: at.getTime() === truncate(now, 'hour').getTime() ? '5' : '0' };
    });
    expect(response.json).toEqual([
      {
        start_date: formatTimestamp(today),
        end_date: formatTimestamp(new Date(today.getTime() + 86_400_000)),
        timezone: 'UTC',
        interval: 'per hour',
        clamped: false,
        notice: null,
        hits_total: { TotalHitsForPeriod: 5, TotalHitsPerHour: hours },
        hits_per_application: [{ ApplicationID: String(tenant.applicationId), ApplicationName: expect.any(String), TotalHitsForPeriod: 5, HitsPerHour: hours }],
      },
    ]);
  });

  it('reports per day and per month, and the whole account with app_scope=businessunit', async () => {
    const first = await t.tenant('basic');
    const second = await sibling(first, 'second app');
    await call(first.apiKey, 3);
    await call(second.apiKey, 2);

    const weekAgo = new Date(today.getTime() - 6 * 86_400_000);
    const daily = (await usage(first.apiKey, `interval=day&start_date=${formatDay(weekAgo)}&period=7%20day&app_scope=businessunit`)).json[0];
    expect(daily.interval).toBe('per day');
    expect(daily.hits_total.TotalHitsForPeriod).toBe(5);
    expect(daily.hits_total.TotalHitsPerDay).toHaveLength(7);
    expect(daily.hits_total.TotalHitsPerDay.at(-1)).toEqual({ day: formatDay(today), hits: '5' });
    expect(daily.hits_per_application.map((app: { ApplicationID: string; TotalHitsForPeriod: number }) => [app.ApplicationID, app.TotalHitsForPeriod])).toEqual([
      [String(first.applicationId), 3],
      [String(second.applicationId), 2],
    ]);

    const month = truncate(now, 'month');
    const monthly = (await usage(first.apiKey, `interval=month&start_date=${formatDay(month)}&period=1%20month`)).json[0];
    expect(monthly.interval).toBe('per month');
    // The first key made 3 calls, then one usage call that was metered but not yet flushed.
    expect(monthly.hits_total).toEqual({ TotalHitsForPeriod: 3, TotalHitsPerMonth: [{ month: formatMonth(month), hits: '3' }] });
    expect(monthly.hits_per_application).toHaveLength(1);
  });

  it('accepts the global key, which always reads the whole account', async () => {
    const first = await t.tenant('basic');
    const second = await sibling(first, 'other app');
    await call(first.apiKey, 1);
    await call(second.apiKey, 4);
    const { apiKey: globalKey } = await createGlobalKey(t.database.db, first.accountId);
    const body = (await usage(globalKey, `interval=day&start_date=${todayText}&end_date=${encodeURIComponent(formatTimestamp(new Date(today.getTime() + 86_400_000)))}`)).json[0];
    expect(body.hits_total).toEqual({ TotalHitsForPeriod: 5, TotalHitsPerDay: [{ day: formatDay(today), hits: '5' }] });
    expect(body.hits_per_application).toHaveLength(2);

    // The global key is for usage only.
    const refused = await t.rest({ apiKey: globalKey }, 'GET', '/app/info', {}, { key: 'header' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 7, type: 'WRONG_APPLICATION' });
  });

  it('sees nothing of another account', async () => {
    const mine = await t.tenant('basic');
    const theirs = await t.tenant('basic');
    await call(theirs.apiKey, 6);
    const body = (await usage(mine.apiKey, `interval=day&start_date=${todayText}&period=1%20day&app_scope=businessunit`)).json[0];
    expect(body.hits_total.TotalHitsForPeriod).toBe(0);
    expect(body.hits_per_application.map((app: { ApplicationID: string }) => app.ApplicationID)).toEqual([String(mine.applicationId)]);
  });

  it.each([
    ['hour', '&period=8%20day', 7 * 24, '7 days'],
    ['day', '&period=120%20day', 90, '90 days'],
    ['month', '&period=13%20month', 12, '12 months'],
  ])('clamps a %s range longer than its maximum and says so', async (interval, range, buckets, maxText) => {
    const tenant = await t.tenant('basic');
    const start = truncate(new Date(now.getTime() - 10 * 86_400_000), interval === 'month' ? 'month' : 'day');
    const response = await usage(tenant.apiKey, `interval=${interval}&start_date=${encodeURIComponent(formatTimestamp(start))}${range}`);
    expect(response.status, response.body).toBe(200);
    const [body] = response.json;
    expect(body.clamped).toBe(true);
    expect(body.notice).toBe(`The range was cut to ${maxText} after start_date: interval ${interval} covers at most ${maxText}.`);
    const list = body.hits_total[`TotalHitsPer${interval[0].toUpperCase()}${interval.slice(1)}`];
    expect(list).toHaveLength(buckets);
    const graphql = await t.graphql(tenant.apiKey, `query($s: DateTime!) { usage(interval: DAY, start: $s, end: "2099-01-01T00:00:00Z") { clamped notice end } }`, { s: start.toISOString() });
    expect(graphql.body.data.usage).toEqual({ clamped: true, notice: expect.stringContaining('90 days'), end: new Date(start.getTime() + 90 * 86_400_000).toISOString() });
  });

  it('clamps an end_date beyond the maximum, and leaves a range within it alone', async () => {
    const tenant = await t.tenant('basic');
    const long = (await usage(tenant.apiKey, 'interval=day&start_date=2026-01-01&end_date=2026-06-01')).json[0];
    expect([long.start_date, long.end_date, long.clamped]).toEqual(['2026-01-01 00:00:00', '2026-04-01 00:00:00', true]);
    const within = (await usage(tenant.apiKey, 'interval=day&start_date=2026-01-01&end_date=2026-03-01')).json[0];
    expect([within.end_date, within.clamped, within.notice]).toEqual(['2026-03-01 00:00:00', false, null]);
  });

  it.each([
    ['interval=hour&start_date=2026-11-01&period=8%20fortnight', 4, 'period'],
    ['interval=day&start_date=2026-01-01&end_date=June', 4, 'end_date'],
    ['interval=hour&start_date=2026-11-01', 3, 'end_date'],
    ['interval=week&start_date=2026-11-01&period=1%20day', 4, 'interval'],
    ['start_date=2026-11-01&period=1%20day', 3, 'interval'],
    ['interval=day&period=1%20day', 3, 'start_date'],
    ['interval=day&start_date=yesterday&period=1%20day', 4, 'start_date'],
    ['interval=day&start_date=2026-11-01&period=1%20day&app_scope=world', 4, 'app_scope'],
    ['interval=day&start_date=2026-11-02&end_date=2026-11-01', 4, 'end_date'],
  ])('refuses %s with code %i on %s', async (query, code, param) => {
    const tenant = await t.tenant('basic');
    const response = await usage(tenant.apiKey, query);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { code, type: expect.any(String), message: expect.any(String), param } });
  });
});

describe('usage over GraphQL', () => {
  const query = `query ($start: DateTime!) {
    usage(interval: HOUR, start: $start, period: { amount: 2, unit: HOUR }, scope: ACCOUNT) {
      hits buckets { start hits } applications { applicationId hits }
    }
  }`;

  it('gives the same counts as REST', async () => {
    const tenant = await t.tenant('basic');
    await call(tenant.apiKey, 2);
    const start = truncate(now, 'hour').toISOString();
    const { body } = await t.graphql(tenant.apiKey, query, { start });
    expect(body.errors).toBeUndefined();
    expect(body.data.usage.hits).toBe(2);
    expect(body.data.usage.buckets[0]).toEqual({ start, hits: 2 });
    expect(body.data.usage.applications).toEqual([{ applicationId: String(tenant.applicationId), hits: 2 }]);
  });

  it('refuses a period of the wrong unit with the numeric code', async () => {
    const tenant = await t.tenant('basic');
    const { body } = await t.graphql(tenant.apiKey, query.replace('amount: 2, unit: HOUR', 'amount: 2, unit: WEEK'), { start: today.toISOString() });
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'period' });
  });
});

describe('the usage meter', () => {
  it('keeps every call counted before a graceful shutdown', async () => {
    const own = await startTestGateway({ USAGE_FLUSH_SECONDS: '3600' });
    const tenant = await own.tenant('basic');
    for (let i = 0; i < 7; i += 1) await own.rest(tenant, 'GET', '/app/info', {}, { key: 'header' });
    await own.gateway.close();
    const rows = await own.database.db
      .select()
      .from(apiHits)
      .where(sql`${apiHits.applicationId} = ${tenant.applicationId}`);
    expect(rows.reduce((sum, row) => sum + row.hits, 0)).toBe(7);
    await own.database.close();
  });

  it('adds to an hour already written instead of replacing it', async () => {
    const tenant = await t.tenant('basic');
    const { apiKey } = await createApplicationKey(t.database.db, tenant.applicationId);
    await call(tenant.apiKey, 2);
    await call(apiKey, 3);
    const rows = await t.database.db
      .select()
      .from(apiHits)
      .where(sql`${apiHits.applicationId} = ${tenant.applicationId}`);
    expect(rows).toHaveLength(1);
    expect(rows[0].hits).toBe(5);
  });

  it('deletes hours older than a year, and only those', async () => {
    const tenant = await t.tenant('basic');
    const old = new Date(now.getTime() - 400 * 86_400_000);
    const recent = new Date(now.getTime() - 300 * 86_400_000);
    await t.database.db.insert(apiHits).values([
      { accountId: tenant.accountId, applicationId: tenant.applicationId, hour: truncate(old, 'hour'), hits: 9 },
      { accountId: tenant.accountId, applicationId: tenant.applicationId, hour: truncate(recent, 'hour'), hits: 4 },
    ]);
    expect(await t.gateway.meter.prune(now)).toBeGreaterThanOrEqual(1);
    const rows = await t.database.db
      .select()
      .from(apiHits)
      .where(sql`${apiHits.applicationId} = ${tenant.applicationId}`);
    expect(rows.map((row) => row.hits)).toEqual([4]);
  });
});
