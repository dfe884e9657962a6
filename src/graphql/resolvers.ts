import type { NonEmptyArray } from 'type-graphql';
import { MemberResolver } from '../modules/members/members.resolver.js';
import { ApplicationResolver } from '../modules/tenancy/tenancy.resolver.js';
import { UsageResolver } from '../modules/usage/usage.resolver.js';

/** Every resolver class of the schema; a module adds its own here. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const resolvers: NonEmptyArray<Function> = [ApplicationResolver, UsageResolver, MemberResolver];
