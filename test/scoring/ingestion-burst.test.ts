import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import { compileFilter } from '../../src/filters/compile.js';
import { listingWindow, resolveWindow } from '../../src/filters/window.js';
import type { WindowInput } from '../../src/filters/window.types.js';
import { maxCorrectionRecords } from '../../src/modules/score-windows/score-windows.js';
import { catchUpReadLoad, catchUpReadsPerAccount, catchUpRead } from '../../src/modules/scoring/catch-up-reads.js';
import { chooseTotals } from '../../src/modules/scoring/score-windows.ranking.js';
import { advanceWindows, coverUntil, maxStepRecords } from '../../src/modules/scoring/score-windows.worker.js';
import { createActivity, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { keptTotalsExact } from '../support/kept-structures.js';

/**
 * A burst of batch ingestion stores more records of now in a minute than a ranking corrects the
 * kept totals with. Before, totals less than 30 minutes behind served whatever they missed: every
 * ranking corrected the whole burst (seconds each at scale, bench/results/HISTORY.md, "Rankings after a burst of batch ingestion"), and the worker's
 * steps, shared by the five windows, took in a tenth of their budget of the burst each.
 */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  // The steps are this test's: the gateway's own worker would fold the burst in between.
  await t.gateway.scoreWindows.stop();
  tenant = await t.tenant('enterprise');
});
afterAll(() => t?.close());

const day = 24 * 60 * 60_000;
const week = { period: { amount: 1, unit: 'WEEK' } } as WindowInput;
const sixMonths = { period: { amount: 6, unit: 'MONTH' } } as WindowInput;

