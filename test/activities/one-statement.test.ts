import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import { activityRecords, brands, members, memberServices, scoreWindowClaims } from '../../src/db/schema/index.js';
import { prepareRecords, storeRecordGroupsAs } from '../../src/modules/activities/activities.service.js';
import type { RecordActivityInput } from '../../src/modules/activities/activities.types.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import type { GraphqlAnswer } from '../support/rest.js';
import { rollupAgainstRecords } from '../support/kept-differences.js';
import { createActivity, insertBrand, insertMembers } from '../support/activity-data.js';

let t: TestGateway;
let app: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  // No kept windows, so no claim: every record of now is admitted by the one statement.
  await t.gateway.scoreWindows.stop();
  app = await t.tenant('advanced');
});
afterAll(() => t.close());

const mutation = `mutation($input: RecordActivityInput!) { recordActivity(input: $input) { created record { id } } }`;

/** What a stored record is made of, to compare with the row the two steps would store. */
const stored = (row: Record<string, unknown>) => {
  const { memberId, activityId, brandId, service, marker, points, oneTime, link, media, category, content, value, completedAt, applicationId } = row;
  return { memberId, activityId, brandId, service, marker, points, oneTime, link, media, category, content, value, completedAt, applicationId };
};

/**
 * Both forms of a group's write, on every engine: one statement (PostgreSQL, PGlite), and the
 * transaction of plain statements a Citus coordinator takes (insertCheckedRecordsInSteps): the
 * lookup, the insert, the rollup, and with a brand the stale days, the brand's pairs and, when a
 * pair is new, their counts.
 */
