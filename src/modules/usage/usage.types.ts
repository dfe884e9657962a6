import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum UsageInterval {
  HOUR = 'HOUR',
  DAY = 'DAY',
  MONTH = 'MONTH',
}
registerEnumType(UsageInterval, { name: 'UsageInterval' });

export enum UsageScope {
  /** The calling application only. */
  APP = 'APP',
  /** Every application of the account (REST: app_scope=businessunit, or the global key). */
  ACCOUNT = 'ACCOUNT',
}
registerEnumType(UsageScope, { name: 'UsageScope' });

@ObjectType('UsageBucket')
export class UsageBucket {
  @Field(() => GraphQLDateTime)
  start!: Date;

  @Field(() => Int)
  hits!: number;
}

@ObjectType('ApplicationUsage')
export class ApplicationUsage {
  @Field(() => ID)
  applicationId!: number;

  @Field(() => String)
  name!: string;

  @Field(() => Int)
  hits!: number;

  @Field(() => [UsageBucket])
  buckets!: UsageBucket[];
}

@ObjectType('Usage', { description: 'API hit counts per interval, zero-filled, in UTC.' })
export class Usage {
  @Field(() => GraphQLDateTime)
  start!: Date;

  @Field(() => GraphQLDateTime)
  end!: Date;

  @Field(() => String)
  timezone!: string;

  @Field(() => UsageInterval)
  interval!: UsageInterval;

  @Field(() => Boolean, { description: 'True when the range asked for was longer than the interval covers and was cut to its maximum.' })
  clamped!: boolean;

  @Field(() => String, { nullable: true, description: 'Why the range differs from the one asked for, when it was clamped.' })
  notice!: string | null;

  @Field(() => Int)
  hits!: number;

  @Field(() => [UsageBucket])
  buckets!: UsageBucket[];

  @Field(() => [ApplicationUsage])
  applications!: ApplicationUsage[];
}
