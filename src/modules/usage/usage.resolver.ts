import { GraphQLDateTime } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { PeriodInput } from '../../filters/window.types.js';
import type { Context } from '../../core/context.js';
import { readUsage } from './usage.service.js';
import { Usage, UsageInterval, UsageScope } from './usage.types.js';

@Resolver()
export class UsageResolver {
  @Authorized('global')
  @Query(() => Usage, { description: 'API hit counts of this application, or of the whole account.' })
  async usage(
    @Ctx() context: Context,
    @Arg('interval', () => UsageInterval, { description: 'The size of the buckets.' }) interval: UsageInterval,
    @Arg('start', () => GraphQLDateTime, { description: 'Where the range starts (REST start_date); at most a year ago is reported.' }) start: Date,
    @Arg('end', () => GraphQLDateTime, { nullable: true, description: 'Where the range ends, exclusive (REST end_date); this or period is required.' }) end: Date | null,
    @Arg('period', () => PeriodInput, { nullable: true, description: "The range's length after start, in HOUR, DAY or MONTH units, when end is not given." })
    period: PeriodInput | null,
    @Arg('scope', () => UsageScope, { defaultValue: UsageScope.APP, description: 'The calling application or the whole account.' }) scope: UsageScope,
  ): Promise<Usage> {
    const { caller } = context;
    // The global key has no application of its own: it always reads the whole account.
    const usageCaller = caller.kind === 'application' ? { accountId: caller.accountId, applicationId: caller.applicationId } : { accountId: caller.kind === 'account' ? caller.accountId : -1 };
    const effectiveScope = caller.kind === 'account' ? UsageScope.ACCOUNT : scope;
    return readUsage(context.database.db, usageCaller, { interval, start, end, period, scope: effectiveScope });
  }
}
