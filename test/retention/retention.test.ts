import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, activityRecords, auditEvents, scoreWindows } from '../../src/db/schema/index.js';
import { systemOrigin } from '../../src/modules/audit/audit.js';
import { expireRecords, minRetentionMonths, recordRetention, setRecordRetention } from '../../src/modules/retention/retention.js';
import { shiftByPeriod } from '../../src/lib/time.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { consoleGraphql, signInStaff } from '../support/console.js';
import { keptDaysExact, keptTotalsExact } from '../support/kept-structures.js';

/**
 * Record retention (docs/operations.md, "Record retention"): records past an account's retention
 * leave in bounded batches, one-time records and every kept structure stay, and what the interface
 * serves from the rollup and the kept totals answers the same before and after.
 */
let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const monthsAgo = (months: number, days = 0) => new Date(shiftByPeriod(new Date(), -months, 'MONTH').getTime() - days * 86_400_000).toISOString();
const dayOf = (iso: string) => iso.slice(0, 10) + ' 00:00:00';
const test = systemOrigin('test');

const records = async (tenant: Tenant, where = sql`true`) =>
  (
    await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(activityRecords)
      .where(and(eq(activityRecords.accountId, tenant.accountId), where))
  )[0].n;

const audited = (tenant: Tenant, action: string) =>
  t.database.db
    .select({ actor: auditEvents.actorLabel, details: auditEvents.details })
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, tenant.accountId), eq(auditEvents.action, action)))
    .orderBy(auditEvents.id);

/** An account's records over ten months, repeatable ones on a brand and a one-time one long ago; its windows made. */
async function populate(options: { windows?: boolean } = {}) {
  const tenant = await t.tenant('enterprise');
  const brand = await insertBrand(t, tenant, `Retained ${tenant.accountId}`);
  const listen = await createActivity(t, tenant, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2, brandid: brand });
  const follow = await createActivity(t, tenant, { name: 'Follow', type: 'Followed', points: 10, onetime: 1, brandid: brand });
  const [a, b] = await insertMembers(t, tenant, [{}, {}]);
  await record(t, tenant, [
    { activityId: listen, memberId: a, completedAt: monthsAgo(10) },
    { activityId: listen, memberId: b, completedAt: monthsAgo(9, 3) },
    { activityId: listen, memberId: a, completedAt: monthsAgo(8) },
    { activityId: follow, memberId: a, completedAt: monthsAgo(9) },
    { activityId: listen, memberId: a, completedAt: monthsAgo(5) },
    { activityId: listen, memberId: b, completedAt: monthsAgo(0, 2) },
  ]);
  if (options.windows !== false) await t.gateway.scoreWindows.pass();
  return { tenant, brand, members: [a, b] };
}

