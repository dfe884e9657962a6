import { Writable } from 'node:stream';
import { sql, type SQL } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/core/random.js';
import { executeRows } from '../../src/db/rows.js';
import { compileFilter } from '../../src/filters/compile.js';
import { listingWindow, resolveWindow } from '../../src/filters/window.js';
import type { WindowInput } from '../../src/filters/window.types.js';
import { deleteRecords, insertRecordsAlone } from '../../src/modules/activities/activities.queries.js';
import { prepareRecords } from '../../src/modules/activities/activities.service.js';
import type { ActivityType } from '../../src/modules/activities/activity-types.js';
import { mergeInto } from '../../src/modules/lifecycle/member-merge.js';
import { ScoreWindowsWorker } from '../../src/modules/lifecycle/kept-data.worker.js';
import { createMetrics } from '../../src/http/metrics.js';
import { chooseTotals } from '../../src/modules/scoring/score-windows.ranking.js';
import { ageRangeOf } from '../../src/modules/stats/stats.queries.js';
import { catchUpOrder, standardWindows } from '../../src/modules/score-windows/score-windows.js';
import { advanceWindows, buildWindows, coverUntil, maxStepRecords } from '../../src/modules/scoring/score-windows.worker.js';
import { holdCoverageLock, tryMoverLock } from '../../src/modules/score-windows/score-windows.locks.js';
import { keepTimelineDays, keptDayList } from '../../src/modules/scoring/timeline-days.queries.js';
import { activityTypeWords } from '../../src/rest/enums.js';
import { serviceTimelines } from '../../src/modules/stats/stats.service.js';
import { createActivity, insertBrand, insertMembers, record, type RecordSpec } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { lockWaits } from '../support/lock-waits.js';
import { expectGroupsExact, keptDaysExact, keptTotalsExact } from '../support/kept-structures.js';

/**
 * The kept per-member totals of the standard windows: after every kind of change (the worker's
 * steps, late records, deletions, merges, a deleted member) they equal a brute-force sum of the raw
 * records over each window's covered span, and rankings read from them equal the brute force over
 * the requested window.
 */
const random = createRandom(Number(process.env.PROPERTY_SEED ?? 7));
const minute = 60_000;
const day = 24 * 60 * minute;

let t: TestGateway;
let tenant: Tenant;
const brandIds: number[] = [];
const activityIds: number[] = [];
let oneTimeId = 0;
let memberIds: number[] = [];

beforeAll(async () => {
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '1000000' });
  // The tests move the windows themselves.
  await t.gateway.scoreWindows.stop();
  tenant = await t.tenant('enterprise');
  for (const name of ['North', 'South']) brandIds.push(await insertBrand(t, tenant, `${name} Records`));
  for (const brandId of brandIds) {
    activityIds.push(await createActivity(t, tenant, { name: `Listen ${brandId}`, type: 'Listened', brandid: brandId, points: 2, service: 'spotify' }));
    activityIds.push(await createActivity(t, tenant, { name: `Share ${brandId}`, type: 'Shared', brandid: brandId, points: 5 }));
    // A second activity of a type: a member stays in the type's group while either counts.
    activityIds.push(await createActivity(t, tenant, { name: `Stream ${brandId}`, type: 'Listened', brandid: brandId, points: 1, service: 'deezer' }));
  }
  // Without a brand: counts in every-brand totals only.
  activityIds.push(await createActivity(t, tenant, { name: 'Visit', type: 'Visited', points: 1 }));
  oneTimeId = await createActivity(t, tenant, { name: 'Follow', type: 'Followed', brandid: brandIds[0], points: 10, onetime: 1 });
  memberIds = await insertMembers(
    t,
    tenant,
    Array.from({ length: 30 }, () => ({ country: random.pick(['GB', 'US', undefined]), gender: random.pick(['F', 'M', undefined]), birthDate: random.pick(birthDates) })),
  );
  await record(t, tenant, records(Date.now(), 500));
  await record(
    t,
    tenant,
    memberIds.slice(0, 10).map((memberId) => ({ activityId: oneTimeId, memberId, completedAt: new Date(Date.now() - 3 * day).toISOString() })),
  );
}, 120_000);
afterAll(() => t.close());

/** Birthdays on either side of today at an age-range boundary, other ages, and none. */
const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const yearsAgo = (years: number, days = 0) => {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() - years);
  date.setUTCDate(date.getUTCDate() + days);
  return isoDay(date);
};
const birthDates = [yearsAgo(18), yearsAgo(18, 1), yearsAgo(25, -1), yearsAgo(40), yearsAgo(70), yearsAgo(10), undefined];

