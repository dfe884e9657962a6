import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum UsageInterval {
  HOUR = 'HOUR',
  DAY = 'DAY',
  MONTH = 'MONTH',
}
registerEnumType(UsageInterval, {
  name: 'UsageInterval',
  description: 'The size of a usage bucket, and with it the longest range served.',
  valuesConfig: {
    HOUR: { description: 'Per UTC hour; at most 7 days.' },
    DAY: { description: 'Per UTC day; at most 90 days.' },
    MONTH: { description: 'Per UTC calendar month; at most 12 months.' },
  },
});

export enum UsageScope {
  /** The calling application only. */
  APP = 'APP',
  /** Every application of the account (REST: app_scope=businessunit, or the global key). */
  ACCOUNT = 'ACCOUNT',
}
registerEnumType(UsageScope, {
  name: 'UsageScope',
  description: 'Whose calls usage counts.',
  valuesConfig: {
    APP: { description: 'The calling application only (REST app_scope=app).' },
    ACCOUNT: { description: 'Every application of the account (REST app_scope=businessunit); the global key always reads this.' },
  },
});

@ObjectType('UsageBucket', { description: 'API calls in one interval.' })
export class UsageBucket {
  @Field(() => GraphQLDateTime, { description: 'Where the interval starts: an hour, a day or a month, in UTC.' })
  start!: Date;

  @Field(() => Int, { description: 'Calls answered in it.' })
  hits!: number;
}

@ObjectType('ApplicationUsage', { description: "One application's calls over the range." })
export class ApplicationUsage {
  @Field(() => ID, { description: 'The application.' })
  applicationId!: number;

  @Field(() => String, { description: "The application's name." })
  name!: string;

  @Field(() => Int, { description: 'Its calls over the whole range.' })
  hits!: number;

  @Field(() => [UsageBucket], { description: 'Its calls per interval, zero-filled.' })
  buckets!: UsageBucket[];
}

@ObjectType('Usage', { description: 'API hit counts per interval, zero-filled, in UTC.' })
export class Usage {
  @Field(() => GraphQLDateTime, { description: 'Where the range starts: as asked, or the start of the day a year ago when asked earlier (older hours are not kept).' })
  start!: Date;

  @Field(() => GraphQLDateTime, { description: "Where the range ends (exclusive): as asked, or cut to the interval's maximum." })
  end!: Date;

  @Field(() => String, { description: 'The time zone of the buckets: always UTC.' })
  timezone!: string;

  @Field(() => UsageInterval, { description: 'The size of the buckets.' })
  interval!: UsageInterval;

  @Field(() => Boolean, { description: 'True when the range asked for was longer than the interval covers and was cut to its maximum.' })
  clamped!: boolean;

  @Field(() => String, { nullable: true, description: 'Why the range differs from the one asked for, when it was clamped.' })
  notice!: string | null;

  @Field(() => Int, { description: 'Calls over the whole range, every application in scope together (REST TotalHitsForPeriod).' })
  hits!: number;

  @Field(() => [UsageBucket], { description: 'Calls per interval, every application in scope together.' })
  buckets!: UsageBucket[];

  @Field(() => [ApplicationUsage], { description: 'The same per application in scope.' })
  applications!: ApplicationUsage[];
}
