import type { Executor } from '../../db/client.js';
import type { DefinitionRow } from '../activities/activities.queries.js';
import { activeMembersInGroups, activityGroupCounts } from '../score-windows/score-window-activities.queries.js';
import { activityCorrections } from '../scoring/kept-totals.queries.js';
import { countFromTotals, type TotalsPlan } from '../scoring/score-windows.ranking.js';
import { serviceDays } from '../scoring/timeline-days.queries.js';
import type { Grouping } from './stats.queries.js';

/**
 * The activity and timeline reports from kept structures.
 *
 * The activity report from the kept activity groups (see docs/scoring.md): the same items, order
 * and totals as `activityTotals` counts from the rollup. The distinct members behind the items shown
 * are the brand's active members when every group is shown, and otherwise a read of the brand's
 * activity totals in the groups shown.
 */
export async function activityTotalsFromGroups(
  db: Executor,
  plan: TotalsPlan,
  grouping: Grouping,
  page: { limit: number; offset: number },
  definitions: (ids: number[]) => Promise<(DefinitionRow | null | Error)[]>,
) {
  const corrections = activityCorrections(plan.scope, plan.window);
  const groups = await activityGroupCounts(db, plan.scope, corrections, grouping);
  const shown = groups.slice(page.offset, page.offset + page.limit);
  if (!shown.length) return { items: [], totalCount: 0, totalMembers: 0 };
  const totalMembers =
    shown.length === groups.length
      ? await countFromTotals(db, plan)
      : await activeMembersInGroups(
          db,
          plan.scope,
          corrections,
          grouping,
          shown.map((group) => group.key),
        );
  const named = grouping === 'activity' ? await definitions(shown.map((group) => Number(group.key))) : [];
  const items = shown.map((group, index) => {
    const counts = { count: group.activityCount, distinctMembers: group.members };
    if (grouping === 'service') return { activityId: null, activity: null, type: null, service: group.key, ...counts };
    if (grouping === 'type') return { activityId: null, activity: group.key, type: group.key, service: null, ...counts };
    const definition = named[index] instanceof Error ? null : named[index];
    return { activityId: Number(group.key), activity: definition?.name ?? null, type: definition?.type ?? null, service: definition?.service ?? null, ...counts };
  });
  return { items, totalCount: items.reduce((sum, item) => sum + item.count, 0), totalMembers };
}

/**
 * The timeline's rows from kept structures: per network and day from the kept days (see
 * timeline-days.queries.ts), per network over the window from the kept service groups.
 */
export async function serviceTimelineFromKept(db: Executor, plan: TotalsPlan) {
  const { accountId, brandId } = plan.scope;
  const [days, totals] = await Promise.all([serviceDays(db, accountId, brandId, plan.window), activityGroupCounts(db, plan.scope, activityCorrections(plan.scope, plan.window), 'service')]);
  return [...days, ...totals.map((total) => ({ service: total.key, day: null, count: total.activityCount, distinctMembers: total.members }))];
}