/** Records over seven months, a third of them in the last hour (where window edges move). */
function records(now: number, count: number): RecordSpec[] {
  return Array.from({ length: count }, () => {
    const back = random() < 0.3 ? random() * 60 * minute : random() * 210 * day;
    return {
      activityId: random.pick(activityIds),
      memberId: memberIds[Math.floor(memberIds.length * random() ** 2)],
      completedAt: new Date(now - back).toISOString(),
      // Now and then on another network than the activity's: the service groups follow the record.
      service: random() < 0.15 ? 'youtube' : undefined,
    };
  });
}

const expectTotalsExact = () => keptTotalsExact(t.database.db, tenant.accountId);

const claimedUntil = async () =>
  new Date((await executeRows<{ until: string }>(t.database.db, sql`select claimed_until::text as until from score_window_claims where account_id = ${tenant.accountId}`))[0].until);

const coveredWindowEnds = async () =>
  (await executeRows<{ until: string }>(t.database.db, sql`select covered_until::text as until from score_windows where account_id = ${tenant.accountId}`)).map((row) => Date.parse(row.until));

/** Whether `work` ends, or some session of this database starts waiting for an advisory lock first. */
async function settledOrWaiting(work: Promise<unknown>): Promise<'settled' | 'waiting'> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    if (settled) return 'settled';
    if ((await lockWaits(t.database.db)) > 0) return 'waiting';
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Every standard window and brand, with the window resolved, a check that the kept structures serve
 * it, and the brute force's condition on raw records `r` in it (repeatable, of the brand, in the window).
 */
async function forEachKeptReportCase(
  check: (c: { period: (typeof standardWindows)[number]['period']; brandId: number; window: WindowInput; resolved: ReturnType<typeof resolveWindow>; inWindow: SQL }) => Promise<void>,
) {
  for (const { period } of standardWindows) {
    for (const brandId of brandIds) {
      const window = { period } as WindowInput;
      const resolved = resolveWindow(window, listingWindow);
      const filter = await compileFilter(t.database.db, tenant.accountId, { brandId: String(brandId) }, resolved);
      expect((await chooseTotals(t.database.db, filter, resolved)).plan).toBeDefined();
      const inWindow = sql`r.account_id = ${tenant.accountId} and not r.one_time and r.brand_id = ${brandId}
        and r.completed_at >= ${resolved.start.toISOString()}::timestamptz and r.completed_at < ${resolved.end.toISOString()}::timestamptz`;
      await check({ period, brandId, window, resolved, inWindow });
    }
  }
}

