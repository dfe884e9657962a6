import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue, type ErrorCode } from '../../src/core/errors.js';
import { executeRows } from '../../src/db/rows.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { makers } from './world.js';

/**
 * Ordinary client races answer documented codes, never a 500: records for a member while it is
 * deleted (404 for the member, or recorded before the deletion), and many members changing to one
 * email address at once (one succeeds, the others 409 naming `email`). Meaningful on PostgreSQL,
 * where the calls run in parallel transactions; on PGlite they are serialised, and the same checks
 * hold.
 */
let t: TestGateway;
let tenant: Tenant;
let make: ReturnType<typeof makers>;
let activity: string;

beforeAll(async () => {
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000000' });
  tenant = await t.tenant('enterprise');
  make = makers(t, tenant, 'client-race');
  activity = await make.activity(await make.brand());
}, 120_000);
afterAll(() => t.close());

const recordDocument = `mutation ($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }`;

/** A GraphQL answer as the HTTP status of its first error's code (200 without errors). */
const statusOf = (answer: { status: number; body: { errors?: { extensions?: { code?: string } }[] } }) =>
  answer.body.errors ? (errorCatalogue[answer.body.errors[0].extensions?.code as ErrorCode]?.status ?? 500) : answer.status;

describe('records for a member that is deleted meanwhile', () => {
  it('answer 200 (recorded before the deletion) or 404 for the member, and leave nothing of the member (15 deletions)', async () => {
    const answers: { status: number; code?: string; param?: string }[] = [];
    const deleted: string[] = [];
    for (let round = 0; round < 15; round += 1) {
      const member = await make.member();
      const single = async (n: number) => {
        const answer = await t.rest(tenant, 'POST', '/activity/record', { activityid: activity, id: member.id, category: `deleted-${round}-${n}` }, { key: 'header' });
        answers.push({ status: answer.status, code: answer.json?.error?.type, param: answer.json?.error?.param });
      };
      const batch = async (n: number) => {
        const answer = await t.graphql(tenant.apiKey, recordDocument, {
          input: Array.from({ length: 3 }, (_, i) => ({ activityId: activity, memberId: member.id, category: `deleted-${round}-${n}-${i}` })),
        });
        answers.push({ status: statusOf(answer), code: answer.body.errors?.[0]?.extensions?.code, param: answer.body.errors?.[0]?.extensions?.param });
      };
      const remove = async () => {
        const answer = await t.rest(tenant, 'POST', `/member/${member.id}/delete`, {}, { key: 'header' });
        expect(answer.status, answer.body).toBe(200);
      };
      await Promise.all([...Array.from({ length: 5 }, (_, n) => single(n)), batch(0), remove(), ...Array.from({ length: 5 }, (_, n) => single(n + 5)), batch(1)]);
      deleted.push(member.id);
    }
    expect(answers.filter((answer) => answer.status !== 200 && !(answer.status === 404 && answer.code === 'NOT_FOUND'))).toEqual([]);
    const ids = `{${deleted.join(',')}}`;
    const left = await executeRows<{ n: number }>(
      t.database.db,
      sql`
      select (select count(*) from activity_records where account_id = ${tenant.accountId} and member_id = any(${ids}::int[]))
        + (select count(*) from member_activity_daily where account_id = ${tenant.accountId} and member_id = any(${ids}::int[]))
        + (select count(*) from score_window_totals where account_id = ${tenant.accountId} and member_id = any(${ids}::int[])) as n`,
    );
    expect(Number(left[0].n)).toBe(0);
  }, 300_000);
});

describe('members changing to one email address at once', () => {
  it('20 at once: one succeeds, the others answer 409 naming email', async () => {
    const people = await Promise.all(Array.from({ length: 20 }, () => make.member()));
    const email = `taken-${Date.now()}@example.com`;
    const answers = await Promise.all(people.map((person) => t.rest(tenant, 'POST', `/member/${person.id}/update`, { email }, { key: 'header' })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: 19 }, () => 409)]);
    for (const answer of answers.filter((each) => each.status === 409)) {
      expect(answer.json.error).toMatchObject({ code: 17, type: 'CONFLICT', param: 'email' });
    }
    // The address signs in one member: the one whose update succeeded.
    const winner = people[answers.findIndex((answer) => answer.status === 200)];
    const identities = await executeRows<{ member_id: number }>(
      t.database.db,
      sql`
      select member_id from member_services where account_id = ${tenant.accountId} and network = 'email' and uid = ${email}`,
    );
    expect(identities.map((row) => String(row.member_id))).toEqual([winner.id]);
  }, 120_000);
});
