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
    @Arg('interval', () => UsageInterval) interval: UsageInterval,
    @Arg('start', () => GraphQLDateTime) start: Date,
    @Arg('end', () => GraphQLDateTime, { nullable: true }) end: Date | null,
    @Arg('period', () => PeriodInput, { nullable: true }) period: PeriodInput | null,
    @Arg('scope', () => UsageScope, { defaultValue: UsageScope.APP }) scope: UsageScope,
  ): Promise<Usage> {
    const { caller } = context;
    // The global key has no application of its own: it always reads the whole account.
    const usageCaller =
      caller.kind === 'application'
        ? { accountId: caller.accountId, applicationId: caller.applicationId }
        : { accountId: caller.kind === 'account' ? caller.accountId : -1 };
    const effectiveScope = caller.kind === 'account' ? UsageScope.ACCOUNT : scope;
    return readUsage(context.database.db, usageCaller, { interval, start, end, period, scope: effectiveScope });
  }
}
