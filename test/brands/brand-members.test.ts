import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import { deleteRecords } from '../../src/modules/activities/activities.queries.js';
import { brandMemberTotal, settleBrandMembers } from '../../src/modules/brands/brand-members.queries.js';
import { mergeInto } from '../../src/modules/lifecycle/member-merge.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The brand's members kept in `brand_members` (with their count rows and recheck queue) against a
 * brute-force query over the rollup and the opt-ins, after every kind of change: new records, opt-ins
 * and opt-outs, deleted records, merges, deleted members, and the worker's settling.
 */
let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let brandA: number, brandB: number, brandC: number, strangerBrand: number;
let listenA: number, watchB: number, unbranded: number, strangerListen: number;
let people: number[];

const membersQuery = `query($id: ID!, $filter: MemberFilter) {
  brandStats(brandId: $id) { members(filter: $filter) { activeMembers inactiveMembers totalMembers } }
}`;

/** The brand's members by definition: a rollup row on it, or a current opt-in to it; merged members left out. */
async function bruteForce(tenant: Tenant, brandId: number, country?: string): Promise<number[]> {
  const rows = await executeRows<{ id: number }>(
    t.database.db,
    sql`
    select m.id from members m
    where m.account_id = ${tenant.accountId} and m.merged_into_id is null
      and (${country ?? null}::text is null or upper(m.country) = ${country ?? null})
      and (exists (select 1 from member_activity_daily d where d.account_id = m.account_id and d.member_id = m.id and d.brand_id = ${brandId})
        or exists (select 1 from optins o where o.account_id = m.account_id and o.member_id = m.id and o.brand_id = ${brandId} and o.opted_out_at is null))
    order by m.id`,
  );
  return rows.map((row) => Number(row.id));
}

async function reportedTotal(tenant: Tenant, brandId: number, filter?: Record<string, unknown>): Promise<number> {
  const { body } = await t.graphql(tenant.apiKey, membersQuery, { id: String(brandId), filter });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  const report = body.data.brandStats.members;
  expect(report.activeMembers + report.inactiveMembers).toBe(report.totalMembers);
  return report.totalMembers;
}

/** Every brand of both tenants, with its tenant. */
const everyBrand = () =>
  [
    [app, brandA],
    [app, brandB],
    [app, brandC],
    [stranger, strangerBrand],
  ] as const;

/** Every brand's total, plain and under a country condition, equals the brute force; the kept set holds every member. */
async function expectExact(): Promise<void> {
  for (const [tenant, brandId] of everyBrand()) {
    const members = await bruteForce(tenant, brandId);
    expect(await brandMemberTotal(t.database.db, tenant.accountId, brandId), `brand ${brandId}`).toBe(members.length);
    expect(await reportedTotal(tenant, brandId)).toBe(members.length);
    expect(await reportedTotal(tenant, brandId, { countries: ['GB'] })).toBe((await bruteForce(tenant, brandId, 'GB')).length);
    const kept = await executeRows<{ member_id: number }>(
      t.database.db,
      sql`
      select member_id from brand_members where account_id = ${tenant.accountId} and brand_id = ${brandId}`,
    );
    for (const member of members) expect(kept.some((row) => Number(row.member_id) === member)).toBe(true);
  }
}

