import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum PlanLevel {
  BASIC = 'basic',
  ADVANCED = 'advanced',
  ENTERPRISE = 'enterprise',
}
registerEnumType(PlanLevel, {
  name: 'Plan',
  description: 'What an application may do: advanced and enterprise operations need those plans.',
  valuesConfig: {
    BASIC: { description: 'The operations without a plan requirement; the others answer PLAN_REQUIRED.' },
    ADVANCED: { description: 'Also the advanced operations: recording activity, editing activities, brands and segments, presave, activity counts, the whitelist, sign-in settings, …' },
    ENTERPRISE: { description: 'Every operation, the enterprise ones (custom fields on brands) included.' },
  },
});

export enum NetworkVerificationMode {
  VERIFY = 'verify',
  TRUST = 'trust',
}
registerEnumType(NetworkVerificationMode, {
  name: 'NetworkVerification',
  description: 'How network tokens given to registration and login are trusted: VERIFY checks each with its network; TRUST takes the application at its word.',
  valuesConfig: {
    VERIFY: { description: "Each token is checked with its network at registration and login, and the network's profile (username, URL, followers, paid account, verified email) is stored." },
    TRUST: { description: 'The calling back end vouches for the token; nothing is checked with the network (the default).' },
  },
});

@ObjectType('Application', { description: 'The application whose API key made the call.' })
export class Application {
  @Field(() => ID, { description: "The application's id; also the public id in its widget and hosted page URLs." })
  id!: number;

  @Field(() => ID, { description: "The account it belongs to: members, brands, segments and activities are the account's, shared by its applications." })
  accountId!: number;

  @Field(() => String, { description: "The application's name; the hosted pages and emails show it by default." })
  name!: string;

  @Field(() => PlanLevel, { description: 'Which operations its keys may call.' })
  plan!: PlanLevel;

  @Field(() => GraphQLDateTime, { description: 'When the application was created.' })
  createdAt!: Date;

  @Field(() => NetworkVerificationMode, { description: 'TRUST unless switched to VERIFY (setNetworkVerification).' })
  networkVerification!: NetworkVerificationMode;

  @Field(() => Boolean, { description: 'Whether brands take custom fields (enterprise; switched with setBrandCustomFields).' })
  brandCustomFields!: boolean;
}
