import { Arg, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { maxRetentionMonths, minRetentionMonths, recordRetention, setRecordRetention } from '../modules/retention/retention.js';
import { staffCaller, type ConsoleRule } from './auth.js';
import type { ConsoleContext } from './context.js';

@ObjectType('RecordRetention', { description: "How long the account keeps its activity records (docs/operations.md, 'Record retention')." })
export class RecordRetentionType {
  @Field(() => Int, { nullable: true, description: 'Records older than this many months leave, hourly; null keeps every record.' })
  months!: number | null;
  @Field(() => Int, { description: "The shortest retention allowed: the longest kept window's months." })
  minimumMonths!: number;
  @Field(() => Int) maximumMonths!: number;
}

/** The account's record retention: anyone signed in reads it, owners change it (settings.manage). */
@Resolver()
export class ConsoleRetentionResolver {
  @Authorized()
  @Query(() => RecordRetentionType, { description: "The account's record retention." })
  async recordRetention(@Ctx() context: ConsoleContext): Promise<RecordRetentionType> {
    return retentionType(await recordRetention(context.database.db, staffCaller(context).accountId));
  }

  @Authorized<ConsoleRule>('settings.manage')
  @Mutation(() => RecordRetentionType, {
    description: `Sets how many months of activity records the account keeps (${minRetentionMonths}–${maxRetentionMonths}; null keeps every record), recorded in the audit log (settings.manage). The daily rollup and the kept totals stay.`,
  })
  async setRecordRetention(@Ctx() context: ConsoleContext, @Arg('months', () => Int, { nullable: true }) months: number | null): Promise<RecordRetentionType> {
    return retentionType(await setRecordRetention(context.database.db, staffCaller(context).accountId, months ?? null, context.audit));
  }
}

const retentionType = (months: number | null): RecordRetentionType => ({ months, minimumMonths: minRetentionMonths, maximumMonths: maxRetentionMonths });
