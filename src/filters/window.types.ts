import { GraphQLDateTime } from 'graphql-scalars';
import { Field, InputType, Int, registerEnumType } from 'type-graphql';

export enum PeriodUnit {
  HOUR = 'HOUR',
  DAY = 'DAY',
  WEEK = 'WEEK',
  MONTH = 'MONTH',
}
registerEnumType(PeriodUnit, {
  name: 'PeriodUnit',
  description: 'Unit of a relative time span, counted in UTC.',
  valuesConfig: {
    HOUR: { description: 'An hour.' },
    DAY: { description: 'A day: the same time of day, one UTC day apart.' },
    WEEK: { description: 'Seven days.' },
    MONTH: { description: "A calendar month: the same day of the month (or the month's last day, when it is shorter)." },
  },
});

@InputType('PeriodInput', { description: 'A relative span such as 2 WEEK (REST: period=2 Week).' })
export class PeriodInput {
  @Field(() => Int, { description: 'How many units: a whole number from 1 to 10,000.' })
  amount!: number;

  @Field(() => PeriodUnit, { description: 'The unit (REST: Day, Week or Month).' })
  unit!: PeriodUnit;
}

@InputType('WindowInput', {
  description:
    'A time window. It ends at `end`, or `periodEnd` before now, or now; it starts at `start` or `period` ' +
    'before its end. Each operation has a default period and a maximum span, to which it is clamped.',
})
export class WindowInput {
  @Field(() => GraphQLDateTime, { nullable: true, description: 'The first instant inside the window (REST start_date); when given, period is not used. Must be before the end.' })
  start?: Date;

  @Field(() => GraphQLDateTime, { nullable: true, description: 'The first instant after the window: it ends just before (REST end_date). Default: periodEnd before now, or now.' })
  end?: Date;

  @Field(() => PeriodInput, { nullable: true, description: "The window's length before its end when start is not given (REST period); default the operation's, usually one week." })
  period?: PeriodInput;

  @Field(() => PeriodInput, { nullable: true, description: 'Ends the window this long before now, when end is not given (REST period_end).' })
  periodEnd?: PeriodInput;
}