describe('kept totals of the standard windows', () => {
  it('grow to their windows in steps, then move with time, matching the records throughout', async () => {
    const start = new Date(Date.now() - 3 * day);
    // A first coverage in steps of at most 40 records: the six-month window takes many.
    expect(await advanceWindows(t.database.db, tenant.accountId, start, 40)).toBe(false);
    await expectTotalsExact();
    await coverUntil(t.database.db, tenant.accountId, start, 40);
    expect(await expectTotalsExact()).toBeGreaterThan(100);
    const windows = await executeRows<{ window_id: number }>(t.database.db, sql`select window_id from score_windows where account_id = ${tenant.accountId}`);
    expect(windows.length).toBe(standardWindows.length);
    // Forward by uneven amounts, across many records at both ends of every window.
    for (const at of [start.getTime() + 37 * minute, start.getTime() + day + 5 * minute, Date.now() - 20 * minute, Date.now() - 10 * minute]) {
      await coverUntil(t.database.db, tenant.accountId, new Date(at));
      await expectTotalsExact();
    }
  });

  // Two sessions at once: PostgreSQL only (PGlite has one connection).
  it.skipIf(!process.env.TEST_DATABASE_URL)('are moved by one worker at a time, which the others leave the account to', async () => {
    const coveredUntil = async () => (await executeRows<{ until: string }>(t.database.db, sql`select max(covered_until)::text as until from score_windows where account_id = ${tenant.accountId}`))[0].until;
    const before = await coveredUntil();
    const later = new Date(Date.now() - 5 * minute);
    await t.database.db.transaction(async (tx) => {
      expect(await tryMoverLock(tx, tenant.accountId)).toBe(true);
      // Another gateway's worker, in a session of its own, passes the account by at once.
      expect(await advanceWindows(t.database.db, tenant.accountId, later, maxStepRecords, { unlessMoving: true })).toBe(true);
      expect(await coveredUntil()).toBe(before);
    });
    expect(await advanceWindows(t.database.db, tenant.accountId, later, maxStepRecords, { unlessMoving: true })).toBe(true);
    expect(await coveredUntil()).not.toBe(before);
    await expectTotalsExact();
  });

  it('take in late records and give back deleted ones, merged members and deleted members', async () => {
    // Late: completed inside the covered spans, stored now.
    await record(
      t,
      tenant,
      records(Date.now() - 15 * minute, 60).map((spec) => ({ ...spec, completedAt: new Date(Date.parse(spec.completedAt) - 20 * minute).toISOString() })),
    );
    await expectTotalsExact();
    const [target] = await executeRows<{ member_id: number; activity_id: number }>(
      t.database.db,
      sql`select member_id, activity_id from activity_records
      where account_id = ${tenant.accountId} and not one_time order by completed_at desc limit 1 offset 40`,
    );
    await t.database.db.transaction((tx) => deleteRecords(tx, tenant.accountId, Number(target.member_id), { activityId: Number(target.activity_id) }));
    await expectTotalsExact();
    // The two busiest members merge: the survivor's totals become the sum.
    await t.database.db.transaction((tx) => mergeInto(tx, { id: memberIds[1], accountId: tenant.accountId }, { id: memberIds[0], accountId: tenant.accountId }));
    await expectTotalsExact();
    const deleted = await t.graphql(tenant.apiKey, 'mutation($id: ID!) { deleteMember(id: $id) }', { id: String(memberIds[2]) });
    expect(deleted.body.errors, JSON.stringify(deleted.body.errors)).toBeUndefined();
    await expectTotalsExact();
    await coverUntil(t.database.db, tenant.accountId, new Date(Date.now() - 2 * minute));
    await expectTotalsExact();
  });

  it('take in records of now that a worker ahead of this clock already covered, in a batch and one by one', async () => {
    // Recent records are first stored in one statement, which refuses any inside the coverage (and
    // stores nothing); the transaction they are then stored in counts them. A coverage one minute
    // ahead makes records of now late.
    await coverUntil(t.database.db, tenant.accountId, new Date(Date.now() + minute));
    const now = Date.now();
    const stored = async () => (await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from activity_records where account_id = ${tenant.accountId}`))[0].n;
    const before = await stored();
    const recent = Array.from({ length: 20 }, (_, index) => ({
      activityId: activityIds[index % activityIds.length],
      memberId: memberIds[(index * 7) % memberIds.length],
      completedAt: new Date(now - index * 1000).toISOString(),
    }));
    expect(await record(t, tenant, recent)).toMatchObject({ created: 20, repeated: 0 });
    for (const index of [0, 1, 2]) {
      const response = await t.rest(tenant, 'POST', '/activity/record', { activityid: activityIds[index], id: memberIds[index + 3], marker: `now-${index}` });
      expect(response.json).toMatchObject({ Result: true, Repeated: false, Queued: false });
    }
    expect(await stored()).toBe(before + 23);
    await expectTotalsExact();
    await coverUntil(t.database.db, tenant.accountId, new Date(Date.now() - 2 * minute));
    await expectTotalsExact();
  });

  // Two sessions at once: PostgreSQL only. The fold is held open by holding its lock; the claim's
  // wait for a statement held open is seen in pg_locks rather than timed.
  it.skipIf(!process.env.TEST_DATABASE_URL)('store records of now while a worker folds, without waiting for it', async () => {
    const after = (await claimedUntil()).getTime();
    let recording: Promise<unknown> | undefined;
    await t.database.db.transaction(async (tx) => {
      // What advanceWindows holds while it folds, after its claim.
      await holdCoverageLock(tx, tenant.accountId, 'exclusive');
      recording = record(
        t,
        tenant,
        Array.from({ length: 10 }, (_, index) => ({
          activityId: activityIds[index % activityIds.length],
          memberId: memberIds[index + 3],
          completedAt: new Date(after + (index + 1) * 1000).toISOString(),
        })),
      );
      expect(await settledOrWaiting(recording)).toBe('settled');
    });
    await recording;
    await expectTotalsExact();
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)("make a worker's claim wait for records being stored in one statement, which its fold then counts", async () => {
    const at = new Date((await claimedUntil()).getTime() + 2000);
    const scope = { db: t.database.db, accountId: tenant.accountId, applicationId: tenant.applicationId };
    const rows = await prepareRecords(scope, [{ activityId: String(activityIds[0]), memberId: String(memberIds[5]), completedAt: at }], at);
    let moving: Promise<boolean> | undefined;
    await t.database.db.transaction(async (tx) => {
      // The one statement of a batch, held uncommitted here by running it in a transaction.
      await insertRecordsAlone(tx, rows);
      moving = advanceWindows(t.database.db, tenant.accountId, new Date(at.getTime() + 1000));
      expect(await settledOrWaiting(moving)).toBe('waiting');
    });
    await moving;
    expect((await coveredWindowEnds()).every((until) => until > at.getTime())).toBe(true);
    await expectTotalsExact();
  });

  it('move members between groups when their country, gender or birth date changes', async () => {
    const update = 'mutation($id: ID!, $input: UpdateMemberInput!) { updateMember(id: $id, input: $input) { member { id } } }';
    for (const [index, input] of [
      [3, { country: 'FR' }],
      [4, { gender: 'F', birthDate: yearsAgo(30) }],
      [5, { country: 'GB', gender: 'M' }],
      [6, { firstName: 'Unchanged groups' }],
    ] as const) {
      const { body } = await t.graphql(tenant.apiKey, update, { id: String(memberIds[index]), input });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      await expectGroupsExact(t.database.db, tenant.accountId);
    }
    // A merge fills the survivor's missing profile fields from the merged member's.
    const [pair] = await executeRows<{ survivor: number; merged: number }>(
      t.database.db,
      sql`
      select s.id as survivor, m.id as merged from members s join members m on m.account_id = s.account_id and m.id <> s.id
      where s.account_id = ${tenant.accountId} and s.merged_into_id is null and m.merged_into_id is null
        and s.country is null and m.country is not null
        and exists (select 1 from score_window_totals t where t.account_id = s.account_id and t.member_id = s.id and t.brand_id <> 0)
      order by s.id, m.id limit 1`,
    );
    expect(pair).toBeDefined();
    const into = { id: Number(pair.survivor), accountId: tenant.accountId };
    await t.database.db.transaction((tx) => mergeInto(tx, into, { id: Number(pair.merged), accountId: tenant.accountId }));
    await expectTotalsExact();
  });

  it("move an activity's members between type groups when its type changes", async () => {
    const edit = 'mutation($id: ID!, $input: EditActivityInput!) { editActivity(id: $id, input: $input) { id type } }';
    // Listened → Shared (members who also stream stay Listened), then back, then a name-only edit.
    for (const input of [{ type: 'SHARED' }, { type: 'LISTENED' }, { type: 'WATCHED' }, { name: 'Listen again' }]) {
      const { body } = await t.graphql(tenant.apiKey, edit, { id: String(activityIds[0]), input });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      await expectGroupsExact(t.database.db, tenant.accountId);
    }
  });

  // Many windows, filters and orders, each against a brute-force query: given more than the default time.
  it('serve rankings, totals and positions equal to the brute force over the requested window', async () => {
    const listing = `query($filter: MemberFilter, $window: WindowInput, $sort: SortDirection, $first: Int, $after: String) {
      members(filter: $filter, window: $window, sort: $sort, first: $first, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } edges { node { id score { points activityCount } position } }
      }
    }`;
    let served = 0;
    for (const { period } of standardWindows) {
      for (const filter of [{}, { brandId: String(brandIds[0]) }, { countries: ['GB'] }, { brandId: String(brandIds[1]), countries: ['US'] }]) {
        for (const sort of ['DESC', 'ASC'] as const) {
          const window = { period } as WindowInput;
          const resolved = resolveWindow(window, listingWindow);
          const plan = (await chooseTotals(t.database.db, await compileFilter(t.database.db, tenant.accountId, filter, resolved), resolved)).plan;
          if (plan) served += 1;
          const nodes: { id: number; points: number; activityCount: number; position: string }[] = [];
          let after: string | undefined;
          let totalCount = 0;
          for (let page = 0; page < 50; page += 1) {
            const { body } = await t.graphql(tenant.apiKey, listing, { filter, window, sort, first: 4, after });
            expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
            totalCount = body.data.members.totalCount;
            nodes.push(...body.data.members.edges.map(({ node }: any) => ({ id: Number(node.id), points: node.score.points, activityCount: node.score.activityCount, position: node.position })));
            if (!body.data.members.pageInfo.hasNextPage) break;
            after = body.data.members.pageInfo.endCursor;
          }
          const brute = await executeRows<{ id: number; points: number; activity_count: number }>(
            t.database.db,
            sql`
            select r.member_id as id, sum(r.points)::int as points, count(*)::int as activity_count
            from activity_records r join members m on m.account_id = r.account_id and m.id = r.member_id
            where r.account_id = ${tenant.accountId} and not r.one_time
              and r.completed_at >= ${resolved.start.toISOString()}::timestamptz and r.completed_at < ${resolved.end.toISOString()}::timestamptz
              ${filter.brandId ? sql`and r.brand_id = ${Number(filter.brandId)}` : sql``}
              ${filter.countries ? sql`and upper(m.country) = ${filter.countries[0]}` : sql``}
            group by r.member_id`,
          );
          const direction = sort === 'DESC' ? -1 : 1;
          const expected = brute
            .map((row) => ({ id: Number(row.id), points: Number(row.points), activityCount: Number(row.activity_count) }))
            .sort((a, b) => direction * (a.points - b.points) || a.id - b.id);
          const label = JSON.stringify({ period, filter, sort });
          expect(
            nodes.map(({ id, points, activityCount }) => ({ id, points, activityCount })),
            label,
          ).toEqual(expected);
          expect(totalCount, label).toBe(expected.length);
          expect(
            nodes.map((node) => node.position),
            label,
          ).toEqual(expected.map((row) => String(1 + expected.filter((other) => other.points > row.points).length)));
        }
      }
    }
    // Every case was read from the totals (the windows were moved two minutes ago).
    expect(served).toBe(standardWindows.length * 8);
  }, 120_000);

  it('serve the location, age, gender and members reports equal to the brute force over the requested window', async () => {
    const reports = `query($brandId: ID!, $window: WindowInput) {
      brandStats(brandId: $brandId) {
        location(window: $window) { totalActivities totalMembers countries { country actions members } }
        age(window: $window) { range members }
        gender(window: $window) { gender members }
        members(window: $window) { activeMembers inactiveMembers totalMembers }
      }
    }`;
    await forEachKeptReportCase(async ({ period, brandId, window, inWindow }) => {
      const { body } = await t.graphql(tenant.apiKey, reports, { brandId: String(brandId), window });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const active = sql`select r.member_id, count(*)::int as records from activity_records r where ${inWindow} group by r.member_id`;
      const by = (bucket: SQL) =>
        executeRows<{ bucket: string | null; members: number; records: number }>(
          t.database.db,
          sql`
          select ${bucket} as bucket, count(*)::int as members, sum(a.records)::int as records
          from (${active}) a join members m on m.account_id = ${tenant.accountId} and m.id = a.member_id
          group by 1 order by 1`,
        );
      const countries = await by(sql`upper(m.country)`);
      const label = JSON.stringify({ period, brandId });
      const stats = body.data.brandStats;
      expect(stats.location, label).toEqual({
        totalActivities: countries.reduce((total, row) => total + Number(row.records), 0),
        totalMembers: countries.reduce((total, row) => total + Number(row.members), 0),
        countries: countries
          .filter((row) => row.bucket !== null)
          .map((row) => ({ country: row.bucket, actions: Number(row.records), members: Number(row.members) }))
          .sort((a, b) => b.actions - a.actions || b.members - a.members || a.country!.localeCompare(b.country!)),
      });
      const buckets = (rows: { bucket: string | null; members: number }[]) => rows.map((row) => [row.bucket, Number(row.members)]);
      expect(
        stats.age.map((row: any) => [row.range, row.members]),
        label,
      ).toEqual(buckets(await by(ageRangeOf(sql`m.birth_date`))));
      expect(
        stats.gender.map((row: any) => [row.gender, row.members]),
        label,
      ).toEqual(buckets(await by(sql`coalesce(m.gender, 'unknown')`)));
      const [brandMembers] = await executeRows<{ total: number }>(
        t.database.db,
        sql`
          select count(*)::int as total from (
            select member_id from optins where account_id = ${tenant.accountId} and brand_id = ${brandId} and opted_out_at is null
            union select member_id from activity_records where account_id = ${tenant.accountId} and brand_id = ${brandId}) b
          join members m on m.account_id = ${tenant.accountId} and m.id = b.member_id and m.merged_into_id is null`,
      );
      const activeMembers = countries.reduce((total, row) => total + Number(row.members), 0);
      expect(stats.members, label).toEqual({ activeMembers, inactiveMembers: Number(brandMembers.total) - activeMembers, totalMembers: Number(brandMembers.total) });
    });
  });
});

describe('a first coverage in one pass (bulk loads)', () => {
  it('builds the totals, activity totals, groups and kept days equal to the brute force, in parallel sessions on PostgreSQL', async () => {
    const other = await t.tenant('enterprise');
    const brandId = await insertBrand(t, other, 'East Records');
    const activities = [
      await createActivity(t, other, { name: 'Listen', type: 'Listened', brandid: brandId, points: 2, service: 'spotify' }),
      await createActivity(t, other, { name: 'Share', type: 'Shared', brandid: brandId, points: 5 }),
      await createActivity(t, other, { name: 'Visit', type: 'Visited', points: 1 }),
    ];
    const ids = await insertMembers(
      t,
      other,
      Array.from({ length: 20 }, () => ({ country: random.pick(['GB', 'US', undefined]), gender: random.pick(['F', 'M']) })),
    );
    const now = Date.now();
    await record(
      t,
      other,
      Array.from({ length: 300 }, () => ({ activityId: random.pick(activities), memberId: random.pick(ids), completedAt: new Date(now - random() * 200 * day).toISOString() })),
    );
    const parallel = t.database.kind === 'postgres';
    const until = new Date(now - minute);
    await buildWindows(t.database.db, other.accountId, until, { parallel });
    const totals = await keptTotalsExact(t.database.db, other.accountId);
    expect(totals).toBeGreaterThan(50);
    expect(await keptDaysExact(t.database.db, other.accountId)).toBeGreaterThan(50);
    const [kept] = await executeRows<{ days: number }>(t.database.db, sql`select count(*)::int as days from timeline_days_kept where account_id = ${other.accountId}`);
    expect(Number(kept.days)).toBe(keptDayList(until).length);
    // A second first coverage is refused and leaves the first as it was.
    await expect(buildWindows(t.database.db, other.accountId, until, { parallel })).rejects.toThrow(/already has covered windows/);
    expect(await keptTotalsExact(t.database.db, other.accountId)).toBe(totals);
  });
});

describe('the activity report from the kept activity groups', () => {
  it('equals the brute force over the requested window, by activity, type and network, with every group shown or some', async () => {
    const report = `query($brandId: ID!, $window: WindowInput, $groupBy: ActivityGrouping, $limit: Int) {
      brandStats(brandId: $brandId) {
        activity(window: $window, groupBy: $groupBy, limit: $limit) { items { activityId activity type service count distinctMembers } totalCount totalMembers }
      }
    }`;
    const keys = { ACTIVITY: sql`r.activity_id::text`, TYPE: sql`d.type`, SERVICE: sql`r.service` };
    await forEachKeptReportCase(async ({ period, brandId, window, inWindow }) => {
      for (const [groupBy, key] of Object.entries(keys)) {
        const groups = await executeRows<{ key: string | null; count: number; members: number; name: string; type: string; service: string | null }>(
          t.database.db,
          sql`select ${key} as key, count(*)::int as count, count(distinct r.member_id)::int as members,
              min(d.name) as name, min(d.type) as type, min(d.service) as service
            from activity_records r join activity_definitions d on d.account_id = r.account_id and d.id = r.activity_id
            where ${inWindow} group by 1 order by 2 desc, 1`,
        );
        for (const limit of [10, 1]) {
          const label = JSON.stringify({ period, brandId, groupBy, limit });
          const { body } = await t.graphql(tenant.apiKey, report, { brandId: String(brandId), window, groupBy, limit });
          expect(body.errors, label + JSON.stringify(body.errors)).toBeUndefined();
          const shown = groups.slice(0, limit);
          const [distinct] = shown.length
            ? await executeRows<{ members: number }>(
                t.database.db,
                sql`select count(distinct r.member_id)::int as members
                  from activity_records r join activity_definitions d on d.account_id = r.account_id and d.id = r.activity_id
                  where ${inWindow} and coalesce(${key}, '') in ${shown.map((group) => group.key ?? '')}`,
              )
            : [{ members: 0 }];
          expect(body.data.brandStats.activity, label).toEqual({
            items: shown.map((group) => ({
              activityId: groupBy === 'ACTIVITY' ? group.key : null,
              activity: groupBy === 'ACTIVITY' ? group.name : groupBy === 'TYPE' ? group.key : null,
              // GraphQL names the type (LISTENED) the table holds as a word (Listened).
              type: groupBy === 'SERVICE' ? null : activityTypeWords.name((groupBy === 'TYPE' ? group.key : group.type) as ActivityType),
              service: groupBy === 'TYPE' ? null : groupBy === 'SERVICE' ? group.key : group.service,
              count: Number(group.count),
              distinctMembers: Number(group.members),
            })),
            totalCount: shown.reduce((total, group) => total + Number(group.count), 0),
            totalMembers: Number(distinct.members),
          });
        }
      }
    });
  });
});

describe('the timeline report from kept days', () => {
  const timeline = `query($brandId: ID!, $window: WindowInput) {
    brandStats(brandId: $brandId) { timeline(window: $window) { service days { date dayOfYear count distinctMembers } totalCount totalMembers } }
  }`;

  const expectKeptDaysExact = () => keptDaysExact(t.database.db, tenant.accountId);

  /** Every standard window and brand: the report against the raw records of the window. */
  async function expectTimelinesExact() {
    await forEachKeptReportCase(async ({ period, brandId, window, resolved, inWindow }) => {
      const rows = await executeRows<{ service: string | null; day: string | null; count: number; members: number }>(
        t.database.db,
        sql`select r.service, ((r.completed_at at time zone 'UTC')::date)::text as day, count(*)::int as count, count(distinct r.member_id)::int as members
          from activity_records r where ${inWindow}
          group by grouping sets ((r.service, (r.completed_at at time zone 'UTC')::date), (r.service))`,
      );
      const expected = serviceTimelines(
        resolved,
        rows.map((row) => ({ service: row.service, day: row.day, count: Number(row.count), distinctMembers: Number(row.members) })),
      );
      const { body } = await t.graphql(tenant.apiKey, timeline, { brandId: String(brandId), window });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      expect(body.data.brandStats.timeline, JSON.stringify({ period, brandId })).toEqual(expected);
    });
  }

  const staleDays = () => executeRows<{ day: string }>(t.database.db, sql`select day::text from timeline_days_stale where account_id = ${tenant.accountId}`).then((rows) => rows.map((row) => row.day));

  it('keeps ended days exactly, marks days changed afterwards stale, and answers exactly either way', async () => {
    await keepTimelineDays(t.database.db, tenant.accountId, new Date());
    expect(await expectKeptDaysExact()).toBeGreaterThan(50);
    await expectTimelinesExact();

    // A late record three days back, a deletion and a merge change kept days: they go stale.
    const lateAt = new Date(Date.now() - 3 * day);
    await record(t, tenant, [{ activityId: activityIds[0], memberId: memberIds[7], completedAt: lateAt.toISOString() }]);
    expect(await staleDays()).toEqual([isoDay(lateAt)]);
    await expectTimelinesExact();
    const [target] = await executeRows<{ member_id: number; activity_id: number }>(
      t.database.db,
      sql`select member_id, activity_id from activity_records
      where account_id = ${tenant.accountId} and not one_time and brand_id is not null and completed_at < now() - interval '2 days'
      order by completed_at desc limit 1 offset 5`,
    );
    await t.database.db.transaction((tx) => deleteRecords(tx, tenant.accountId, Number(target.member_id), { activityId: Number(target.activity_id) }));
    await t.database.db.transaction((tx) => mergeInto(tx, { id: memberIds[8], accountId: tenant.accountId }, { id: memberIds[9], accountId: tenant.accountId }));
    expect((await staleDays()).length).toBeGreaterThan(3);
    await expectKeptDaysExact();
    await expectTimelinesExact();

    // The worker makes them again.
    await keepTimelineDays(t.database.db, tenant.accountId, new Date());
    expect(await staleDays()).toEqual([]);
    await expectKeptDaysExact();
    await expectTimelinesExact();
  });
});

describe('a stop of more than a day', () => {
  it('is caught up in steps of a bounded number of records, exact after each, resumed by a worker after a stop half way, its lag on /metrics and logged once', async () => {
    const other = await t.tenant('enterprise');
    const brandId = await insertBrand(t, other, 'West Records');
    const activities = [
      await createActivity(t, other, { name: 'Listen', type: 'Listened', brandid: brandId, points: 2, service: 'spotify' }),
      await createActivity(t, other, { name: 'Share', type: 'Shared', brandid: brandId, points: 5 }),
      await createActivity(t, other, { name: 'Visit', type: 'Visited', points: 1 }),
    ];
    const ids = await insertMembers(
      t,
      other,
      Array.from({ length: 25 }, () => ({ country: random.pick(['GB', 'US', undefined]), gender: random.pick(['F', 'M']) })),
    );
    const now = Date.now();
    // Distinct instants, most of them in the last three days (the stop), the rest over seven months.
    const times = new Set<number>();
    while (times.size < 400) times.add(Math.floor(now - (random() < 0.6 ? random() * 3 * day : random() * 210 * day)));
    await record(
      t,
      other,
      [...times].map((at) => ({ activityId: random.pick(activities), memberId: random.pick(ids), completedAt: new Date(at).toISOString() })),
    );
    // The windows as a gateway stopped 30 hours ago left them.
    await buildWindows(t.database.db, other.accountId, new Date(now - 30 * 60 * minute));
    await keptTotalsExact(t.database.db, other.accountId);

    const windowsOf = async () =>
      executeRows<{ window_id: number; from: string; until: string }>(
        t.database.db,
        sql`select window_id, covered_from::text as from, covered_until::text as until
        from score_windows where account_id = ${other.accountId} order by window_id`,
      );
    const recordsBetween = async (a: string, b: string) =>
      Number(
        (
          await executeRows<{ n: number }>(
            t.database.db,
            sql`select count(*)::int as n from activity_records where account_id = ${other.accountId}
        and not one_time and completed_at >= least(${a}::timestamptz, ${b}::timestamptz) and completed_at < greatest(${a}::timestamptz, ${b}::timestamptz)`,
          )
        )[0].n,
      );
    // Three steps of at most 40 records each, then the catch-up stops half way.
    for (let step = 0; step < 3; step += 1) {
      const before = await windowsOf();
      expect(await advanceWindows(t.database.db, other.accountId, new Date(Date.now() - 5000), 40)).toBe(false);
      const after = await windowsOf();
      let folded = 0;
      for (const [index, w] of after.entries()) folded += (await recordsBetween(before[index].until, w.until)) + (await recordsBetween(before[index].from, w.from));
      expect(folded).toBeGreaterThan(0);
      expect(folded).toBeLessThanOrEqual(40);
      await keptTotalsExact(t.database.db, other.accountId);
    }

    // A worker resumes where the last step left it (its pass takes every account to a few seconds ago).
    const lines: { level: number; msg: string; accountId?: number }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const worker = new ScoreWindowsWorker(t.database.db, pino({ level: 'info' }, sink), 3_600_000);
    await worker.pass();
    await keptTotalsExact(t.database.db, other.accountId);
    for (const w of await windowsOf()) expect(Date.parse(w.until)).toBeGreaterThan(Date.now() - minute);
    const lagLines = () => lines.filter((line) => line.accountId === other.accountId).map((line) => line.msg);
    expect(lagLines()).toEqual([expect.stringMatching(/lag/), expect.stringMatching(/caught up/)]);
    await worker.pass();
    expect(lagLines()).toHaveLength(2);

    const metrics = await createMetrics({ scoreWindowLag: () => worker.lagSeconds() }).registry.metrics();
    const lag = Number(metrics.match(new RegExp(`score_window_lag_seconds\\{account="${other.accountId}"\\} ([0-9.e+-]+)`))?.[1]);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(60);
    expect(metrics).toMatch(/score_window_lag_seconds\{account="max"\} [0-9.e+-]+/);
  });

  it('catches up the windows far behind one at a time, one week first, and a step aborted half way leaves the last step committed, resumed exactly', async () => {
    const other = await t.tenant('enterprise');
    const brandId = await insertBrand(t, other, 'East Records');
    const activities = [
      await createActivity(t, other, { name: 'Listen', type: 'Listened', brandid: brandId, points: 2, service: 'spotify' }),
      await createActivity(t, other, { name: 'Visit', type: 'Visited', points: 1 }),
    ];
    const ids = await insertMembers(
      t,
      other,
      Array.from({ length: 20 }, () => ({ country: random.pick(['GB', 'US', undefined]), gender: random.pick(['F', 'M']) })),
    );
    const now = Date.now();
    const times = new Set<number>();
    while (times.size < 300) times.add(Math.floor(now - (random() < 0.6 ? random() * 3 * day : random() * 210 * day)));
    await record(
      t,
      other,
      [...times].map((at) => ({ activityId: random.pick(activities), memberId: random.pick(ids), completedAt: new Date(at).toISOString() })),
    );
    // A stop of 30 hours.
    await buildWindows(t.database.db, other.accountId, new Date(now - 30 * 60 * minute));
    const windowsOf = async () =>
      executeRows<{ window_id: number; from: string; until: string }>(
        t.database.db,
        sql`select window_id, covered_from::text as from, covered_until::text as until
        from score_windows where account_id = ${other.accountId} order by window_id`,
      );
    const target = new Date(Date.now() - 5000);
    // Rankings correct at most 30 records here: every window is beyond that, so the week moves alone first.
    const step = () => advanceWindows(t.database.db, other.accountId, target, 40, { correctionRecords: 30 });
    const start = await windowsOf();
    expect(await step()).toBe(false);
    const first = await windowsOf();
    expect(first.filter((w, index) => w.until !== start[index].until).map((w) => Number(w.window_id))).toEqual([2]);
    await keptTotalsExact(t.database.db, other.accountId);

    // A step whose transaction fails after its fold, as it saves the coverage (a process killed
    // there leaves the same: the server rolls its transaction back): nothing of it stays.
    // A check constraint, not a trigger: Citus refuses triggers on distributed tables.
    await t.database.db.execute(sql.raw(`alter table score_windows add constraint test_refuse_coverage check (account_id <> ${other.accountId}) not valid`));
    try {
      const failure = await step().then(
        () => undefined,
        (error: Error) => error,
      );
      expect(String((failure?.cause as Error | undefined)?.message ?? failure?.message)).toMatch(/test_refuse_coverage/);
    } finally {
      await t.database.db.execute(sql.raw('alter table score_windows drop constraint test_refuse_coverage'));
    }
    expect(await windowsOf()).toEqual(first);
    await keptTotalsExact(t.database.db, other.accountId);

    // Resumed: the six months next, then the others, exact after every step, until all reach the target.
    const moved: number[][] = [];
    for (;;) {
      const before = await windowsOf();
      const done = await step();
      const after = await windowsOf();
      moved.push(after.filter((w, index) => w.until !== before[index].until || w.from !== before[index].from).map((w) => Number(w.window_id)));
      await keptTotalsExact(t.database.db, other.accountId);
      if (done) break;
    }
    // The steps that moved one window took them in the catch-up order, the week first; the last steps moved all of them.
    const alone = [...new Set(moved.filter((ids) => ids.length === 1).map(([id]) => id))];
    expect(alone[0]).toBe(2);
    expect(alone).toEqual(catchUpOrder.filter((id) => alone.includes(id)));
    expect(moved.at(-1)!.length).toBeGreaterThan(1);
    for (const w of await windowsOf()) expect(Date.parse(w.until)).toBe(target.getTime());
  }, 300_000);
});