describe('rankings right after a burst of records of now', () => {
  it('read the rollup while the totals miss more than a ranking corrects, exact; the worker folds the week first, with nearly its whole budget', async () => {
    const brandId = await insertBrand(t, tenant, 'Burst Records');
    const listen = await createActivity(t, tenant, { name: 'Listen', type: 'Listened', brandid: brandId, points: 2, service: 'spotify' });
    const members = await insertMembers(t, tenant, [{}, {}, {}]);
    // Records before the burst, in every window.
    await record(
      t,
      tenant,
      members.map((memberId, index) => ({ activityId: listen, memberId, completedAt: new Date(Date.now() - (index + 2) * day).toISOString() })),
    );
    await coverUntil(t.database.db, tenant.accountId, new Date());
    const burst = maxCorrectionRecords + 1;
    for (let at = 0; at < burst; at += 1000) {
      // A batch of now, in one millisecond.
      const completedAt = new Date().toISOString();
      await record(
        t,
        tenant,
        Array.from({ length: Math.min(1000, burst - at) }, (_, index) => ({
          activityId: listen,
          memberId: members[(at + index) % 7 === 0 ? 0 : (at + index) % 2 ? 1 : 2],
          completedAt,
        })),
      );
    }
    const until = new Date();

    const listing = `query($window: WindowInput) { members(window: $window, first: 5) { edges { node { id score { points activityCount } } } } }`;
    const ranked = async (window = week) => {
      const { body } = await t.graphql(tenant.apiKey, listing, { window });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return (body.data.members.edges as { node: { id: string; score: { points: number; activityCount: number } } }[]).map(({ node }) => ({
        id: Number(node.id),
        points: node.score.points,
        activityCount: node.score.activityCount,
      }));
    };
    const bruteForce = async (input = week) => {
      const window = resolveWindow(input, listingWindow);
      const rows = await executeRows<{ id: number; points: number; activity_count: number }>(
        t.database.db,
        sql`select member_id as id, sum(points)::int as points, count(*)::int as activity_count from activity_records
        where account_id = ${tenant.accountId} and not one_time and completed_at >= ${window.start.toISOString()} and completed_at < ${window.end.toISOString()}
        group by member_id order by 2 desc, 1 asc limit 5`,
      );
      return rows.map((row) => ({ id: Number(row.id), points: Number(row.points), activityCount: Number(row.activity_count) }));
    };
    const choice = async (input = week) => {
      const window = resolveWindow(input, listingWindow);
      return chooseTotals(t.database.db, await compileFilter(t.database.db, tenant.accountId, {}, window), window);
    };
    const fromTotals = async () => Boolean((await choice()).plan);

    // Seconds behind, but more records behind than a ranking corrects: the rollup answers.
    expect(await fromTotals()).toBe(false);
    expect(await ranked()).toEqual(await bruteForce());
    /** With the account's turns taken (by reads of `window`'s length), a ranking of `window` waits for one, then answers exactly. */
    const waitsForTurn = async (window: WindowInput) => {
      const turns: (() => void)[] = [];
      const held = Array.from({ length: catchUpReadsPerAccount }, () =>
        catchUpRead(t.database.db, { accountId: tenant.accountId, lagging: true, window: resolveWindow(window, listingWindow) }, () => new Promise<void>((resolve) => turns.push(resolve))),
      );
      let answered = false;
      const waiting = ranked(window).finally(() => (answered = true));
      await expect.poll(() => catchUpReadLoad(t.database.db, tenant.accountId).waiting).toBe(1);
      expect(answered).toBe(false);
      turns[0]();
      expect(await waiting).toEqual(await bruteForce(window));
      for (const turn of turns.slice(1)) turn();
      await Promise.all(held);
      expect(catchUpReadLoad(t.database.db, tenant.accountId)).toEqual({ running: 0, waiting: 0, sharing: 0 });
    };
    // In a catch-up turn (catch-up-reads.ts).
    expect((await choice()).lagging).toBe(true);
    await waitsForTurn(week);

    // Two requests for the same page while it waits for a turn share one read (sharedCatchUpRead),
    // whose window ends when it runs: a record stored between the two requests counts for both,
    // as it would for a read of the second's own.
    const headline = await createActivity(t, tenant, { name: 'Headline', type: 'Listened', brandid: brandId, points: 1_000_000 });
    const [latecomer] = await insertMembers(t, tenant, [{}]);
    const turns: (() => void)[] = [];
    const held = Array.from({ length: catchUpReadsPerAccount }, () =>
      catchUpRead(t.database.db, { accountId: tenant.accountId, lagging: true, window: resolveWindow(week, listingWindow) }, () => new Promise<void>((resolve) => turns.push(resolve))),
    );
    const load = () => catchUpReadLoad(t.database.db, tenant.accountId);
    const first = ranked(week);
    await expect.poll(load).toEqual({ running: catchUpReadsPerAccount, waiting: 1, sharing: 1 });
    await record(t, tenant, [{ activityId: headline, memberId: latecomer, completedAt: new Date().toISOString() }]);
    const second = ranked(week);
    await expect.poll(load).toEqual({ running: catchUpReadsPerAccount, waiting: 1, sharing: 2 });
    turns[0]();
    const [firstAnswer, secondAnswer] = await Promise.all([first, second]);
    expect(firstAnswer[0]).toEqual({ id: latecomer, points: 1_000_000, activityCount: 1 });
    expect(secondAnswer).toEqual(firstAnswer);
    expect(firstAnswer).toEqual(await bruteForce());
    for (const turn of turns.slice(1)) turn();
    await Promise.all(held);
    expect(load()).toEqual({ running: 0, waiting: 0, sharing: 0 });

    // A shared page that asks for its count reads it in the same turn: with every other turn
    // held, the count read within it does not wait for one.
    const others = Array.from({ length: catchUpReadsPerAccount - 1 }, () =>
      catchUpRead(t.database.db, { accountId: tenant.accountId, lagging: true, window: resolveWindow(week, listingWindow) }, () => new Promise<void>((resolve) => turns.push(resolve))),
    );
    const { body: countedPage } = await t.graphql(tenant.apiKey, `query($window: WindowInput) { members(window: $window, first: 2) { totalCount edges { node { id } } } }`, { window: week });
    expect(countedPage.errors, JSON.stringify(countedPage.errors)).toBeUndefined();
    const window = resolveWindow(week, listingWindow);
    const [{ active }] = await executeRows<{ active: number }>(
      t.database.db,
      sql`select count(distinct member_id)::int as active from activity_records
      where account_id = ${tenant.accountId} and not one_time and completed_at >= ${window.start.toISOString()} and completed_at < ${window.end.toISOString()}`,
    );
    expect(countedPage.data.members.totalCount).toBe(Number(active));
    expect(countedPage.data.members.edges.map(({ node }: { node: { id: string } }) => Number(node.id))).toEqual((await bruteForce()).slice(0, 2).map((row) => row.id));
    for (const turn of turns.slice(catchUpReadsPerAccount)) turn();
    await Promise.all(others);
    // Six months corrects its totals with the same burst instead: its bound is 20,000 records a
    // week of window (correctionBound), its rollup dearer than such a correction. A correction past
    // 20,000 records takes a catch-up turn too.
    const six = await choice(sixMonths);
    expect(six.plan?.scope.windowId).toBe(5);
    expect(six.lagging).toBe(true);
    expect(await ranked(sixMonths)).toEqual(await bruteForce(sixMonths));
    await waitsForTurn(sixMonths);

    // One step: the week alone, its new end taking the whole budget its old end (a moment of a
    // week ago, no records) leaves unused.
    const windowsOf = () =>
      executeRows<{ window_id: number; until: string }>(t.database.db, sql`select window_id, covered_until::text as until from score_windows where account_id = ${tenant.accountId} order by 1`);
    const before = await windowsOf();
    expect(await advanceWindows(t.database.db, tenant.accountId, until, maxStepRecords)).toBe(false);
    const after = await windowsOf();
    expect(after.filter((w, index) => w.until !== before[index].until).map((w) => Number(w.window_id))).toEqual([2]);
    const [{ left }] = await executeRows<{ left: number }>(
      t.database.db,
      sql`select count(*)::int as left from activity_records where account_id = ${tenant.accountId} and completed_at >= (select covered_until from score_windows where account_id = ${tenant.accountId} and window_id = 2)`,
    );
    // A step ends between two batches.
    expect(Number(left)).toBeLessThanOrEqual(burst - maxStepRecords + 1000);
    await keptTotalsExact(t.database.db, tenant.accountId);
    // The week is served from its totals again, exact, while the other windows still lag.
    expect(await fromTotals()).toBe(true);
    expect(await ranked()).toEqual(await bruteForce());

    await coverUntil(t.database.db, tenant.accountId, until);
    await keptTotalsExact(t.database.db, tenant.accountId);
    expect(await fromTotals()).toBe(true);
    expect(await ranked()).toEqual(await bruteForce());
  }, 300_000);
});