describe.each(['statement', 'steps'] as const)('single records of now, looked up and stored as one %s', (form) => {
  beforeAll(async () => {
    storeRecordGroupsAs(t.database.db, form);
    // The claim a test below sets would send every later record of a few seconds ago to the two steps.
    await t.database.db
      .update(scoreWindowClaims)
      .set({ claimedUntil: sql`'-infinity'` })
      .where(eq(scoreWindowClaims.accountId, app.accountId));
  });
  afterAll(() => storeRecordGroupsAs(t.database.db, 'statement'));
  const named = (name: string) => `${name} (${form})`;
  /**
   * A record's round trips: the statement's one (and a repeat's read of the record stored first),
   * or at most the steps' six statements (three for a record with no brand), counted without the
   * transaction's begin and commit.
   */
  const expectRoundTrips = (header: unknown, { created, what }: { created: boolean | undefined; what?: string }) => {
    if (form === 'statement') expect(header, what).toBe(created === false ? '2' : '1');
    else expect(Number(header), what).toBeLessThanOrEqual(created === false ? 7 : 6);
  };

  it('costs one round trip for a record alone in one statement, three statements in steps', async () => {
    const activity = await createActivity(t, app, { name: named('Hum'), type: 'Listened', points: 1 });
    const [member] = await insertMembers(t, app, [{}]);
    const answer = await t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: named('hum-alone') });
    expect(answer.json).toMatchObject({ Result: true, Repeated: false });
    expect(answer.headers['x-sql-round-trips']).toBe(form === 'statement' ? '1' : '3');
  });

  /** Members, brands and activities of every kind a record's lookups meet, and records that meet each. */
  async function cases(label: string) {
    const brand = await insertBrand(t, app, `${label} Label`);
    const otherBrand = await insertBrand(t, app, `${label} Other Label`);
    const goneBrand = await insertBrand(t, app, `${label} Gone`);
    await t.database.db.update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, goneBrand));
    const stream = await createActivity(t, app, { name: `${label} Stream`, type: 'Listened', service: 'spotify', brandid: brand, points: 3 });
    const join = await createActivity(t, app, { name: `${label} Join`, type: 'Custom', points: 7, onetime: 1 });
    const retired = await createActivity(t, app, { name: `${label} Retired`, type: 'Custom' });
    await t.rest(app, 'POST', `/activity/${retired}/delete`);
    const [fan, partnered, merged, survivor] = await insertMembers(t, app, [{}, {}, {}, {}]);
    const partnerId = `ext-${partnered}`;
    await t.database.db.update(memberServices).set({ partnerCode: 'acme', partnerId }).where(eq(memberServices.memberId, partnered));
    await t.database.db.update(members).set({ mergedIntoId: survivor }).where(eq(members.id, merged));
    const [stranger] = await insertMembers(t, await t.tenant('advanced'), [{}]);
    const base = { activityId: String(stream), completedAt: new Date(Date.now() - 2_000).toISOString() };
    const marker = `twice-${fan}`;
    const inputs: Record<string, unknown>[] = [
      { ...base, memberId: String(fan) }, // the activity's brand and network
      { ...base, memberId: String(fan), brandId: String(otherBrand), service: 'YouTube', link: 'https://x.example/1', media: 'video', category: 'live', content: { a: 1 }, value: 2.5 },
      { ...base, partnerCode: 'acme', partnerId },
      { ...base, memberId: String(merged) }, // counts for the member it was merged into
      { ...base, memberId: String(fan), marker },
      { ...base, memberId: String(survivor), marker },
      { ...base, activityId: String(join), memberId: String(fan) },
      { ...base, activityId: String(join), memberId: String(fan) },
      { ...base, activityId: String(retired), memberId: String(fan) },
      { ...base, memberId: '999999' },
      { ...base, memberId: String(stranger) },
      { ...base, partnerCode: 'acme', partnerId: 'nobody' },
      { ...base, memberId: String(fan), brandId: String(goneBrand) },
      // Of a record's faults, its activity is reported first, then its member, its brand, and then its own columns.
      { ...base, activityId: '999999', memberId: '999999', brandId: String(goneBrand), service: 'myspace' },
      { ...base, memberId: '999999', brandId: String(goneBrand), service: 'myspace' },
      { ...base, memberId: String(fan), brandId: String(goneBrand), service: 'myspace' },
      { ...base, memberId: String(fan), service: 'myspace' },
      { ...base, memberId: String(fan), completedAt: new Date(Date.now() + 3_600_000).toISOString() },
    ];
    // Expected, record by record, from the batch path's checks: the row it would store, or its error.
    const scope = { db: t.database.db, accountId: app.accountId, applicationId: app.applicationId };
    const revive = (input: Record<string, unknown>) => ({ ...input, completedAt: new Date(input.completedAt as string) }) as unknown as RecordActivityInput;
    const expected = await Promise.all(
      inputs.map((input) =>
        prepareRecords(scope, [revive(input)]).then(
          ([row]) => ({ row, error: undefined }),
          (error: Error & { extensions?: Record<string, unknown> }) => ({ row: undefined, error }),
        ),
      ),
    );
    return {
      inputs,
      expected,
      repeats: [
        [4, 5],
        [6, 7],
      ],
      merged,
      stranger,
    };
  }

  /** Each answer against the expected row or error; a repeat answers the record stored first. */
  async function compare({ inputs, expected, repeats, merged, stranger }: Awaited<ReturnType<typeof cases>>, answers: GraphqlAnswer[]) {
    const ids = answers.map((answer) => answer.body.data?.recordActivity?.record?.id as string | undefined);
    const rows = await t.database.db
      .select()
      .from(activityRecords)
      .where(inArray(activityRecords.id, ids.filter((id) => id !== undefined).map(Number)));
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    answers.forEach((answer, index) => {
      const { row, error } = expected[index];
      const what = JSON.stringify(inputs[index]);
      if (error) {
        expect(answer.body.errors?.[0], what).toMatchObject({ message: error.message, extensions: { code: error.extensions!.code, param: error.extensions!.param } });
        return;
      }
      expect(answer.body.errors, what).toBeUndefined();
      if (answer.body.data.recordActivity.created) expect(stored(byId.get(ids[index]!)!), what).toEqual(stored(row));
    });
    for (const [first, second] of repeats) {
      expect(ids[first]).toBe(ids[second]);
      expect([answers[first], answers[second]].filter((answer) => answer.body.data.recordActivity.created)).toHaveLength(1);
    }
    expect(await t.database.db.select().from(activityRecords).where(eq(activityRecords.memberId, stranger))).toEqual([]);
    expect(rows.map((row) => row.memberId)).not.toContain(merged);
  }

  it('stores and refuses what looking up and then storing would, with the same errors, each record in a bounded number of round trips', async () => {
    const those = await cases(named('One by one'));
    const answers: GraphqlAnswer[] = [];
    for (const input of those.inputs) {
      const answer = await t.graphql(app.apiKey, mutation, { input });
      expectRoundTrips(answer.headers['x-sql-round-trips'], { created: answer.body.data?.recordActivity?.created, what: JSON.stringify(input) });
      answers.push(answer);
    }
    await compare(those, answers);
  });

  it('answers each of the records that arrive together with its own verdict', async () => {
    const those = await cases(named('Together'));
    await compare(those, await Promise.all(those.inputs.map((input) => t.graphql(app.apiKey, mutation, { input }))));
  });

  it('keeps the daily rollup, the brand members with their counts and the stale days with the records', async () => {
    const those = await cases(named('Kept'));
    await Promise.all(those.inputs.map((input) => t.graphql(app.apiKey, mutation, { input })));
    const account = app.accountId;
    expect((await rollupAgainstRecords(t.database.db, account)).differences).toBe(0);
    const [found] = await executeRows<{ pairs: number; counts: number; days: number }>(
      t.database.db,
      sql`
      select
        (select count(*) from (select distinct brand_id, member_id from activity_records where account_id = ${account} and brand_id is not null) p
          where not exists (select 1 from brand_members b where b.account_id = ${account} and b.brand_id = p.brand_id and b.member_id = p.member_id))::int as pairs,
        (select count(*) from (select brand_id, count(*) as n from brand_members where account_id = ${account} group by 1) k
          full join (select brand_id, sum(members) as n from brand_member_counts where account_id = ${account} group by 1) c using (brand_id)
          where k.n is distinct from c.n)::int as counts,
        (select count(*) from (select distinct (completed_at at time zone 'UTC')::date as day from activity_records
            where account_id = ${account} and not one_time and brand_id is not null) d
          where not exists (select 1 from timeline_days_stale s where s.account_id = ${account} and s.day = d.day))::int as days`,
    );
    expect(found).toEqual({ pairs: 0, counts: 0, days: 0 });
  });

  it('takes the two steps when PostgreSQL refuses a record, which then fails alone', async () => {
    const activity = await createActivity(t, app, { name: named('Whistle'), type: 'Custom' });
    const [member] = await insertMembers(t, app, [{}]);
    const inputs = [{ content: { text: 'a\u0000b' } }, {}, {}].map((extra) => ({ activityId: String(activity), memberId: String(member), ...extra }));
    const answers = await Promise.all(inputs.map((input) => t.graphql(app.apiKey, mutation, { input })));
    expect(answers[0].body.errors?.[0].extensions.code).toBe('INVALID_PARAMETER');
    for (const answer of answers.slice(1)) expect(answer.body.data.recordActivity.created).toBe(true);
    expect(await t.database.db.select().from(activityRecords).where(eq(activityRecords.activityId, activity))).toHaveLength(2);
  });

  it("counts a record before the kept windows' claim in a transaction, as the two steps do", async () => {
    const activity = await createActivity(t, app, { name: named('Clap'), type: 'Custom', points: 4 });
    const [member] = await insertMembers(t, app, [{}]);
    await t.database.db
      .insert(scoreWindowClaims)
      .values({ accountId: app.accountId, claimedUntil: new Date() })
      .onConflictDoUpdate({ target: scoreWindowClaims.accountId, set: { claimedUntil: new Date() } });
    const completedAt = new Date(Date.now() - 5_000).toISOString();
    const answer = await t.graphql(app.apiKey, mutation, { input: { activityId: String(activity), memberId: String(member), completedAt } });
    expect(answer.body.errors).toBeUndefined();
    // the statement the claim refused; then the lookup, and the transaction that counts the record in the kept totals
    expect(Number(answer.headers['x-sql-round-trips'])).toBeGreaterThan(2);
    const [row] = await t.database.db.select().from(activityRecords).where(eq(activityRecords.activityId, activity));
    expect(row).toMatchObject({ memberId: member, points: 4, completedAt: new Date(completedAt) });
  });
});
