import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue, type ErrorCode } from '../../src/core/errors.js';
import { executeRows } from '../../src/db/rows.js';
import { advanceWindows } from '../../src/modules/scoring/score-windows.worker.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { keptTotalsExact } from '../support/kept-structures.js';
import { makers } from './world.js';

/**
 * Records and opt-ins sent while their member is merged into another: single records (one
 * statement each, grouped), batches, queued records (`async=1`) and opt-ins race each merge. Once
 * the merge answered, everything acknowledged for the merged member belongs to the survivor: its
 * records, rollup rows, kept totals and opt-ins; nothing names the merged member any more. Each
 * answer is a success or a documented code (404, 409), never a 500. Meaningful on PostgreSQL, where
 * the calls run in parallel transactions; on PGlite they are serialised, and the same checks hold.
 */
let t: TestGateway;
let tenant: Tenant;
let make: ReturnType<typeof makers>;
let brand: string;
let activity: string;
const segments: string[] = [];

beforeAll(async () => {
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000000' });
  tenant = await t.tenant('enterprise');
  make = makers(t, tenant, 'merge-race');
  brand = await make.brand();
  activity = await make.activity(brand);
  for (let n = 0; n < 3; n += 1) segments.push(await make.segment());
  // The kept windows exist before the races, so the records they take are counted into their totals.
  await make.record(activity, (await make.member()).id);
  await t.gateway.scoreWindows.pass();
}, 120_000);
afterAll(() => t.close());

interface Round {
  into: string;
  from: string;
  merge: number;
  /** Tags (`category`) of records acknowledged with 200, and every status answered. */
  acknowledged: string[];
  optedIn: string[];
  statuses: number[];
}

const recordDocument = `mutation ($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }`;
const mergeDocument = `mutation ($into: ID!, $from: ID!, $token: String!) { mergeMembers(intoId: $into, fromId: $from, fromAccessToken: $token) { member { id } } }`;
const optInDocument = `mutation ($input: OptInInput!) { optIn(input: $input) { id } }`;

/** A GraphQL answer as the HTTP status of its first error's code (200 without errors). */
const statusOf = (answer: { status: number; body: { errors?: { extensions?: { code?: string } }[] } }) =>
  answer.body.errors ? (errorCatalogue[answer.body.errors[0].extensions?.code as ErrorCode]?.status ?? 500) : answer.status;

/** One merge of a new pair, with records of every kind and opt-ins for the merged member in flight. */
async function race(round: number): Promise<Round> {
  const [into, from] = [await make.member(), await make.member()];
  const result: Round = { into: into.id, from: from.id, merge: 0, acknowledged: [], optedIn: [], statuses: [] };
  const single = async (n: number, queued: boolean) => {
    const tag = `${queued ? 'queued' : 'single'}-${round}-${n}`;
    const answer = await t.rest(tenant, 'POST', '/activity/record', { activityid: activity, id: from.id, category: tag, ...(queued ? { async: 1 } : {}) }, { key: 'header' });
    result.statuses.push(answer.status);
    if (answer.status === 200) result.acknowledged.push(tag);
  };
  const batch = async (n: number) => {
    const tags = Array.from({ length: 4 }, (_, i) => `batch-${round}-${n}-${i}`);
    const answer = await t.graphql(tenant.apiKey, recordDocument, { input: tags.map((category) => ({ activityId: activity, memberId: from.id, category })) });
    result.statuses.push(statusOf(answer));
    if (!answer.body.errors && answer.status === 200) result.acknowledged.push(...tags);
  };
  const optIn = async (segmentId: string) => {
    const answer = await t.graphql(tenant.apiKey, optInDocument, { input: { memberId: from.id, segmentId } });
    result.statuses.push(statusOf(answer));
    if (!answer.body.errors) result.optedIn.push(segmentId);
  };
  const merge = async () => {
    const answer = await t.graphql(tenant.apiKey, mergeDocument, { into: into.id, from: from.id, token: from.accessToken });
    result.merge = statusOf(answer);
  };
  await Promise.all([
    ...Array.from({ length: 6 }, (_, n) => single(n, false)),
    batch(0),
    ...Array.from({ length: 3 }, (_, n) => single(n, true)),
    merge(),
    ...segments.map(optIn),
    ...Array.from({ length: 6 }, (_, n) => single(n + 6, false)),
    batch(1),
    ...Array.from({ length: 3 }, (_, n) => single(n + 3, true)),
  ]);
  return result;
}

