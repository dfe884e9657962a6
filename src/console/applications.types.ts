import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('ConsoleApiKey', { description: 'An API key of the account, as its owners see it: never the key itself nor its hash.' })
export class ConsoleApiKeyType {
  @Field(() => ID, { description: "The key's id (revokeApiKey)." }) id!: number;
  @Field(() => String, { description: 'The first characters of the key, to tell keys apart.' }) prefix!: string;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) revokedAt!: Date | null;
  @Field(() => Boolean, { description: 'Not revoked: the key answers on /graphql and /v1.1.' }) live!: boolean;
}

@ObjectType('ConsoleApplication', { description: 'An application of the account, with its API keys.' })
export class ConsoleApplicationType {
  @Field(() => ID, { description: "The application's id (createApiKey)." }) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'basic, advanced or enterprise.' }) plan!: string;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => [ConsoleApiKeyType], { description: 'Its keys, live and revoked, oldest first.' }) keys!: ConsoleApiKeyType[];
}

@ObjectType('CreatedApiKey', { description: 'A key just created. The key itself is answered this once: only its hash is kept.' })
export class CreatedApiKeyType {
  @Field(() => ID) id!: number;
  @Field(() => ID) applicationId!: number;
  @Field(() => String) prefix!: string;
  @Field(() => String, { description: 'The key, for the x-api-key header: shown once, never again.' }) key!: string;
}