/** After settling, the kept set is exactly the brand's members, with one count row per brand and no queue. */
async function settleAndExpectExact(): Promise<void> {
  for (const tenant of [app, stranger]) await settleBrandMembers(t.database.db, tenant.accountId);
  await expectExact();
  for (const [tenant, brandId] of everyBrand()) {
    const kept = await executeRows<{ member_id: number }>(
      t.database.db,
      sql`
      select member_id from brand_members where account_id = ${tenant.accountId} and brand_id = ${brandId} order by member_id`,
    );
    expect(kept.map((row) => Number(row.member_id))).toEqual(await bruteForce(tenant, brandId));
    const counts = await executeRows<{ members: number }>(
      t.database.db,
      sql`
      select members from brand_member_counts where account_id = ${tenant.accountId} and brand_id = ${brandId}`,
    );
    expect(counts.length).toBeLessThanOrEqual(1);
  }
  const queued = await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from brand_member_rechecks`);
  expect(Number(queued[0].n)).toBe(0);
}

async function opt(tenant: Tenant, action: 'optIn' | 'optOut', memberId: number, brandId: number) {
  const { body } = await t.graphql(tenant.apiKey, `mutation($input: OptInInput!) { ${action}(input: $input) { id } }`, {
    input: { memberId: String(memberId), brandId: String(brandId) },
  });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
}

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brandA = await insertBrand(t, app, 'Brand A');
  brandB = await insertBrand(t, app, 'Brand B');
  brandC = await insertBrand(t, app, 'Brand C');
  strangerBrand = await insertBrand(t, stranger, 'Their Brand');
  listenA = await createActivity(t, app, { name: 'Listen A', type: 'Listened', service: 'spotify', brandid: brandA, points: 2 });
  watchB = await createActivity(t, app, { name: 'Watch B', type: 'Watched', service: 'youtube', brandid: brandB, points: 3 });
  unbranded = await createActivity(t, app, { name: 'Visit', type: 'Visited', points: 1 });
  strangerListen = await createActivity(t, stranger, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: strangerBrand, points: 2 });
  people = await insertMembers(
    t,
    app,
    Array.from({ length: 12 }, (_, i) => ({ country: i % 3 === 0 ? 'GB' : 'US' })),
  );
});

afterAll(() => t?.close());

describe("a brand's kept members", () => {
  it('follow new records and opt-ins in the same transaction', async () => {
    await expectExact();
    await record(t, app, [
      ...people.slice(0, 6).map((memberId, i) => ({ activityId: listenA, memberId, completedAt: daysAgo(400 - i) })),
      ...people.slice(3, 9).map((memberId, i) => ({ activityId: watchB, memberId, completedAt: hoursAgo(30 + i) })),
      { activityId: unbranded, memberId: people[11], completedAt: hoursAgo(2) },
      // A record on another brand than its activity's.
      { activityId: listenA, memberId: people[10], completedAt: hoursAgo(3), brandId: brandC },
    ]);
    const [theirs] = await insertMembers(t, stranger, [{ country: 'GB' }]);
    await record(t, stranger, [{ activityId: strangerListen, memberId: theirs, completedAt: hoursAgo(1) }]);
    await expectExact();
    // Repeats on known pairs add nothing; an opt-in without records adds a member.
    await record(
      t,
      app,
      people.slice(0, 3).map((memberId) => ({ activityId: listenA, memberId, completedAt: hoursAgo(1) })),
    );
    await opt(app, 'optIn', people[9], brandA);
    await opt(app, 'optIn', people[0], brandB);
    await expectExact();
    expect(await brandMemberTotal(t.database.db, app.accountId, brandA)).toBe(7);
  });

  it('stay exact when records, opt-ins and members go, before and after the worker settles them', async () => {
    // Opted out with no records: leaves. Opted out with records: stays.
    await opt(app, 'optOut', people[9], brandA);
    await opt(app, 'optOut', people[0], brandB);
    await expectExact();
    // Every record of a member on brand B: the pair ends. One of two days on brand A: it stays.
    await t.database.db.transaction((tx) => deleteRecords(tx, app.accountId, people[8], { activityId: watchB }));
    await t.database.db.transaction((tx) => deleteRecords(tx, app.accountId, people[0], { activityId: listenA }));
    await expectExact();
    await settleAndExpectExact();
    expect(await brandMemberTotal(t.database.db, app.accountId, brandA)).toBe(5);

    // A merge moves the merged member's pairs to the survivor; a deleted member takes its pairs along.
    await opt(app, 'optIn', people[7], brandA);
    await t.database.db.transaction((tx) => mergeInto(tx, { id: people[1], accountId: app.accountId }, { id: people[7], accountId: app.accountId }));
    await expectExact();
    const { body } = await t.graphql(app.apiKey, 'mutation($id: ID!) { deleteMember(id: $id) }', { id: String(people[4]) });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    await expectExact();
    await settleAndExpectExact();
    // Settling twice changes nothing.
    await settleAndExpectExact();
  });

  it("answers another tenant's brand as not found, and counts only the caller's members", async () => {
    const { body } = await t.graphql(stranger.apiKey, membersQuery, { id: String(brandA) });
    expect(body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await brandMemberTotal(t.database.db, stranger.accountId, brandA)).toBe(0);
    expect(await reportedTotal(stranger, strangerBrand)).toBe(1);
  });

  // Recordings adding a pair race the worker removing it: the brand-members lock keeps them apart.
  it('stays exact while records come and go beside the worker', { timeout: 60_000 }, async () => {
    const member = people[2];
    for (let round = 0; round < 15; round += 1) {
      await Promise.all([
        record(t, app, [{ activityId: watchB, memberId: member, completedAt: hoursAgo(1 + round / 10) }]),
        t.database.db.transaction((tx) => deleteRecords(tx, app.accountId, member, { activityId: watchB })),
        settleBrandMembers(t.database.db, app.accountId),
      ]);
      await expectExact();
    }
    await settleAndExpectExact();
  });
});
