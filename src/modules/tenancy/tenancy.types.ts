import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum PlanLevel {
  BASIC = 'basic',
  ADVANCED = 'advanced',
  ENTERPRISE = 'enterprise',
}
registerEnumType(PlanLevel, { name: 'Plan', description: 'What an application may do: advanced and enterprise operations need those plans.' });

export enum NetworkVerificationMode {
  VERIFY = 'verify',
  TRUST = 'trust',
}
registerEnumType(NetworkVerificationMode, {
  name: 'NetworkVerification',
  description: 'How network tokens given to registration and login are trusted: VERIFY checks each with its network; TRUST takes the application at its word.',
});

@ObjectType('Application', { description: 'The application whose API key made the call.' })
export class Application {
  @Field(() => ID)
  id!: number;

  @Field(() => ID)
  accountId!: number;

  @Field(() => String)
  name!: string;

  @Field(() => PlanLevel)
  plan!: PlanLevel;

  @Field(() => GraphQLDateTime)
  createdAt!: Date;

  @Field(() => NetworkVerificationMode, { description: 'TRUST unless switched to VERIFY (setNetworkVerification).' })
  networkVerification!: NetworkVerificationMode;

  @Field(() => Boolean, { description: 'Whether brands take custom fields (enterprise; switched with setBrandCustomFields).' })
  brandCustomFields!: boolean;
}