describe('records and opt-ins racing a merge', () => {
  it('belong to the survivor once the merge answered: records, rollups, kept totals and opt-ins (15 merges)', async () => {
    const rounds: Round[] = [];
    for (let round = 0; round < 15; round += 1) rounds.push(await race(round));
    await t.gateway.activityQueue.drain();
    // The kept windows take in everything the races recorded, then hold still for the checks. The
    // worker's own pass stops a few seconds short of now, so on a fast machine it would take in
    // none of the races: the windows are moved to now directly, step by step as the worker does.
    await t.gateway.scoreWindows.stop();
    const now = new Date();
    while (!(await advanceWindows(t.database.db, tenant.accountId, now)));

    expect.soft(rounds.map((round) => round.merge)).toEqual(rounds.map(() => 200));
    const statuses = rounds.flatMap((round) => round.statuses);
    expect.soft(statuses.filter((status) => ![200, 404, 409].includes(status))).toEqual([]);

    const froms = `{${rounds.map((round) => round.from).join(',')}}`;
    const left = await executeRows<{ kind: string; n: number }>(
      t.database.db,
      sql`
      select 'records' as kind, count(*)::int as n from activity_records where account_id = ${tenant.accountId} and member_id = any(${froms}::int[])
      union all select 'rollups', count(*)::int from member_activity_daily where account_id = ${tenant.accountId} and member_id = any(${froms}::int[])
      union all select 'opt-ins', count(*)::int from optins where account_id = ${tenant.accountId} and member_id = any(${froms}::int[])
      union all select 'kept totals', count(*)::int from score_window_totals where account_id = ${tenant.accountId} and member_id = any(${froms}::int[])
      union all select 'kept activity totals', count(*)::int from score_window_activity_totals where account_id = ${tenant.accountId} and member_id = any(${froms}::int[])`,
    );
    expect.soft(left.map((row) => `${row.kind}: ${row.n}`)).toEqual(['records: 0', 'rollups: 0', 'opt-ins: 0', 'kept totals: 0', 'kept activity totals: 0']);

    const stored = await executeRows<{ category: string; member_id: number }>(
      t.database.db,
      sql`
      select category, member_id from activity_records where account_id = ${tenant.accountId} and category like '%-%-%'`,
    );
    const ownerOf = new Map(stored.map((row) => [row.category, Number(row.member_id)]));
    const misplaced = rounds.flatMap((round) => round.acknowledged.filter((tag) => ownerOf.get(tag) !== Number(round.into)).map((tag) => `${tag} on ${ownerOf.get(tag) ?? 'nobody'}`));
    expect.soft(misplaced).toEqual([]);

    const current = await executeRows<{ member_id: number; segment_id: number }>(
      t.database.db,
      sql`
      select member_id, segment_id from optins where account_id = ${tenant.accountId} and opted_out_at is null`,
    );
    const held = new Set(current.map((row) => `${row.member_id}/${row.segment_id}`));
    const lost = rounds.flatMap((round) => round.optedIn.filter((segment) => !held.has(`${round.into}/${segment}`)).map((segment) => `${round.from} → ${round.into}: ${segment}`));
    expect.soft(lost).toEqual([]);

    // The daily rollup equals the records it sums, and the kept totals the brute force over them.
    const rollupGap = await executeRows<{ n: number }>(
      t.database.db,
      sql`
      select count(*)::int as n from (
        select member_id, (completed_at at time zone 'UTC')::date as day, activity_id, count(*)::int as count, sum(points)::int as points
        from activity_records where account_id = ${tenant.accountId} group by 1, 2, 3
        except
        select member_id, day, activity_id, sum(count)::int, sum(points)::int from member_activity_daily where account_id = ${tenant.accountId} group by 1, 2, 3
      ) differing`,
    );
    expect.soft(Number(rollupGap[0].n)).toBe(0);
    const [rollupRows] = await executeRows<{ n: number }>(
      t.database.db,
      sql`
      select count(*)::int as n from member_activity_daily d where account_id = ${tenant.accountId}
        and not exists (select 1 from activity_records r where r.account_id = d.account_id and r.member_id = d.member_id and r.activity_id = d.activity_id
          and (r.completed_at at time zone 'UTC')::date = d.day)`,
    );
    expect.soft(Number(rollupRows.n)).toBe(0);
    expect.soft(await keptTotalsExact(t.database.db, tenant.accountId)).toBeGreaterThan(0);
  }, 300_000);
});
