import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema/index.js';
import { executeRows } from '../../src/db/rows.js';
import { createActivity, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

/**
 * Activity records and their daily rollup have no key of their own to accounts (the member's
 * composite key covers the account, and one key fewer per row is ingestion time): deleting an
 * account still deletes them, through its members, and leaves other accounts' alone.
 */
describe('deleting an account', () => {
  it('deletes its records and rollup through its members', async () => {
    const [gone, kept] = [await t.tenant(), await t.tenant()];
    const counts = async (accountId: number) => {
      const [row] = await executeRows<{ records: number; daily: number }>(
        t.database.db,
        sql`select
        (select count(*)::int from activity_records where account_id = ${accountId}) as records,
        (select count(*)::int from member_activity_daily where account_id = ${accountId}) as daily`,
      );
      return row;
    };
    for (const tenant of [gone, kept]) {
      const [member] = await insertMembers(t, tenant, [{}]);
      const activityId = await createActivity(t, tenant, { name: 'Listen', type: 'Listened', points: 2 });
      await record(t, tenant, [{ activityId, memberId: member, completedAt: new Date().toISOString() }]);
      expect(await counts(tenant.accountId)).toEqual({ records: 1, daily: 1 });
    }
    await t.database.db.delete(accounts).where(eq(accounts.id, gone.accountId));
    expect(await counts(gone.accountId)).toEqual({ records: 0, daily: 0 });
    expect(await counts(kept.accountId)).toEqual({ records: 1, daily: 1 });
  });
});