describe('record retention', () => {
  it('removes the repeatable records past it, keeps one-time ones, and the reports, rankings and kept structures answer the same', async () => {
    const { tenant, brand } = await populate();
    const { tenant: other } = await populate();
    const whole = { start_date: dayOf(monthsAgo(11)), end_date: dayOf(new Date(Date.now() + 86_400_000).toISOString()) };
    const reports = async () => ({
      daily: (await t.rest(tenant, 'GET', '/activities/count/daily', whole)).json,
      services: (await t.rest(tenant, 'GET', '/activities/count/services', whole)).json,
      activity: (await t.rest(tenant, 'GET', `/brand/${brand}/stats/activity`, whole)).json,
      timeline: (await t.rest(tenant, 'GET', `/brand/${brand}/stats/timeline`, whole)).json,
      members: (await t.rest(tenant, 'GET', `/brand/${brand}/stats/members`, whole)).json,
      ranking: (await t.rest(tenant, 'GET', '/members/active', whole)).json,
      sixMonths: (await t.rest(tenant, 'GET', '/members/active', { period: '6 months' })).json,
      week: (await t.rest(tenant, 'GET', '/members/active', { period: '1 week' })).json,
      brandMembers: (await t.rest(tenant, 'GET', `/brand/${brand}/members`)).json,
    });
    const before = await reports();
    expect(before.daily.items.length).toBeGreaterThan(0);

    expect(await setRecordRetention(t.database.db, tenant.accountId, 7, test)).toBe(7);
    expect(await recordRetention(t.database.db, tenant.accountId)).toBe(7);
    const outcome = (await t.gateway.retention.pass()).get(tenant.accountId);
    expect(outcome).toMatchObject({ removed: 3, done: true });
    // Seven months ago, to the clock of the pass: the kept windows begin later (six months).
    expect(Math.abs(outcome!.before!.getTime() - new Date(monthsAgo(7)).getTime())).toBeLessThan(60_000);

    expect(await reports()).toEqual(before);
    expect(await records(tenant)).toBe(3);
    expect(await records(tenant, sql`${activityRecords.oneTime}`)).toBe(1);
    expect(await records(tenant, sql`${activityRecords.completedAt} < ${outcome!.before!.toISOString()} and not ${activityRecords.oneTime}`)).toBe(0);
    // The kept totals and days against brute force over the records that remain.
    await keptTotalsExact(t.database.db, tenant.accountId);
    await keptDaysExact(t.database.db, tenant.accountId);
    // Another account keeps everything.
    expect(await records(other)).toBe(6);
    expect(await audited(tenant, 'account.retention')).toEqual([{ actor: 'test', details: { months: 7, before: null } }]);
    expect(await audited(tenant, 'records.expired')).toEqual([{ actor: 'retention', details: { before: outcome!.before!.toISOString(), records: 3, months: 7 } }]);
    expect(await audited(other, 'records.expired')).toEqual([]);

    // A second pass finds nothing more, and writes nothing to the log.
    expect((await t.gateway.retention.pass()).get(tenant.accountId)).toMatchObject({ removed: 0, done: true });
    expect(await audited(tenant, 'records.expired')).toHaveLength(1);
    // Keeping everything again stops the passes.
    expect(await setRecordRetention(t.database.db, tenant.accountId, null, test)).toBeNull();
    expect((await t.gateway.retention.pass()).has(tenant.accountId)).toBe(false);
  });

  it('works in bounded batches, and goes on where a pass stopped', async () => {
    const { tenant } = await populate();
    const first = await expireRecords(t.database.db, tenant.accountId, 7, { batch: 2, maxBatches: 1 });
    expect(first).toMatchObject({ removed: 2, done: false });
    expect(await records(tenant)).toBe(4);
    const rest = await expireRecords(t.database.db, tenant.accountId, 7, { batch: 2, maxBatches: 5 });
    expect(rest).toMatchObject({ removed: 1, done: true });
    expect(await records(tenant)).toBe(3);
    await keptTotalsExact(t.database.db, tenant.accountId);
  });

  it('removes nothing its kept windows still need: none before the windows exist, none after where a lagging window begins', async () => {
    const { tenant } = await populate({ windows: false });
    expect(await expireRecords(t.database.db, tenant.accountId, 7)).toEqual({ removed: 0, done: true });
    expect(await records(tenant)).toBe(6);

    await t.gateway.scoreWindows.pass();
    // As after a long stop: the six months' window still begins nine and a half months ago.
    const lagging = new Date(monthsAgo(9, 15));
    await t.database.db
      .update(scoreWindows)
      .set({ coveredFrom: lagging })
      .where(and(eq(scoreWindows.accountId, tenant.accountId), eq(scoreWindows.windowId, 5)));
    const outcome = await expireRecords(t.database.db, tenant.accountId, 7);
    expect(outcome).toEqual({ before: lagging, removed: 1, done: true });
    expect(await records(tenant)).toBe(5);
  });

  it(`refuses a retention under ${minRetentionMonths} months or not a whole number, with its reason, writing nothing`, async () => {
    const { tenant } = await populate();
    await setRecordRetention(t.database.db, tenant.accountId, 12, test);
    for (const months of [minRetentionMonths - 1, 0, -3, 6.5, '9', 1201, undefined]) {
      await expect(setRecordRetention(t.database.db, tenant.accountId, months, test), String(months)).rejects.toMatchObject({ extensions: { code: 'INVALID_PARAMETER', param: 'months' } });
    }
    await expect(setRecordRetention(t.database.db, tenant.accountId, 3, test)).rejects.toThrow(/at least 6: the 6-month window's kept totals/);
    expect(await recordRetention(t.database.db, tenant.accountId)).toBe(12);
    expect(await audited(tenant, 'account.retention')).toHaveLength(1);
  });
});

describe("the console's record retention", () => {
  const read = 'query { recordRetention { months minimumMonths maximumMonths } }';
  const set = 'mutation($months: Int) { setRecordRetention(months: $months) { months } }';

  it('is read by every role, set by owners (settings.manage), and recorded with who set it', async () => {
    const { tenant } = await populate();
    const { tenant: other } = await populate();
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const admin = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const analyst = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst' });
    expect((await consoleGraphql(t, analyst, read)).body.data.recordRetention).toEqual({ months: null, minimumMonths: 6, maximumMonths: 1200 });
    for (const staff of [analyst, admin]) {
      const denied = await consoleGraphql(t, staff, set, { months: 12 });
      expect(denied.body.errors![0].extensions.code).toBe('FORBIDDEN');
    }
    expect(await recordRetention(t.database.db, tenant.accountId)).toBeNull();

    expect((await consoleGraphql(t, owner, set, { months: 12 })).body.data.setRecordRetention).toEqual({ months: 12 });
    expect((await consoleGraphql(t, analyst, read)).body.data.recordRetention.months).toBe(12);
    expect(await audited(tenant, 'account.retention')).toEqual([{ actor: owner.email, details: { months: 12, before: null } }]);
    // Only the staff member's own account changes.
    expect(await recordRetention(t.database.db, other.accountId)).toBeNull();

    const refused = await consoleGraphql(t, owner, set, { months: 2 });
    expect(refused.body.errors![0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'months' });
    expect((await consoleGraphql(t, owner, set, { months: null })).body.data.setRecordRetention).toEqual({ months: null });
    const [row] = await t.database.db.select({ months: accounts.recordRetentionMonths }).from(accounts).where(eq(accounts.id, tenant.accountId));
    expect(row.months).toBeNull();
  });
});
