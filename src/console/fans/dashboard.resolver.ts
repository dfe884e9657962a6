import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { accountFigures } from '../../modules/stats/account-figures.js';
import { listSegments } from '../../modules/segments/segments.service.js';
import { staffCaller, type ConsoleRule } from '../auth.js';
import type { ConsoleContext } from '../context.js';
import { ConsoleSegmentType, ConsoleStatsType } from './fans.types.js';

/** What an analyst reads: the account's segments (to export) and the dashboard's figures. */
@Resolver()
export class ConsoleDashboardResolver {
  @Authorized<ConsoleRule>('segments.read')
  @Query(() => [ConsoleSegmentType], { description: "The account's segments, each with its CSV export's address (segments.read; exporting needs segments.export)." })
  async segments(@Ctx() context: ConsoleContext): Promise<ConsoleSegmentType[]> {
    const rows = await listSegments({ db: context.database.db, accountId: staffCaller(context).accountId });
    return rows.map((row) => ({ id: row.id, name: row.name, label: row.label, kind: row.kind, brandId: row.brandId, createdAt: row.createdAt, exportUrl: `/console/segments/${row.id}/export.csv` }));
  }

  @Authorized<ConsoleRule>('stats.read')
  @Query(() => ConsoleStatsType, { description: "The account's figures over the last days (stats.read): sign-ups, sign-ins, active fans, records per day." })
  async stats(@Ctx() context: ConsoleContext, @Arg('days', () => Int, { nullable: true, defaultValue: 7, description: '1 to 92.' }) days: number): Promise<ConsoleStatsType> {
    const figures = await accountFigures(context.database.read, staffCaller(context).accountId, days);
    return { ...figures, windowStart: figures.window.start, windowEnd: figures.window.end };
  }
}
