import { GraphQLDateTime } from 'graphql-scalars';
import { Field, InputType, Int, registerEnumType } from 'type-graphql';

export enum PeriodUnit {
  HOUR = 'HOUR',
  DAY = 'DAY',
  WEEK = 'WEEK',
  MONTH = 'MONTH',
}
registerEnumType(PeriodUnit, { name: 'PeriodUnit', description: 'Unit of a relative time span.' });

@InputType('PeriodInput', { description: 'A relative span such as 2 WEEK (REST: period=2 Week).' })
export class PeriodInput {
  @Field(() => Int)
  amount!: number;

  @Field(() => PeriodUnit)
  unit!: PeriodUnit;
}

@InputType('WindowInput', {
  description:
    'A time window. It ends at `end`, or `periodEnd` before now, or now; it starts at `start` or `period` ' +
    'before its end. Each operation has a default period and a maximum span, to which it is clamped.',
})
export class WindowInput {
  @Field(() => GraphQLDateTime, { nullable: true })
  start?: Date;

  @Field(() => GraphQLDateTime, { nullable: true })
  end?: Date;

  @Field(() => PeriodInput, { nullable: true })
  period?: PeriodInput;

  @Field(() => PeriodInput, { nullable: true })
  periodEnd?: PeriodInput;
}
